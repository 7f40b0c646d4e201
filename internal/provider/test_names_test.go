package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// accMarkers are the calls that make a test an acceptance test: it needs TF_ACC=1.
var accMarkers = map[string]bool{
	"testAccPreCheck": true, "skipUnlessAcc": true, "newTFWorkdir": true, "newTerraform": true,
	"newTerraformServing": true, "newTF": true,
	"resource.Test": true, "resource.ParallelTest": true,
}

// The one naming of the package's tests (README, "Tests: names and files"): a test that sets up an
// acceptance test (directly or through the package's helpers) is TestAcc...; no other test is, and no
// test is named TestUnit....
func TestTestNames(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcs := map[string]*ast.FuncDecl{}
	var tests []string
	where := map[string]string{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				funcs[fd.Name.Name], where[fd.Name.Name] = fd, name
				if strings.HasPrefix(fd.Name.Name, "Test") && fd.Name.Name != "TestMain" {
					tests = append(tests, fd.Name.Name)
				}
			}
		}
	}
	acc := accCallers(funcs)
	for _, name := range tests {
		named := strings.HasPrefix(name, "TestAcc")
		switch {
		case strings.HasPrefix(name, "TestUnit"):
			t.Errorf("%s (%s): a unit test is Test<Subject>..., without Unit", name, where[name])
		case acc[name] && !named:
			t.Errorf("%s (%s) sets up an acceptance test: name it TestAcc<Subject>_<case>", name, where[name])
		case named && !acc[name]:
			t.Errorf("%s (%s) is named as an acceptance test but sets none up (no TF_ACC check)", name, where[name])
		}
	}
}

// accCallers returns the functions of funcs that call an acceptance marker, directly or through other
// functions of funcs.
func accCallers(funcs map[string]*ast.FuncDecl) map[string]bool {
	calls := map[string][]string{}
	acc := map[string]bool{}
	for name, fd := range funcs {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch f := c.Fun.(type) {
			case *ast.Ident:
				acc[name] = acc[name] || accMarkers[f.Name]
				calls[name] = append(calls[name], f.Name)
			case *ast.SelectorExpr:
				if x, ok := f.X.(*ast.Ident); ok {
					acc[name] = acc[name] || accMarkers[x.Name+"."+f.Sel.Name]
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for name, callees := range calls {
			for _, c := range callees {
				if acc[c] && !acc[name] {
					acc[name], changed = true, true
				}
			}
		}
	}
	return acc
}

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
