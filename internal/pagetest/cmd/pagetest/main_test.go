package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/pagetest"
)

// Pages run at once are reported whole and in the order given, whatever order they end in.
func TestRunPagesKeepsPageOrder(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md", "e.md"} {
		paths = append(paths, filepath.Join(dir, name)) // missing: each run fails at once with its name
	}
	runs := runPages(pagetest.Config{}, paths, 3)
	for i, r := range runs {
		<-r.done
		out := r.out.String()
		if !strings.Contains(out, paths[i]) || strings.Count(out, "FAIL") != 1 {
			t.Errorf("run %d: output %q, want one failure naming %s", i, out, paths[i])
		}
		if r.res.Failed != 1 || r.parsed {
			t.Errorf("run %d: %+v, parsed %v; want one failure, not parsed", i, r.res, r.parsed)
		}
	}
}
