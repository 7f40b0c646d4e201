package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
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
