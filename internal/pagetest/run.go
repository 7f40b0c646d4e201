package pagetest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The run of one page: its CLIs, the block loop and the checks of its end (above every other file).

// RunPage runs the blocks of one page in a fresh directory against a fresh emulator; a page with
// cli=every runs so once on each CLI of the runner (Terraform, Terraform next, OpenTofu as `terraform`).
func RunPage(cfg Config, page *Page) Result {
	if cfg.BlockTimeout == 0 {
		cfg.BlockTimeout = 10 * time.Minute
	}
	switch page.Options["cli"] {
	case "", "next":
		return runPageOn(cfg, page, "")
	case "every":
	default:
		fmt.Fprintf(cfg.Out, "  FAIL  %s: cli=%q: write cli=next or cli=every\n", page.Path, page.Options["cli"])
		return Result{Failed: 1, Errors: []string{page.Path + ": unknown cli=" + page.Options["cli"]}}
	}
	var total Result
	for _, c := range []struct{ name, bin, missing string }{
		{"Terraform", cfg.Terraform, "no terraform"},
		{"Terraform next", cfg.TerraformNext, "needs Terraform 1.16: make terraform-next"},
		{"OpenTofu", cfg.Tofu, "needs OpenTofu: make tofu"},
	} {
		if c.bin == "" {
			fmt.Fprintf(cfg.Out, "  skip  %s on %s (%s)\n", page.Path, c.name, c.missing)
			total.Skipped++
			continue
		}
		fmt.Fprintf(cfg.Out, "  --    %s on %s (%s)\n", page.Path, c.name, c.bin)
		res := runPageOn(cfg, page, c.bin)
		total.Passed += res.Passed
		total.Failed += res.Failed
		total.Skipped += res.Skipped
		total.Blocks += res.Blocks
		total.Errors = append(total.Errors, res.Errors...)
	}
	return total
}

// runPageOn runs a page with cli as `terraform` ("": the page's CLI, Terraform or Terraform next).
func runPageOn(cfg Config, page *Page, cli string) Result {
	r := &pageRun{cfg: cfg, page: page, expected: page.Options["expect-error"], reference: isReference(page.Path)}
	_, declared := page.Options["provider-declared"]
	r.declared = declared || r.reference
	if reason, ok := page.Options["skip"]; ok {
		r.printf("  skip  %s (%s)\n", page.Path, reason)
		r.res.Skipped++
		return r.res
	}
	if !runnable(page) {
		for _, b := range page.Blocks {
			if k, reason, _ := Classify(b); k == KindSkip {
				r.res.Skipped++
				r.printf("  skip  %s:%d %s (%s)\n", page.Path, b.Line, langName(b.Lang), reason)
			}
		}
		return r.res
	}
	r.cli = cli
	if r.cli == "" {
		r.cli = cfg.Terraform
		if needsNext(page) {
			if cfg.TerraformNext == "" {
				r.printf("  skip  %s (needs Terraform 1.16: make terraform-next)\n", page.Path)
				r.res.Skipped++
				return r.res
			}
			r.cli = cfg.TerraformNext
		}
	}
	if skip, err := r.otherProviders(); skip != "" || err != nil {
		if err != nil {
			r.fail(page.Path, err.Error(), "")
		} else {
			r.printf("  skip  %s (%s)\n", page.Path, skip)
			r.res.Skipped++
		}
		return r.res
	}
	if err := r.setup(); err != nil {
		r.fail(page.Path, err.Error(), "")
	} else {
		r.run()
	}
	r.teardown()
	if r.expected != "" {
		return r.expectedFailure()
	}
	return r.res
}

// expectedFailure turns the run of a negative fixture into one check: it passes
// when the page failed with the expected text.
func (r *pageRun) expectedFailure() Result {
	for _, e := range r.res.Errors {
		if strings.Contains(e, r.expected) {
			fmt.Fprintf(r.cfg.Out, "  ok    %s fails as it must: %s\n", r.page.Path, firstLine(e))
			return Result{Passed: 1, Blocks: r.res.Blocks}
		}
	}
	fmt.Fprintf(r.cfg.Out, "  FAIL  %s must fail with %q; it failed with: %q\n", r.page.Path, r.expected, r.res.Errors)
	return Result{Failed: 1, Blocks: r.res.Blocks, Errors: []string{r.page.Path + ": did not fail as expected"}}
}

// runnable: the page has a block the runner writes or runs.
func runnable(p *Page) bool {
	for _, b := range p.Blocks {
		if k, _, err := Classify(b); err != nil || k == KindFile || k == KindShell || k == KindScript {
			return true
		}
	}
	return false
}

var nextRe = regexp.MustCompile(`(?m)^\s*(action|list)\s+"|action_trigger|terraform query|\.tfquery\.hcl`)

func needsNext(p *Page) bool {
	if p.Options["cli"] == "next" {
		return true
	}
	for _, b := range p.Blocks {
		if k, _, _ := Classify(b); k != KindShown && k != KindSkip && nextRe.MatchString(b.Text) {
			return true
		}
	}
	return false
}

// run runs the page's blocks in order, then the checks of its end.
func (r *pageRun) run() {
	for i, b := range r.page.Blocks {
		r.block(i, b)
	}
	r.finish()
}

// block writes or runs one block (or counts it as skipped).
func (r *pageRun) block(i int, b Block) {
	kind, arg, err := Classify(b)
	what := fmt.Sprintf("%s:%d %s", r.page.Path, b.Line, langName(b.Lang))
	if err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	text, err := r.substitute(b)
	if err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	if d := b.Marker["dir"]; d != "" && kind != KindShown && kind != KindSkip {
		if err := r.chdir(d); err != nil {
			r.fail(what, err.Error(), "")
			return
		}
	}
	switch kind {
	case KindShown:
	case KindSkip:
		r.res.Skipped++
		r.printf("  skip  %s (%s)\n", what, arg)
	case KindFile:
		r.res.Blocks++
		r.file(what, b, arg, text)
	case KindShell, KindScript:
		if r.reference && b.Marker == nil {
			r.res.Skipped++
			r.printf("  skip  %s (a command on a reference page names example ids; its configuration blocks are run)\n", what)
			return
		}
		if r.cfg.Tofu == "" && tofuRe.MatchString(text) {
			r.res.Skipped++
			r.printf("  skip  %s (runs OpenTofu, which is not built: make tofu)\n", what)
			return
		}
		r.res.Blocks++
		r.shell(i, what, b, text, kind == KindScript)
	}
}

// file writes a file block into the current directory (on a reference page, a directory of the
// example's own).
func (r *pageRun) file(what string, b Block, name, text string) {
	if r.reference {
		if b.Marker["dir"] == "" {
			if err := r.chdir(fmt.Sprintf("example-%d", b.Line)); err != nil {
				r.fail(what, err.Error(), "")
				return
			}
		}
		if !slices.Contains(r.examples, r.cwd()) {
			r.examples = append(r.examples, r.cwd())
		}
	}
	if err := r.declare(r.cwd(), name, text); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	if err := writeFile(r.cwd(), name, text); err != nil {
		r.fail(what+" -> "+name, err.Error(), "")
	} else {
		r.ok(what + " -> " + name)
	}
}

// finish: the files the configurations read that the page never showed, terraform validate in every
// directory with a configuration, and a reference page's examples against the emulator.
func (r *pageRun) finish() {
	for _, m := range missingFiles(r.work) {
		r.fail(r.page.Path, m, "")
	}
	if _, ok := r.page.Options["no-validate"]; ok {
		return
	}
	for _, dir := range configDirs(r.work) {
		rel, _ := filepath.Rel(r.work, dir)
		r.step(dir, fmt.Sprintf("%s: terraform validate in %s", r.page.Path, rel), 0, "validate", "-no-color")
	}
	for _, dir := range r.examples {
		r.exercise(dir)
	}
}

func langName(l string) string {
	if l == "" {
		return "block"
	}
	return l
}
