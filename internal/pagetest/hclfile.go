package pagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// writeFile puts a block into the working directory. A Terraform block (.tf) is
// merged into the directory's configuration the way a reader applies "change the
// resource to this": a top-level block with the same type and labels as one of the
// directory's *.tf files replaces it there; others are appended to the named file.
// Every other file (tests, queries, SQL, ...) is written as shown.
func writeFile(dir, name, text string) error {
	dest := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	if !strings.HasSuffix(name, ".tf") {
		return os.WriteFile(dest, []byte(text), 0o644)
	}
	src, diags := hclwrite.ParseConfig([]byte(text), name, hcl.InitialPos)
	if diags.HasErrors() {
		return fmt.Errorf("%s: the block is not a whole Terraform file (%s); show whole blocks, or mark it skip=\"why\"", name, diags.Error())
	}
	if len(src.Body().Attributes()) > 0 {
		return fmt.Errorf("%s: top-level attributes in a .tf block", name)
	}
	files := map[string]*hclwrite.File{}
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), "*.tf"))
	sort.Strings(paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, diags := hclwrite.ParseConfig(b, p, hcl.InitialPos)
		if diags.HasErrors() {
			return fmt.Errorf("%s: %s", p, diags.Error())
		}
		files[p] = f
	}
	if files[dest] == nil {
		files[dest] = hclwrite.NewEmptyFile()
	}
	changed := map[string]bool{dest: true}
	for _, nb := range src.Body().Blocks() {
		if partialRe.Match(nb.BuildTokens(nil).Bytes()) {
			p, err := mergePartial(files, append([]string{dest}, paths...), nb)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			changed[p] = true
			continue
		}
		replaced := false
		if replaceable(nb) {
			for _, p := range append([]string{dest}, paths...) {
				f := files[p]
				for _, ob := range f.Body().Blocks() {
					if blockKey(ob) == blockKey(nb) {
						f.Body().RemoveBlock(ob)
						f.Body().AppendBlock(nb)
						changed[p], replaced = true, true
						break
					}
				}
				if replaced {
					break
				}
			}
		}
		if !replaced {
			body := files[dest].Body()
			if len(body.Blocks()) > 0 {
				body.AppendNewline()
			}
			body.AppendBlock(nb)
		}
	}
	for p := range changed {
		if err := os.WriteFile(p, hclwrite.Format(files[p].Bytes()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// partialRe: a block with a "# ..." line shows only what changes in a block the
// page showed before.
var partialRe = regexp.MustCompile(`(?m)^\s*(#|//)\s*\.\.\.\s*$`)

// mergePartial applies a partial block to the block with its type and labels:
// its attributes are set, and its nested blocks replace those of the same type.
func mergePartial(files map[string]*hclwrite.File, paths []string, nb *hclwrite.Block) (string, error) {
	for _, p := range paths {
		for _, ob := range files[p].Body().Blocks() {
			if blockKey(ob) != blockKey(nb) {
				continue
			}
			mergeBody(ob.Body(), nb.Body())
			return p, nil
		}
	}
	return "", fmt.Errorf("%s %q: a block with \"# ...\" changes a block shown before, and the page shows none (show the whole block first)",
		nb.Type(), strings.Join(nb.Labels(), " "))
}

func mergeBody(dst, src *hclwrite.Body) {
	attrs := src.Attributes()
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		dst.SetAttributeRaw(n, attrs[n].Expr().BuildTokens(nil))
	}
	for _, nb := range src.Blocks() {
		for _, ob := range dst.Blocks() {
			if ob.Type() == nb.Type() && strings.Join(ob.Labels(), "\x00") == strings.Join(nb.Labels(), "\x00") {
				dst.RemoveBlock(ob)
			}
		}
		dst.AppendBlock(nb)
	}
}

// replaceable: blocks that Terraform allows once per address (the others, such as
// locals, import, moved, check without labels, are added).
func replaceable(b *hclwrite.Block) bool {
	switch b.Type() {
	case "terraform":
		return true
	case "import":
		return b.Body().GetAttribute("to") != nil
	case "locals", "moved", "removed":
		return false
	}
	return len(b.Labels()) > 0
}

func blockKey(b *hclwrite.Block) string {
	if b.Type() == "import" {
		// One import per target: a second one for the same `to` says "instead".
		if to := b.Body().GetAttribute("to"); to != nil {
			return "import\x00" + strings.TrimSpace(string(to.Expr().BuildTokens(nil).Bytes()))
		}
	}
	return b.Type() + "\x00" + strings.Join(b.Labels(), "\x00")
}

var (
	variableRe = regexp.MustCompile(`(?m)^\s*variable\s+"([^"]+)"`)
	fileFuncRe = regexp.MustCompile(`\b(?:file|templatefile|filebase64|filesha256|filesha1|filemd5|filesha512|filebase64sha256)\(\s*"([^"]+)"`)
)

// tfFiles lists the *.tf files of dir.
func tfFiles(dir string) []string {
	p, _ := filepath.Glob(filepath.Join(dir, "*.tf"))
	return p
}

// declaredVariables are the root module variables of the configuration in dir.
func declaredVariables(dir string) map[string]bool {
	out := map[string]bool{}
	for _, p := range tfFiles(dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, m := range variableRe.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// configDirs are the directories under root that hold *.tf files.
func configDirs(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".terraform" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() && len(tfFiles(p)) > 0 {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// missingFiles: the files that the configurations under root read with file(),
// templatefile(), ... and that do not exist (relative to the module's directory).
func missingFiles(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".terraform" {
			return filepath.SkipDir
		}
		if d.IsDir() || (!strings.HasSuffix(p, ".tf") && !strings.HasSuffix(p, ".hcl")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		moduleDir := filepath.Dir(p)
		if strings.HasSuffix(p, ".tftest.hcl") && filepath.Base(moduleDir) == "tests" {
			moduleDir = filepath.Dir(moduleDir)
		}
		for _, m := range fileFuncRe.FindAllStringSubmatch(string(b), -1) {
			name := m[1]
			name = strings.TrimPrefix(name, "${path.module}/")
			name = strings.TrimPrefix(name, "${path.root}/")
			if strings.Contains(name, "${") {
				continue // computed: checked when Terraform runs
			}
			if !filepath.IsAbs(name) {
				name = filepath.Join(moduleDir, name)
			}
			if _, err := os.Stat(name); err != nil {
				rel, _ := filepath.Rel(root, p)
				out = append(out, fmt.Sprintf("%s reads %q, which the page never shows", rel, m[1]))
			}
		}
		return nil
	})
	return out
}
