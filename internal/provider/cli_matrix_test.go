package provider

import (
	"os"
	"os/exec"
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

// make test's ten slowest (scripts/slowest.awk): a test whose subtests run in parallel counts its
// slowest subtest, not the time its subtests waited for a free slot; any other test its own time; a
// failed one says so.
func TestSlowestCountsWhatATestTook(t *testing.T) {
	log := `=== RUN   TestSerial
--- PASS: TestSerial (12.50s)
    --- PASS: TestSerial/step (4.00s)
=== RUN   TestFanOut
=== RUN   TestFanOut/cases
=== RUN   TestFanOut/cases/a
=== PAUSE TestFanOut/cases/a
=== RUN   TestFanOut/cases/b
=== PAUSE TestFanOut/cases/b
--- FAIL: TestFanOut (150.00s)
    --- FAIL: TestFanOut/cases (0.00s)
        --- PASS: TestFanOut/cases/a (20.00s)
        --- FAIL: TestFanOut/cases/b (18.00s)
--- PASS: TestQuick (0.01s)
`
	file := filepath.Join(t.TempDir(), "go-test.log")
	if err := os.WriteFile(file, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("awk", "-v", "cli=Terraform v1", "-f", filepath.Join("..", "..", "scripts", "slowest.awk"), file).CombinedOutput()
	if err != nil {
		t.Fatalf("awk: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[2]+" "+f[3] != "Terraform v1" {
			t.Fatalf("line %q: want seconds, test, CLI", line)
		}
		got[f[1]] = strings.Join(append([]string{f[0]}, f[4:]...), " ")
	}
	want := map[string]string{"TestSerial": "12.5s", "TestFanOut": "20.0s (failed)", "TestQuick": "0.0s"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q (all: %v)", name, got[name], w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d tests, want %d: %v", len(got), len(want), got)
	}
}
