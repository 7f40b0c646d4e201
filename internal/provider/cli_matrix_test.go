package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The newer CLIs of `make test` run the tests that the cli-matrix block of scripts/cli-matrix.md names
// by prefix (scripts/testacc.sh): every prefix there must still name a test of this package, or a
// renamed test would silently stop running on the CLIs it is listed for.
func TestCLIMatrixListNamesTests(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "scripts", "cli-matrix.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)\n```cli-matrix\n(.*?)\n```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("scripts/cli-matrix.md has no cli-matrix block")
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			tests = append(tests, string(m[1]))
		}
	}
	for _, line := range strings.Split(string(block[1]), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		prefix, found := fields[0], false
		for _, name := range tests {
			found = found || strings.HasPrefix(name, prefix)
		}
		if !found {
			t.Errorf("scripts/cli-matrix.md lists %q, which names no test of this package", prefix)
		}
		if len(fields) == 1 {
			t.Errorf("scripts/cli-matrix.md lists %q without saying why", prefix)
		}
	}
}
