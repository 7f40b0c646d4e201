package pagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Shell blocks and scripts: the checks before them, their runs and what they leave behind.

var (
	tfVarEnvRe = regexp.MustCompile(`\bTF_VAR_([A-Za-z_][A-Za-z0-9_-]*)`)
	tfVarArgRe = regexp.MustCompile(`(?:^|\s)-var(?:=|\s+)['"]?([A-Za-z_][A-Za-z0-9_-]*)=`)
	usesTFRe   = regexp.MustCompile(`(?m)(^|[\s;&|(])terraform\s`)
	tofuRe     = regexp.MustCompile(`(?m)(^|[\s;&|(])tofu\s`)
)

// undeclared: the variables a shell block sets for Terraform (TF_VAR_x, -var x=...)
// that the configuration in dir does not declare. Terraform ignores an undeclared
// TF_VAR_x without a word: the run then uses the default, and the reader believes
// the value was set.
func (r *pageRun) undeclared(dir, text string) []string {
	declared := declaredVariables(dir)
	if len(tfFiles(dir)) == 0 {
		for _, d := range configDirs(r.work) {
			for k := range declaredVariables(d) {
				declared[k] = true
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, re := range []*regexp.Regexp{tfVarEnvRe, tfVarArgRe} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !declared[m[1]] && !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	}
	sort.Strings(out)
	return out
}

// shell runs a shell block as a reader pastes it into a terminal (its exported
// variables and working directory carry over to the next block), or a script as
// its caller runs it (and then again with every terraform command failing: the
// script must fail too, and leave no process behind).
func (r *pageRun) shell(i int, what string, b Block, text string, script bool) {
	cwd := r.cwd()
	if usesTFRe.MatchString(text) {
		if u := r.undeclared(cwd, text); len(u) > 0 {
			r.fail(what, fmt.Sprintf("sets undeclared variable(s) %s: the configuration does not declare them (Terraform ignores TF_VAR_ of an undeclared variable)", strings.Join(u, ", ")), "")
			return
		}
		if m := missingFiles(r.work); len(m) > 0 {
			r.fail(what, strings.Join(m, "; "), "")
			return
		}
	}
	want := 0
	if b.Marker != nil && b.Marker["exit"] != "" {
		n, err := strconv.Atoi(b.Marker["exit"])
		if err != nil {
			r.fail(what, "exit= must be a number", "")
			return
		}
		want = n
	}
	_, background := b.Marker["background"]
	blockFile := filepath.Join(r.state, fmt.Sprintf("block-%d.sh", i))
	if err := os.WriteFile(blockFile, []byte(text), 0o644); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	errs := filepath.Join(r.state, "errors")
	_ = os.Remove(errs)
	var wrapper string
	if script {
		wrapper = fmt.Sprintf("source %[1]q/env\ncd %[2]q || exit 97\nexec bash %[3]q\n", r.state, cwd, blockFile)
	} else {
		wrapper = fmt.Sprintf(`source %[1]q/env
cd %[2]q || exit 97
trap 'printf "exit %%s of: %%s\n" "$?" "$BASH_COMMAND" >>%[3]q' ERR
trap 'export -p >%[1]q/env.next; pwd >%[1]q/cwd.next' EXIT
source %[4]q
`, r.state, cwd, errs, blockFile)
	}
	if background {
		r.background(what, b, wrapper)
		return
	}
	out, code, err := r.execShell(r.env, wrapper)
	if err != nil {
		r.fail(what, err.Error(), out)
		return
	}
	if !script {
		for _, f := range []string{"env", "cwd"} {
			_ = os.Rename(filepath.Join(r.state, f+".next"), filepath.Join(r.state, f))
		}
	}
	if left := leftover(out); left != "" {
		r.fail(what, left, out)
		return
	}
	if e := failedCommands(errs, blockFile); want == 0 && e != "" {
		r.fail(what, "a command failed: "+e, out)
		return
	}
	if code != want {
		r.fail(what, fmt.Sprintf("exit %d (the page expects %d)", code, want), out)
		return
	}
	if r.cfg.Verbose {
		r.printf("%s", indent(tail(out, 20)))
	}
	if !script {
		r.ok(what)
		return
	}
	// The fault run: terraform fails; the script's caller must see it. (After the
	// carried-over environment, whose PATH is the reader's.)
	faulty := fmt.Sprintf("source %[1]q/env\nexport PATH=%[4]q:\"$PATH\"\ncd %[2]q || exit 97\nexec bash %[3]q\n", r.state, cwd, blockFile, r.failBin)
	fout, fcode, err := r.execShell(r.env, faulty)
	switch {
	case err != nil:
		r.fail(what+" (terraform failing)", err.Error(), fout)
	case leftover(fout) != "":
		r.fail(what+" (terraform failing)", leftover(fout), fout)
	case fcode == 0 && usesTFRe.MatchString(text):
		r.fail(what+" (terraform failing)", "the script exits 0 although terraform failed: its caller (CI) would pass", fout)
	default:
		r.ok(what + " (and fails when terraform fails)")
	}
}

// failedCommands: what the ERR trap recorded, but for the block's own `source`.
func failedCommands(errs, blockFile string) string {
	b, _ := os.ReadFile(errs)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" && !strings.Contains(l, blockFile) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

const leftoverMark = "pagetest: left running: "

func leftover(out string) string {
	if i := strings.Index(out, leftoverMark); i >= 0 {
		return "the block " + strings.TrimSpace(out[i+len("pagetest: "):])
	}
	return ""
}
