// Command filedeps measures how the files of one Go package depend on each other: it type-checks the
// package's non-test files, maps every identifier used in a file to the file that declares it, and
// prints the largest set of files that depend on each other (strongly connected component), the
// file edges, and the longest functions.
//
//	go run ./scripts/filedeps [-edges] [-longest N] [-skip REGEXP] [-max-knot N] ./internal/provider
//
// With -max-knot N it exits 1 when the largest knot has more than N files (`make lint` runs it with
// 2 on internal/provider, 3 on the emulator's packages and 1, no knot, on internal/pagetest, so that a
// knot cannot grow back unseen).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	edges := flag.Bool("edges", false, "print every file dependency")
	longest := flag.Int("longest", 5, "how many of the longest functions to print")
	skip := flag.String("skip", "Schema$", "functions whose name matches are left out of the longest")
	maxKnot := flag.Int("max-knot", 0, "exit 1 when the largest knot has more files than this (0: no limit)")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	knot, err := run(dir, *edges, *longest, regexp.MustCompile(*skip))
	if err != nil {
		fmt.Fprintln(os.Stderr, "filedeps:", err)
		os.Exit(1)
	}
	if *maxKnot > 0 && knot > *maxKnot {
		fmt.Fprintf(os.Stderr, "filedeps: the largest knot of %s has %d files, more than %d: break the cycle (-edges shows "+
			"which file uses which) instead of letting the files grow into one another\n", dir, knot, *maxKnot)
		os.Exit(1)
	}
}

// run prints the package's knots (and with printEdges its file edges) and its longest functions, and
// answers the size of the largest knot.
func run(dir string, printEdges bool, longest int, skip *regexp.Regexp) (knot int, _ error) {
	fset := token.NewFileSet()
	files, pkg, info, err := check(fset, dir)
	if err != nil {
		return 0, err
	}
	graph := fileGraph(fset, files, pkg, info)
	comps := scc(graph)
	sort.Slice(comps, func(i, j int) bool { return len(comps[i]) > len(comps[j]) })
	fmt.Printf("files: %d\n", len(graph))
	fmt.Printf("largest knot of mutual dependencies: %d files\n", len(comps[0]))
	for _, comp := range comps {
		if len(comp) > 1 {
			fmt.Printf("  knot of %d: %s\n", len(comp), strings.Join(comp, " "))
		}
	}
	if printEdges {
		for _, from := range sortedKeys(graph) {
			fmt.Printf("%s -> %s\n", from, strings.Join(sortedKeys(graph[from]), " "))
		}
	}
	printLongest(fset, files, longest, skip)
	return len(comps[0]), nil
}

// check parses the non-test files of the package in dir and type-checks them against the compiled
// export data of its dependencies, recording the uses of identifiers.
func check(fset *token.FileSet, dir string) ([]*ast.File, *types.Package, *types.Info, error) {
	exports, err := exportData(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, nil, err
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, nil, nil, fmt.Errorf("no Go files (but tests) in %s", dir)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	return files, pkg, info, err
}

// fileGraph maps each file to the files that declare what it uses of its own package.
func fileGraph(fset *token.FileSet, files []*ast.File, pkg *types.Package, info *types.Info) map[string]map[string]bool {
	base := func(p token.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	graph := map[string]map[string]bool{}
	for _, f := range files {
		graph[base(f.Pos())] = map[string]bool{}
	}
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from, to := base(id.Pos()), base(obj.Pos())
		if from != to {
			graph[from][to] = true
		}
	}
	return graph
}

// printLongest prints the longest functions of files (in lines), but those whose name matches skip.
func printLongest(fset *token.FileSet, files []*ast.File, longest int, skip *regexp.Regexp) {
	type fn struct {
		name  string
		lines int
	}
	var fns []fn
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || skip.MatchString(fd.Name.Name) {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = types.ExprString(fd.Recv.List[0].Type) + "." + name
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			fns = append(fns, fn{fmt.Sprintf("%s (%s)", name, filepath.Base(start.Filename)), end.Line - start.Line + 1})
		}
	}
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].lines > fns[j].lines })
	fmt.Printf("longest functions (leaving out %q):\n", skip.String())
	for i := 0; i < longest && i < len(fns); i++ {
		fmt.Printf("  %4d %s\n", fns[i].lines, fns[i].name)
	}
}

// exportData returns the compiled export data of every dependency of the package in dir.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", "./"+filepath.Clean(dir))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), " "); ok && file != "" {
			m[path] = file
		}
	}
	return m, sc.Err()
}

// scc returns the strongly connected components of g (Tarjan).
func scc(g map[string]map[string]bool) [][]string {
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var comps [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range sortedKeys(g[v]) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			sort.Strings(comp)
			comps = append(comps, comp)
		}
	}
	for _, v := range sortedKeys(g) {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return comps
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
