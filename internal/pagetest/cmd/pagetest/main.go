// Command pagetest runs the fenced blocks of documentation pages as a reader
// copies them (see internal/pagetest/README.md). scripts/guides-test.sh builds
// what it needs and runs it over docs/; its last line is "NAME: N passed, M failed".
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/pagetest"
)

func main() {
	var cfg pagetest.Config
	name := flag.String("name", "guides", "name of the closing line NAME: N passed, M failed")
	flag.StringVar(&cfg.Terraform, "terraform", "", "the Terraform CLI a reader runs (required)")
	flag.StringVar(&cfg.TerraformNext, "terraform-next", "", "Terraform >= 1.16 for pages with actions, list resources or terraform query (empty: those pages are skipped)")
	flag.StringVar(&cfg.Tofu, "tofu", "", "OpenTofu, as tofu for the blocks (empty: blocks that run tofu fail)")
	flag.StringVar(&cfg.ProviderDir, "provider-dir", "", "directory of the provider build, named in the dev_overrides (required)")
	flag.StringVar(&cfg.Emulator, "emulator", "", "the emulator binary (required)")
	flag.StringVar(&cfg.Postgres, "postgres", "auto", "the emulator's -postgres mode")
	flag.DurationVar(&cfg.BlockTimeout, "block-timeout", 10*time.Minute, "how long one block may run")
	flag.BoolVar(&cfg.Verbose, "v", false, "print every block's output")
	jobs := flag.Int("jobs", 1, "pages run at once (each has its own directory and emulator); output is printed page by page, in order")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: pagetest -terraform CLI -provider-dir DIR -emulator BIN [flags] PAGE.md...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if cfg.Terraform == "" || cfg.ProviderDir == "" || cfg.Emulator == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	results := runPages(cfg, flag.Args(), *jobs)
	var total pagetest.Result
	pages := 0
	for _, r := range results {
		<-r.done // printed in page order, each page as soon as it and those before it are done
		_, _ = os.Stdout.Write(r.out.Bytes())
		if r.parsed {
			pages++
		}
		total.Passed += r.res.Passed
		total.Failed += r.res.Failed
		total.Skipped += r.res.Skipped
		total.Blocks += r.res.Blocks
	}
	fmt.Printf("==> %d pages, %d blocks run, %d skipped\n", pages, total.Blocks, total.Skipped)
	fmt.Printf("%s: %d passed, %d failed\n", *name, total.Passed, total.Failed)
	if total.Failed > 0 {
		os.Exit(1)
	}
}

// pageRun is what one page gave: its output, whole, and its result.
type pageRun struct {
	done   chan struct{} // closed when the page has run
	out    bytes.Buffer
	res    pagetest.Result
	parsed bool
}

// runPages starts the pages, jobs at a time (in order), and returns their runs in the order of
// paths; each page writes into its own buffer, so that pages run at once do not mix their lines.
func runPages(cfg pagetest.Config, paths []string, jobs int) []*pageRun {
	runs := make([]*pageRun, len(paths))
	sem := make(chan struct{}, max(jobs, 1))
	for i := range paths {
		runs[i] = &pageRun{done: make(chan struct{})}
	}
	go func() {
		for i, path := range paths {
			sem <- struct{}{}
			go func(r *pageRun) {
				defer func() { <-sem }()
				defer close(r.done)
				r.runPage(cfg, path)
			}(runs[i])
		}
	}()
	return runs
}

func (r *pageRun) runPage(cfg pagetest.Config, path string) {
	page, err := pagetest.ParseFile(path)
	if err != nil {
		fmt.Fprintf(&r.out, "  FAIL  %s\n", err)
		r.res.Failed++
		return
	}
	r.parsed = true
	cfg.Out = &r.out
	fmt.Fprintf(&r.out, "==> %s\n", path)
	t0 := time.Now()
	r.res = pagetest.RunPage(cfg, page)
	fmt.Fprintf(&r.out, "    %d blocks run, %d skipped, %d checks failed (%s)\n", r.res.Blocks, r.res.Skipped, r.res.Failed, time.Since(t0).Round(time.Second))
}
