// Command pagetest runs the fenced blocks of documentation pages as a reader
// copies them (see internal/pagetest/README.md). scripts/guides-test.sh builds
// what it needs and runs it over docs/; its last line is "NAME: N passed, M failed".
package main

import (
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
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: pagetest -terraform CLI -provider-dir DIR -emulator BIN [flags] PAGE.md...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if cfg.Terraform == "" || cfg.ProviderDir == "" || cfg.Emulator == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	cfg.Out = os.Stdout
	var total pagetest.Result
	pages := 0
	for _, path := range flag.Args() {
		page, err := pagetest.ParseFile(path)
		if err != nil {
			fmt.Printf("  FAIL  %s\n", err)
			total.Failed++
			continue
		}
		fmt.Printf("==> %s\n", path)
		t0 := time.Now()
		res := pagetest.RunPage(cfg, page)
		fmt.Printf("    %d blocks run, %d skipped, %d checks failed (%s)\n", res.Blocks, res.Skipped, res.Failed, time.Since(t0).Round(time.Second))
		pages++
		total.Passed += res.Passed
		total.Failed += res.Failed
		total.Skipped += res.Skipped
		total.Blocks += res.Blocks
	}
	fmt.Printf("==> %d pages, %d blocks run, %d skipped\n", pages, total.Blocks, total.Skipped)
	fmt.Printf("%s: %d passed, %d failed\n", *name, total.Passed, total.Failed)
	if total.Failed > 0 {
		os.Exit(1)
	}
}
