package pagetest

import (
	"errors"
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

// shellRun is one shell block's run: where and how it runs, and what it must answer.
type shellRun struct {
	what      string
	text      string
	cwd       string
	blockFile string // the block, as a file
	errs      string // what the ERR trap recorded (a pasted block)
	wrapper   string // bash -c of the run
	script    bool
	want      int // the exit status the page expects (exit=)
	repeat    int // a script: how many runs in a row in the same directory (repeat=)
}

// shell runs a shell block as a reader pastes it into a terminal (its exported
// variables and working directory carry over to the next block), or a script as
// its caller runs it (repeat= times in a row, and then again with every terraform command failing:
// the script must fail too, and leave no process behind).
func (r *pageRun) shell(i int, what string, b Block, text string, script bool) {
	s := &shellRun{what: what, text: text, cwd: r.cwd(), script: script, repeat: 1}
	if why := r.preflight(s.cwd, text); why != "" {
		r.fail(what, why, "")
		return
	}
	if err := s.markers(b); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	if err := r.prepare(s, i); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	if _, background := b.Marker["background"]; background {
		r.background(what, b, s.wrapper)
		return
	}
	for n := 1; n <= s.repeat; n++ {
		label := what
		if s.repeat > 1 {
			label = fmt.Sprintf("%s (run %d of %d, in the same directory)", what, n, s.repeat)
		}
		if !r.runShell(s, label) {
			return
		}
	}
	if script {
		r.faultRun(s)
	}
}

// preflight: why a block that runs terraform cannot run as the page stands (a variable the
// configuration does not declare, a file it reads that the page never shows), or "".
func (r *pageRun) preflight(cwd, text string) string {
	if !usesTFRe.MatchString(text) {
		return ""
	}
	if u := r.undeclared(cwd, text); len(u) > 0 {
		return fmt.Sprintf("sets undeclared variable(s) %s: the configuration does not declare them (Terraform ignores TF_VAR_ of an undeclared variable)", strings.Join(u, ", "))
	}
	if m := missingFiles(r.work); len(m) > 0 {
		return strings.Join(m, "; ")
	}
	return ""
}

// markers reads the block's exit= and repeat= markers.
func (s *shellRun) markers(b Block) error {
	if v := b.Marker["exit"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errors.New("exit= must be a number")
		}
		s.want = n
	}
	if v, ok := b.Marker["repeat"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("repeat=%q must be a number of runs, 1 or more", v)
		}
		if _, bg := b.Marker["background"]; !s.script || bg {
			return errors.New("repeat= is for scripts (run as their caller runs them), not for a block pasted into a terminal or a background one")
		}
		s.repeat = n
	}
	return nil
}

// prepare writes the block to a file and makes the bash -c wrapper that runs it.
func (r *pageRun) prepare(s *shellRun, i int) error {
	s.blockFile = filepath.Join(r.state, fmt.Sprintf("block-%d.sh", i))
	if err := os.WriteFile(s.blockFile, []byte(s.text), 0o644); err != nil {
		return err
	}
	s.errs = filepath.Join(r.state, "errors")
	if s.script {
		s.wrapper = fmt.Sprintf("source %[1]q/env\ncd %[2]q || exit 97\nexec bash %[3]q\n", r.state, s.cwd, s.blockFile)
		return nil
	}
	s.wrapper = fmt.Sprintf(`source %[1]q/env
cd %[2]q || exit 97
trap 'printf "exit %%s of: %%s\n" "$?" "$BASH_COMMAND" >>%[3]q' ERR
trap 'export -p >%[1]q/env.next; pwd >%[1]q/cwd.next' EXIT
source %[4]q
`, r.state, s.cwd, s.errs, s.blockFile)
	return nil
}

// runShell runs the block once and counts the result under label; it reports whether it passed.
func (r *pageRun) runShell(s *shellRun, label string) bool {
	_ = os.Remove(s.errs)
	out, code, err := r.execShell(r.env, s.wrapper)
	if err != nil {
		r.fail(label, err.Error(), out)
		return false
	}
	if !s.script {
		for _, f := range []string{"env", "cwd"} {
			_ = os.Rename(filepath.Join(r.state, f+".next"), filepath.Join(r.state, f))
		}
	}
	if left := leftover(out); left != "" {
		r.fail(label, left, out)
		return false
	}
	if e := failedCommands(s.errs, s.blockFile); s.want == 0 && e != "" {
		r.fail(label, "a command failed: "+e, out)
		return false
	}
	if code != s.want {
		r.fail(label, fmt.Sprintf("exit %d (the page expects %d)", code, s.want), out)
		return false
	}
	if r.cfg.Verbose {
		r.printf("%s", indent(tail(out, 20)))
	}
	if !s.script || s.repeat > 1 {
		r.ok(label)
	}
	return true
}

// faultRun runs a script again with terraform failing: the script's caller must see it. (After the
// carried-over environment, whose PATH is the reader's.)
func (r *pageRun) faultRun(s *shellRun) {
	what := s.what + " (terraform failing)"
	faulty := fmt.Sprintf("source %[1]q/env\nexport PATH=%[4]q:\"$PATH\"\ncd %[2]q || exit 97\nexec bash %[3]q\n", r.state, s.cwd, s.blockFile, r.failBin)
	out, code, err := r.execShell(r.env, faulty)
	switch {
	case err != nil:
		r.fail(what, err.Error(), out)
	case leftover(out) != "":
		r.fail(what, leftover(out), out)
	case code == 0 && usesTFRe.MatchString(s.text):
		r.fail(what, "the script exits 0 although terraform failed: its caller (CI) would pass", out)
	default:
		r.ok(s.what + " (and fails when terraform fails)")
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
