package provider

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// maxTestFileLines is the most lines a test file of the package may have (README, "Tests: names and
// files"): a longer one is split by behaviour into the files of what its tests check.
const maxTestFileLines = 800

// fwResourcePath is the framework's resource package, which test files import as fwresource:
// resource is terraform-plugin-testing's helper/resource in every test file, so that a source's unit
// tests and acceptance tests share its x_test.go.
const fwResourcePath = "github.com/hashicorp/terraform-plugin-framework/resource"

// testFile is what the check of the test files knows of one.
type testFile struct {
	name  string
	lines int
	// fwResource is the name the file imports fwResourcePath under ("" when it does not import it).
	fwResource string
}

// The one placing of the package's tests (README, "Tests: names and files"): each test file is named
// for a source file of the package (x_test.go beside x.go), or is a file that the README's table of
// suites, shared helpers and pending files lists; no test file is longer than maxTestFileLines; and
// the framework's resource package is fwresource.
func TestTestFiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := listedTestFiles(string(readme))
	if err != nil {
		t.Fatal(err)
	}
	goFiles, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	var tests []testFile
	fset := token.NewFileSet()
	for _, name := range goFiles {
		if !strings.HasSuffix(name, "_test.go") {
			sources = append(sources, name)
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		tf := testFile{name: name, lines: strings.Count(string(src), "\n")}
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == fwResourcePath {
				tf.fwResource = "resource"
				if imp.Name != nil {
					tf.fwResource = imp.Name.Name
				}
			}
		}
		tests = append(tests, tf)
	}
	if len(tests) == 0 || len(sources) == 0 {
		t.Fatalf("%d test files and %d source files: run in the package's directory", len(tests), len(sources))
	}
	for _, p := range testFileProblems(sources, tests, listed) {
		t.Error(p)
	}
}

// listedTestFiles are the test files that the README's section "Tests: names and files" lists in a
// table, each as the first cell of a row: the suites, shared helpers and pending files that are not
// named for a source file.
func listedTestFiles(readme string) ([]string, error) {
	const heading = "\n## Tests: names and files\n"
	start := strings.Index(readme, heading)
	if start < 0 {
		return nil, fmt.Errorf("README.md has no section %q", strings.TrimSpace(heading))
	}
	section := readme[start+len(heading):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_]+_test\\.go)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	if len(listed) == 0 {
		return nil, fmt.Errorf("the README's section %q lists no test file in a table", strings.TrimSpace(heading))
	}
	return listed, nil
}

// testFileProblems says what breaks the placing of the tests, for the package's source files, its
// test files and the test files the README lists (listedTestFiles): a test file with neither a source
// file of its name nor a row in the README, a row whose file is gone or that a source file of its
// name makes needless, a test file over maxTestFileLines, and the framework's resource package
// under another name than fwresource.
func testFileProblems(sources []string, tests []testFile, listed []string) []string {
	const where = `the README's table in "Tests: names and files"`
	isSource := map[string]bool{}
	for _, s := range sources {
		isSource[s] = true
	}
	isListed := map[string]bool{}
	for _, l := range listed {
		isListed[l] = true
	}
	isTest := map[string]bool{}
	var problems []string
	for _, f := range tests {
		isTest[f.name] = true
		source := strings.TrimSuffix(f.name, "_test.go") + ".go"
		switch {
		case !isSource[source] && !isListed[f.name]:
			problems = append(problems, fmt.Sprintf("%s: there is no %s, and %s does not list it: move each of its tests into the x_test.go "+
				"beside the x.go that holds what the test checks, or, for a suite that crosses resources, list it with what it crosses", f.name, source, where))
		case isSource[source] && isListed[f.name]:
			problems = append(problems, fmt.Sprintf("%s: %s lists it, but it is beside %s: take it off the table", f.name, where, source))
		}
		if f.lines > maxTestFileLines {
			problems = append(problems, fmt.Sprintf("%s: %d lines, more than %d: split it by behaviour into the files of what its tests check",
				f.name, f.lines, maxTestFileLines))
		}
		if f.fwResource != "" && f.fwResource != "fwresource" {
			problems = append(problems, fmt.Sprintf("%s: imports %s as %s: import it as fwresource (resource is terraform-plugin-testing's "+
				"helper/resource in every test file)", f.name, fwResourcePath, f.fwResource))
		}
	}
	for _, l := range listed {
		if !isTest[l] {
			problems = append(problems, fmt.Sprintf("%s: %s lists it, but the package has no such test file: take it off the table", l, where))
		}
	}
	return problems
}

// The check of the test files fails naming each file that breaks the placing, and passes a package
// that keeps it.
func TestTestFileProblems(t *testing.T) {
	sources := []string{"vpc_resource.go", "values.go", "base.go"}
	listed := []string{"outage_test.go", "helpers_test.go"}
	good := []testFile{
		{name: "vpc_resource_test.go", lines: 300}, {name: "values_test.go", lines: maxTestFileLines},
		{name: "base_test.go", lines: 100, fwResource: "fwresource"}, {name: "outage_test.go", lines: 600}, {name: "helpers_test.go", lines: 500},
	}
	if p := testFileProblems(sources, good, listed); len(p) != 0 {
		t.Errorf("a package that keeps the rule: %q", p)
	}
	for _, c := range []struct {
		name   string
		tests  []testFile
		listed []string
		want   string // the file the one problem names, and what it says
	}{
		{"a misplaced file", append(slices.Clone(good), testFile{name: "vpc_peering_test.go", lines: 90}), listed,
			"vpc_peering_test.go: there is no vpc_peering.go, and the README's table"},
		{"a _unit_test.go file", append(slices.Clone(good), testFile{name: "vpc_resource_unit_test.go", lines: 90}), listed,
			"vpc_resource_unit_test.go: there is no vpc_resource_unit.go"},
		{"a listed suite that is gone", good, append(slices.Clone(listed), "flaky_test.go"),
			"flaky_test.go: the README's table in \"Tests: names and files\" lists it, but the package has no such test file"},
		{"a listed file beside its source", good, append(slices.Clone(listed), "values_test.go"),
			"values_test.go: the README's table in \"Tests: names and files\" lists it, but it is beside values.go"},
		{"a file over the limit", append(slices.Clone(good[1:]), testFile{name: "vpc_resource_test.go", lines: maxTestFileLines + 1}), listed,
			fmt.Sprintf("vpc_resource_test.go: %d lines, more than %d", maxTestFileLines+1, maxTestFileLines)},
		{"the framework's resource as resource", append(slices.Clone(good[:2]), testFile{name: "base_test.go", lines: 100, fwResource: "resource"}, good[3], good[4]), listed,
			"base_test.go: imports " + fwResourcePath + " as resource"},
	} {
		p := testFileProblems(sources, c.tests, c.listed)
		if len(p) != 1 || !strings.HasPrefix(p[0], c.want) {
			t.Errorf("%s: problems %q, want one that starts %q", c.name, p, c.want)
		}
	}
}

// The README's table is read from its section only: a row elsewhere lists nothing, and a section
// without a table is an error rather than an empty list.
func TestListedTestFiles(t *testing.T) {
	readme := "# x\n\n| `stray_test.go` | elsewhere |\n\n## Tests: names and files\n\nText.\n\n| file | what |\n|---|---|\n" +
		"| `outage_test.go` | outages |\n| `helpers_test.go` | helpers |\n\n## Adding a resource\n\n| `later_test.go` | no |\n"
	got, err := listedTestFiles(readme)
	if err != nil || !slices.Equal(got, []string{"outage_test.go", "helpers_test.go"}) {
		t.Errorf("listedTestFiles = %q, %v; want outage_test.go and helpers_test.go", got, err)
	}
	if _, err := listedTestFiles("# x\n\n## Tests: names and files\n\nNo table.\n"); err == nil {
		t.Error("a section without a table: no error")
	}
	if _, err := listedTestFiles("# x\n"); err == nil {
		t.Error("no section: no error")
	}
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
