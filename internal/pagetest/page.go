// Package pagetest runs the fenced code blocks of a documentation page the way a
// reader copies them: Terraform blocks become the files of a working directory,
// shell blocks run with bash in that directory, one after the other, against the
// API emulator and the provider built from this repository (dev_overrides, as the
// README's private CLI configuration sets up). See README.md in this directory for
// how a page opts in and declares page-specific steps.
package pagetest

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"strings"
)

// Block is one fenced code block of a page.
type Block struct {
	Line   int               // 1-based line of the opening fence
	Lang   string            // the info string's first word ("terraform", "shell", ...; "" when none)
	Text   string            // the content, without the fences and the list indentation
	Marker map[string]string // the <!-- pagetest: ... --> comment right before the block (nil when none)
	Prose  string            // the page text between the previous block (or the top) and this one
	// Heading is the text of the last heading before the block ("With the PostgreSQL provider" for
	// "### With the PostgreSQL provider"; "" before the first): the section a test looks the block up by.
	Heading string
}

// Page is a parsed page: its blocks in order and its page-wide options
// (<!-- pagetest-page: ... --> comments anywhere in the page).
type Page struct {
	Path    string
	Blocks  []Block
	Options map[string]string
	Rest    string // the page text after the last block (the whole page when it has none)
}

// Under is the page's blocks in the section whose heading's text is heading (Block.Heading), in page
// order: how a Go test takes the blocks of a section it runs itself.
func (p *Page) Under(heading string) []Block {
	var out []Block
	for _, b := range p.Blocks {
		if b.Heading == heading {
			out = append(out, b)
		}
	}
	return out
}

// File is the last block the runner writes to the file name (Classify's file, in whatever directory),
// and whether there is one: how a Go test takes a file the page shows.
func (p *Page) File(name string) (Block, bool) {
	var found Block
	ok := false
	for _, b := range p.Blocks {
		if k, f, err := Classify(b); err == nil && k == KindFile && f == name {
			found, ok = b, true
		}
	}
	return found, ok
}

// Prose is the page's text outside its fenced blocks (and their pagetest markers): each block's Prose
// and the Rest, a blank line where each block was.
func (p *Page) Prose() string {
	var b strings.Builder
	for _, bl := range p.Blocks {
		b.WriteString(bl.Prose + "\n\n")
	}
	return b.String() + p.Rest
}

var (
	fenceRe      = regexp.MustCompile("^( *)(```+|~~~+)\\s*([^`\\s]*)")
	blockMarkRe  = regexp.MustCompile(`^\s*<!--\s*pagetest:(.*?)-->\s*$`)
	pageMarkRe   = regexp.MustCompile(`<!--\s*pagetest-page:(.*?)-->`)
	headingRe    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	markerWordRe = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_-]*)(?:=("(?:[^"\\]|\\.)*"|\S+))?`)
)

// ParseFile reads and parses a page.
func ParseFile(name string) (*Page, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(name, string(b))
}

// Parse parses a page's markdown.
func Parse(name, src string) (*Page, error) {
	opts, err := pageOptions(src)
	if err != nil {
		return nil, fmt.Errorf("%s: pagetest-page marker: %w", name, err)
	}
	p := &Page{Path: name, Options: opts}
	sc := bufio.NewScanner(strings.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var (
		lineNo  int
		in      bool
		cur     Block
		fence   string
		indent  int
		body    []string
		prose   []string
		pending map[string]string
		heading string
	)
	for sc.Scan() {
		line := sc.Text()
		lineNo++
		if in {
			trimmed := strings.TrimLeft(line, " ")
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				cur.Text = strings.Join(body, "\n")
				if len(body) > 0 {
					cur.Text += "\n"
				}
				p.Blocks = append(p.Blocks, cur)
				in, body, prose = false, nil, nil
				continue
			}
			// Drop the list indentation of the opening fence.
			n := 0
			for n < indent && n < len(line) && line[n] == ' ' {
				n++
			}
			body = append(body, line[n:])
			continue
		}
		if m := fenceRe.FindStringSubmatch(line); m != nil {
			in, fence, indent = true, m[2], len(m[1])
			cur = Block{Line: lineNo, Lang: strings.ToLower(m[3]), Marker: pending, Prose: strings.Join(prose, "\n"), Heading: heading}
			pending = nil
			continue
		}
		if m := blockMarkRe.FindStringSubmatch(line); m != nil {
			opts, err := parseMarker(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: pagetest marker: %w", name, lineNo, err)
			}
			pending = opts
			continue
		}
		if pending != nil && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("%s:%d: a pagetest marker must come right before a fenced block (blank lines allowed)", name, lineNo)
		}
		if m := headingRe.FindStringSubmatch(line); m != nil {
			heading = m[1]
		}
		prose = append(prose, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if in {
		return nil, fmt.Errorf("%s:%d: fenced block never closed", name, cur.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s: a pagetest marker at the end of the page has no block", name)
	}
	p.Rest = strings.Join(prose, "\n")
	return p, nil
}

// pageOptions are the page-wide options of its <!-- pagetest-page: ... --> comments.
func pageOptions(src string) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range pageMarkRe.FindAllStringSubmatch(src, -1) {
		opts, err := parseMarker(m[1])
		if err != nil {
			return nil, err
		}
		maps.Copy(out, opts)
	}
	return out, nil
}

// parseMarker parses `key=value key="quoted value" flag` into a map (a flag maps to "").
func parseMarker(s string) (map[string]string, error) {
	out := map[string]string{}
	rest := strings.TrimSpace(s)
	for rest != "" {
		loc := markerWordRe.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] != 0 {
			return nil, fmt.Errorf("cannot read %q", rest)
		}
		key := rest[loc[2]:loc[3]]
		val := ""
		if loc[4] >= 0 {
			val = rest[loc[4]:loc[5]]
			if strings.HasPrefix(val, `"`) {
				val = strings.ReplaceAll(strings.ReplaceAll(val[1:len(val)-1], `\"`, `"`), `\\`, `\`)
			}
		}
		if _, dup := out[key]; dup && key != "sub" {
			return nil, fmt.Errorf("%s given twice", key)
		}
		if key == "sub" && out[key] != "" {
			val = out[key] + "\x00" + val
		}
		out[key] = val
		rest = strings.TrimSpace(rest[loc[1]:])
	}
	return out, nil
}

// Kind says what the runner does with a block.
type Kind int

const (
	KindShown  Kind = iota // displayed only (output, a file the page does not ask to save)
	KindFile               // written into the working directory
	KindShell              // run with bash
	KindSkip               // skipped, with a reason given on the page
	KindScript             // a script run by something else (CI): run, and run again with terraform failing
)

var (
	hclLangs   = map[string]bool{"terraform": true, "hcl": true, "tf": true}
	shellLangs = map[string]bool{"shell": true, "sh": true, "bash": true, "console": false}
	fileRe     = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.(?:tf|tftest\\.hcl|tfquery\\.hcl|hcl|tfvars|sql|ya?ml|json|sh))`")
)

// Classify returns what the runner does with a block, and for KindFile the file it
// writes (relative to the page's working directory) and for KindSkip the reason.
func Classify(b Block) (Kind, string, error) {
	if b.Marker != nil {
		if r, ok := b.Marker["skip"]; ok {
			if strings.TrimSpace(r) == "" {
				return 0, "", fmt.Errorf("line %d: skip needs a reason (skip=\"...\")", b.Line)
			}
			return KindSkip, r, nil
		}
		if f, ok := b.Marker["file"]; ok {
			if f == "" || path.IsAbs(f) || strings.HasPrefix(path.Clean(f), "..") {
				return 0, "", fmt.Errorf("line %d: file=%q must be a relative path inside the working directory", b.Line, f)
			}
			return KindFile, path.Clean(f), nil
		}
	}
	switch {
	case hclLangs[b.Lang]:
		return KindFile, inferHCLFile(b), nil
	case shellLangs[b.Lang]:
		if b.Marker != nil {
			if _, ok := b.Marker["script"]; ok {
				return KindScript, "", nil
			}
		}
		if isScript(b.Text) || ciProseRe.MatchString(lastParagraph(b.Prose)) {
			return KindScript, "", nil
		}
		return KindShell, "", nil
	}
	// sql, yaml, json...: written when the prose right before names one such file.
	if f := proseFile(b.Prose, extsFor(b.Lang)); f != "" {
		return KindFile, f, nil
	}
	return KindShown, "", nil
}

func extsFor(lang string) []string {
	switch lang {
	case "sql":
		return []string{".sql"}
	case "yaml", "yml":
		return []string{".yml", ".yaml"}
	case "json":
		return []string{".json"}
	}
	return nil
}

var (
	setERe       = regexp.MustCompile(`(?m)^\s*set\s+-[a-zA-Z]*e`)
	backgroundRe = regexp.MustCompile(`(?m)[^&]&\s*(#.*)?$`)
	// ciProseRe: the paragraph before the block says a pipeline runs it.
	ciProseRe = regexp.MustCompile(`\bCI\b|\b[Pp]ipelines?\b|\b[Ss]cripts?\b`)
)

// isScript: a shell block written as a script (a shebang or `set -e`), or one that
// starts a background job (a server for the commands after it), is run as a script.
func isScript(text string) bool {
	return strings.HasPrefix(text, "#!") || setERe.MatchString(text) || backgroundRe.MatchString(text)
}

// lastParagraph is the prose's last non-empty paragraph.
func lastParagraph(prose string) string {
	paras := strings.Split(strings.TrimSpace(prose), "\n\n")
	return paras[len(paras)-1]
}

// proseFile: the one file with one of exts that the paragraph before the block names.
func proseFile(prose string, exts []string) string {
	if len(exts) == 0 {
		return ""
	}
	found := ""
	for _, m := range fileRe.FindAllStringSubmatch(lastParagraph(prose), -1) {
		for _, e := range exts {
			if strings.HasSuffix(m[1], e) {
				if found != "" && found != m[1] {
					return "" // ambiguous
				}
				found = m[1]
			}
		}
	}
	return found
}

var topBlockRe = regexp.MustCompile(`(?m)^([a-z_]+)\b[^=\n]*\{`)

// inferHCLFile: the file the prose right before names (main.tf, tests/x.tftest.hcl,
// ...), else from the content: only variable blocks: variables.tf; only outputs:
// outputs.tf; run blocks: tests/main.tftest.hcl; a query file: main.tfquery.hcl;
// else main.tf.
func inferHCLFile(b Block) string {
	if f := proseFile(b.Prose, []string{".tf", ".tftest.hcl", ".tfquery.hcl", ".tfvars", ".hcl"}); f != "" {
		return f
	}
	kinds := map[string]bool{}
	for _, m := range topBlockRe.FindAllStringSubmatch(b.Text, -1) {
		kinds[m[1]] = true
	}
	switch {
	case kinds["run"]:
		return "tests/main.tftest.hcl"
	case kinds["list"]:
		return "main.tfquery.hcl"
	case len(kinds) == 1 && kinds["variable"]:
		return "variables.tf"
	case len(kinds) == 1 && kinds["output"]:
		return "outputs.tf"
	}
	return "main.tf"
}
