package pagetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const samplePage = "<!-- pagetest-page: cli=next -->\n" +
	"# Page\n\nSave this as `main.tf`:\n\n" +
	"```terraform\nresource \"dbcloud_vpc\" \"a\" {\n  name = \"a\"\n}\n```\n\n" +
	"<!-- pagetest: skip=\"your account\" -->\n\n```shell\nexport DBCLOUD_ACCESS_KEY=...\n```\n\n" +
	"1. In a list:\n\n   ```shell\n   terraform apply\n   ```\n\n" +
	"Create `schema.sql`:\n\n```sql\nCREATE TABLE t (id int);\n```\n\n" +
	"```text\nApply complete!\n```\n\n" +
	"<!-- pagetest: sub=\"8080=>${EMULATOR_ADDR}\" sub=\"a=>b\" exit=2 -->\n```shell\nset -e\n```\n"

func TestParseAndClassify(t *testing.T) {
	p, err := Parse("p.md", samplePage)
	if err != nil {
		t.Fatal(err)
	}
	if p.Options["cli"] != "next" {
		t.Errorf("page options %v", p.Options)
	}
	type want struct {
		kind Kind
		arg  string
	}
	wants := []want{{KindFile, "main.tf"}, {KindSkip, "your account"}, {KindShell, ""}, {KindFile, "schema.sql"}, {KindShown, ""}, {KindScript, ""}}
	if len(p.Blocks) != len(wants) {
		t.Fatalf("%d blocks, want %d: %+v", len(p.Blocks), len(wants), p.Blocks)
	}
	for i, w := range wants {
		k, arg, err := Classify(p.Blocks[i])
		if err != nil || k != w.kind || arg != w.arg {
			t.Errorf("block %d (line %d): %v %q %v, want %v %q", i, p.Blocks[i].Line, k, arg, err, w.kind, w.arg)
		}
	}
	if got := p.Blocks[2].Text; got != "terraform apply\n" {
		t.Errorf("list indentation kept: %q", got)
	}
	if got := p.Blocks[5].Marker["sub"]; got != "8080=>${EMULATOR_ADDR}\x00a=>b" {
		t.Errorf("sub %q", got)
	}
	if f, ok := p.File("schema.sql"); !ok || f.Text != "CREATE TABLE t (id int);\n" {
		t.Errorf("File(schema.sql) = %+v, %v", f, ok)
	}
	if _, ok := p.File("text"); ok {
		t.Error("File of a block only shown")
	}
}

// A block knows the section it is in (the text of the last heading before it); Under gives a
// section's blocks, and Prose the page's text without its blocks and their markers.
func TestSectionsAndProse(t *testing.T) {
	p, err := Parse("p.md", "---\ntitle: x\n---\n# Page\n\nIntro.\n\n```shell\nls\n```\n\n"+
		"## One ##\n\nFirst.\n<!-- pagetest: skip=\"why\" -->\n```terraform\n# not a heading\n```\n"+
		"Between.\n```shell\nls -l\n```\n\n### Two\n\n```text\nout\n```\nEnd.\n")
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, b := range p.Blocks {
		headings = append(headings, b.Heading)
	}
	if strings.Join(headings, "|") != "Page|One|One|Two" {
		t.Errorf("headings %q", headings)
	}
	if one := p.Under("One"); len(one) != 2 || one[0].Lang != "terraform" || one[1].Text != "ls -l\n" || len(p.Under("Three")) != 0 {
		t.Errorf("Under(One) = %+v", one)
	}
	want := "---\ntitle: x\n---\n# Page\n\nIntro.\n" + "\n\n" + "\n## One ##\n\nFirst." + "\n\n" + "Between." + "\n\n" + "\n### Two\n" + "\n\n" + "End."
	if got := p.Prose(); got != want || strings.Contains(got, "pagetest") || strings.Contains(got, "not a heading") {
		t.Errorf("Prose() = %q\nwant %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for name, src := range map[string]string{
		"marker not before a block": "<!-- pagetest: skip=\"x\" -->\ntext\n```shell\nls\n```\n",
		"unclosed fence":            "```shell\nls\n",
		"marker at the end":         "text\n<!-- pagetest: script -->\n",
		"bad marker":                "<!-- pagetest: =x -->\n```shell\nls\n```\n",
	} {
		if _, err := Parse("p.md", src); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	p, err := Parse("p.md", "<!-- pagetest: skip -->\n```shell\nls\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Classify(p.Blocks[0]); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("skip without a reason: %v", err)
	}
}

func TestScripts(t *testing.T) {
	for text, want := range map[string]bool{
		"#!/usr/bin/env bash\nterraform test\n":          true,
		"set -euo pipefail\nterraform test\n":            true,
		"server &\nterraform test\nkill %1\n":            true,
		"server & # in the background\nterraform test\n": true,
		"terraform init && terraform apply\n":            false,
		"terraform apply\n":                              false,
	} {
		k, _, _ := Classify(Block{Lang: "shell", Text: text})
		if (k == KindScript) != want {
			t.Errorf("%q: kind %v", text, k)
		}
	}
	k, _, _ := Classify(Block{Lang: "shell", Text: "terraform test\n", Prose: "Intro.\n\nIn a CI pipeline:"})
	if k != KindScript {
		t.Errorf("a CI snippet is not run as a script: %v", k)
	}
}

func TestInferHCLFile(t *testing.T) {
	for text, want := range map[string]string{
		"variable \"a\" {}\nvariable \"b\" {}\n":     "variables.tf",
		"output \"a\" {\n  value = 1\n}\n":           "outputs.tf",
		"run \"x\" {\n}\n":                           "tests/main.tftest.hcl",
		"list \"dbcloud_service\" \"all\" {\n}\n":    "main.tfquery.hcl",
		"resource \"x\" \"y\" {}\noutput \"a\" {}\n": "main.tf",
	} {
		if got := inferHCLFile(Block{Text: text}); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
	if got := inferHCLFile(Block{Prose: "Intro.\n\nIts tests, in `tests/db.tftest.hcl`, apply it:", Text: "run \"a\" {}\n"}); got != "tests/db.tftest.hcl" {
		t.Errorf("prose: %s", got)
	}
}

func TestWriteFileMerges(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeFile(dir, "main.tf", "resource \"dbcloud_service\" \"db\" {\n  name = \"a\"\n}\n\nlocals {\n  x = 1\n}\n"))
	must(writeFile(dir, "variables.tf", "variable \"v\" {}\n"))
	// "Change the resource to this": replaced where it is, whatever file the block names.
	must(writeFile(dir, "other.tf", "resource \"dbcloud_service\" \"db\" {\n  name = \"b\"\n}\n\nlocals {\n  y = 2\n}\n"))
	main, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	other, _ := os.ReadFile(filepath.Join(dir, "other.tf"))
	if strings.Contains(string(main), `"a"`) || !strings.Contains(string(main), `"b"`) || strings.Count(string(main)+string(other), "dbcloud_service") != 1 {
		t.Errorf("not replaced in place:\nmain.tf:\n%s\nother.tf:\n%s", main, other)
	}
	if !strings.Contains(string(other), "y = 2") {
		t.Errorf("locals not added to other.tf:\n%s", other)
	}
	// An import block for the same target replaces the first ("instead"); another target is added.
	must(writeFile(dir, "imports.tf", "import {\n  to = dbcloud_service.db\n  id = \"a\"\n}\n"))
	must(writeFile(dir, "imports.tf", "import {\n  to = dbcloud_service.db\n  identity = {\n    id = \"a\"\n  }\n}\n\nimport {\n  to = dbcloud_vpc.v\n  id = \"1\"\n}\n"))
	imports, _ := os.ReadFile(filepath.Join(dir, "imports.tf"))
	if strings.Count(string(imports), "import {") != 2 || strings.Contains(string(imports), `id = "a"`+"\n}") {
		t.Errorf("imports.tf:\n%s", imports)
	}
	// "# ..." shows only what changes: merged into the block shown before.
	must(writeFile(dir, "main.tf", "resource \"dbcloud_service\" \"db\" {\n  # ...\n  cpu_millis = 4000\n  timeouts {\n    update = \"1h\"\n  }\n}\n"))
	main, _ = os.ReadFile(filepath.Join(dir, "main.tf"))
	if !strings.Contains(string(main), `"b"`) || !strings.Contains(string(main), "cpu_millis = 4000") || !strings.Contains(string(main), "update = \"1h\"") {
		t.Errorf("partial block not merged:\n%s", main)
	}
	if err := writeFile(dir, "main.tf", "resource \"dbcloud_vpc\" \"none\" {\n  # ...\n  name = \"x\"\n}\n"); err == nil {
		t.Error("a partial block of a block never shown was accepted")
	}
	if err := writeFile(dir, "main.tf", "  ha_replicas = 1\n}\n"); err == nil {
		t.Error("a fragment was accepted")
	}
	if got := declaredVariables(dir); !got["v"] || len(got) != 1 {
		t.Errorf("declared %v", got)
	}
	must(os.WriteFile(filepath.Join(dir, "data.tf"), []byte("output \"s\" {\n  value = file(\"${path.module}/schema.sql\")\n}\n"), 0o644))
	if m := missingFiles(dir); len(m) != 1 || !strings.Contains(m[0], "schema.sql") {
		t.Errorf("missing files %v", m)
	}
	must(os.WriteFile(filepath.Join(dir, "schema.sql"), nil, 0o644))
	if m := missingFiles(dir); len(m) != 0 {
		t.Errorf("missing files %v", m)
	}
}

// testNameRe finds a Go test's name in a skip= reason.
var testNameRe = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9_]*`)

// A block the page runner leaves to a Go test (what a page cannot say: README.md, "Where a page's tests
// go") names that test in its skip= reason; each test a reason of a page of docs/ names exists.
func TestSkipReasonsNameTests(t *testing.T) {
	tests := map[string]bool{}
	err := filepath.WalkDir("../../internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`).FindAllStringSubmatch(string(b), -1) {
			tests[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	err = filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		page, err := ParseFile(path)
		if err != nil {
			return err
		}
		for _, b := range page.Blocks {
			for _, name := range testNameRe.FindAllString(b.Marker["skip"], -1) {
				named++
				if !tests[name] && !hasTestPrefix(tests, name) {
					t.Errorf("%s:%d: skip= names %s, which is no test of internal/", path, b.Line, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if named == 0 {
		t.Fatal("no skip= reason of docs/ names a test: the walk read nothing")
	}
}

// hasTestPrefix: name is a prefix of a test's name followed by "_" (a reason may name a family of
// tests, TestAccMigrating_).
func hasTestPrefix(tests map[string]bool, name string) bool {
	for n := range tests {
		if strings.HasPrefix(n, strings.TrimSuffix(name, "_")+"_") {
			return true
		}
	}
	return false
}
