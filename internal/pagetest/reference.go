package pagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Reference pages: each example in a directory of its own, validated and, where cheap, applied.

var referenceDirs = []string{"resources", "data-sources", "list-resources", "actions", "ephemeral-resources", "functions"}

func isReference(path string) bool {
	dir := filepath.Base(filepath.Dir(path))
	for _, d := range referenceDirs {
		if dir == d {
			return true
		}
	}
	return false
}

// declare writes versions.tf (the provider in required_providers) into dir when
// the page's reader has the provider declared and dir has no terraform block yet.
func (r *pageRun) declare(dir, name, text string) error {
	if !r.declared || (!strings.HasSuffix(name, ".tf") && !strings.HasSuffix(name, ".tfquery.hcl")) {
		return nil
	}
	if regexp.MustCompile(`(?m)^terraform\s*\{`).MatchString(text) {
		return nil
	}
	for _, p := range tfFiles(dir) {
		if b, _ := os.ReadFile(p); regexp.MustCompile(`(?m)^terraform\s*\{`).Match(b) {
			return nil
		}
	}
	const versions = "terraform {\n  required_providers {\n    dbcloud = {\n      source = \"dbcloud/dbcloud\"\n    }\n  }\n}\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "versions.tf"), []byte(versions), 0o644)
}

var (
	notCheapRe  = regexp.MustCompile(`(?m)^\s*(import|data|ephemeral|action|variable)\b|provisioner|action_trigger`)
	resourceRe  = regexp.MustCompile(`(?m)^resource\s+"dbcloud_`)
	protectedRe = regexp.MustCompile(`(?m)^\s*deletion_protection\s*=\s*true`)
)

// exercise runs a reference page's example against the emulator where that is
// cheap: `terraform query` for a list block; apply, an empty plan and destroy for
// a configuration of resources that names no existing object and needs no input.
func (r *pageRun) exercise(dir string) {
	rel, _ := filepath.Rel(r.work, dir)
	if q, _ := filepath.Glob(filepath.Join(dir, "*.tfquery.hcl")); len(q) > 0 {
		r.step(dir, fmt.Sprintf("%s: terraform query in %s", r.page.Path, rel), 0, "query", "-no-color")
		return
	}
	var all strings.Builder
	for _, p := range tfFiles(dir) {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	if notCheapRe.MatchString(all.String()) || !resourceRe.MatchString(all.String()) {
		return
	}
	what := fmt.Sprintf("%s: apply, empty plan, destroy in %s", r.page.Path, rel)
	if r.step(dir, what+" (apply)", 0, "apply", "-auto-approve", "-no-color") {
		r.step(dir, what+" (plan)", 0, "plan", "-detailed-exitcode", "-no-color")
	}
	// A protected service refuses destroy, as the example means it to.
	if !protectedRe.MatchString(all.String()) {
		r.step(dir, what+" (destroy)", 0, "destroy", "-auto-approve", "-no-color")
	}
}

func (r *pageRun) step(dir, what string, want int, args ...string) bool {
	out, code, err := r.exec(dir, r.env, nil, r.cli, args...)
	switch {
	case err != nil:
		r.fail(what, err.Error(), out)
	case code != want:
		r.fail(what, fmt.Sprintf("exit %d", code), out)
	default:
		r.ok(what)
		return true
	}
	return false
}
