package pagetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is what the runner needs from the repository.
type Config struct {
	Terraform     string // the Terraform CLI a reader runs (terraform on PATH)
	TerraformNext string // a Terraform >= 1.16 for pages with actions, list resources or query ("" when missing)
	Tofu          string // OpenTofu, as `tofu` on the blocks' PATH ("" when missing: blocks that run tofu fail)
	ProviderDir   string // the directory holding the provider build (bin/), named in the dev_overrides
	Emulator      string // the emulator binary; started for every page on a free loopback port
	Postgres      string // the emulator's -postgres mode (auto, on, off)
	Out           io.Writer
	BlockTimeout  time.Duration
	Verbose       bool // print every block's output, not only a failed one's
}

// Result counts the checks of one page.
type Result struct {
	Passed, Failed, Skipped, Blocks int
	Errors                          []string
}

const (
	accessKey = "pagetest-access"
	secretKey = "pagetest-secret"
	projectID = "pagetest01"
)

// pageRun is the state of one page's run.
type pageRun struct {
	cfg      Config
	page     *Page
	root     string // temporary directory of the page
	work     string // the reader's directory (the working directory of the first block)
	state    string // env and cwd carried from one shell block to the next
	shims    string // PATH entries: terraform (the page's CLI), dbcloud-emulator
	failBin  string // PATH entry of the fault run of scripts: terraform always fails
	cli      string
	env      []string
	vars     map[string]string // what sub= may use: ${BASE_URL}, ${EMULATOR_ADDR}, ...
	emu      *exec.Cmd
	bg       []int // process groups of background blocks
	res      Result
	expected string // expect-error: the page must fail with this text
	// reference: a page of a resource, data source, list resource, action,
	// ephemeral resource or function: its examples are parts of a reader's
	// configuration, each checked in a directory of its own.
	reference bool
	// declared: the reader's configuration declares the provider (as the getting
	// started guide shows): a directory the page writes .tf files into gets a
	// versions.tf with required_providers unless a block of the page has one.
	declared bool
	examples []string // the directories of a reference page's examples
}

var referenceDirs = []string{"resources", "data-sources", "list-resources", "actions", "ephemeral-resources", "functions"}

func isReference(path string) bool {
	dir := filepath.Base(filepath.Dir(path))
	for _, d := range referenceDirs {
		if dir == d {
			return true
		}
	}
	return false
}

// RunPage runs the blocks of one page in a fresh directory against a fresh emulator.
func RunPage(cfg Config, page *Page) Result {
	r := &pageRun{cfg: cfg, page: page, expected: page.Options["expect-error"], reference: isReference(page.Path)}
	_, declared := page.Options["provider-declared"]
	r.declared = declared || r.reference
	if cfg.BlockTimeout == 0 {
		r.cfg.BlockTimeout = 10 * time.Minute
	}
	if reason, ok := page.Options["skip"]; ok {
		r.printf("  skip  %s (%s)\n", page.Path, reason)
		r.res.Skipped++
		return r.res
	}
	if !runnable(page) {
		for _, b := range page.Blocks {
			if k, reason, _ := Classify(b); k == KindSkip {
				r.res.Skipped++
				r.printf("  skip  %s:%d %s (%s)\n", page.Path, b.Line, langName(b.Lang), reason)
			}
		}
		return r.res
	}
	r.cli = cfg.Terraform
	if needsNext(page) {
		if cfg.TerraformNext == "" {
			r.printf("  skip  %s (needs Terraform 1.16: make terraform-next)\n", page.Path)
			r.res.Skipped++
			return r.res
		}
		r.cli = cfg.TerraformNext
	}
	if err := r.setup(); err != nil {
		r.fail(page.Path, err.Error(), "")
	} else {
		r.run()
	}
	r.teardown()
	if r.expected != "" {
		return r.expectedFailure()
	}
	return r.res
}

func (r *pageRun) printf(format string, a ...any) {
	if r.expected == "" || r.cfg.Verbose {
		fmt.Fprintf(r.cfg.Out, format, a...)
	}
}

func (r *pageRun) ok(what string) {
	r.res.Passed++
	r.printf("  ok    %s\n", what)
}

func (r *pageRun) fail(what, why, output string) {
	r.res.Failed++
	r.res.Errors = append(r.res.Errors, what+": "+why+"\n"+ansiRe.ReplaceAllString(output, ""))
	r.printf("  FAIL  %s: %s\n", what, why)
	if output != "" {
		r.printf("%s", indent(tail(output, 60)))
	}
}

// expectedFailure turns the run of a negative fixture into one check: it passes
// when the page failed with the expected text.
func (r *pageRun) expectedFailure() Result {
	for _, e := range r.res.Errors {
		if strings.Contains(e, r.expected) {
			fmt.Fprintf(r.cfg.Out, "  ok    %s fails as it must: %s\n", r.page.Path, firstLine(e))
			return Result{Passed: 1, Blocks: r.res.Blocks}
		}
	}
	fmt.Fprintf(r.cfg.Out, "  FAIL  %s must fail with %q; it failed with: %q\n", r.page.Path, r.expected, r.res.Errors)
	return Result{Failed: 1, Blocks: r.res.Blocks, Errors: []string{r.page.Path + ": did not fail as expected"}}
}

// runnable: the page has a block the runner writes or runs.
func runnable(p *Page) bool {
	for _, b := range p.Blocks {
		if k, _, err := Classify(b); err != nil || k == KindFile || k == KindShell || k == KindScript {
			return true
		}
	}
	return false
}

var nextRe = regexp.MustCompile(`(?m)^\s*(action|list)\s+"|action_trigger|terraform query|\.tfquery\.hcl`)

func needsNext(p *Page) bool {
	if p.Options["cli"] == "next" {
		return true
	}
	for _, b := range p.Blocks {
		if k, _, _ := Classify(b); k != KindShown && k != KindSkip && nextRe.MatchString(b.Text) {
			return true
		}
	}
	return false
}

func (r *pageRun) setup() error {
	var err error
	if r.root, err = os.MkdirTemp("", "pagetest-"); err != nil {
		return err
	}
	r.work = filepath.Join(r.root, "work")
	r.state = filepath.Join(r.root, "state")
	r.shims = filepath.Join(r.root, "bin")
	r.failBin = filepath.Join(r.root, "failbin")
	for _, d := range []string{r.work, r.state, r.shims, r.failBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Symlink(r.cli, filepath.Join(r.shims, "terraform")); err != nil {
		return err
	}
	if err := os.Symlink(r.cfg.Emulator, filepath.Join(r.shims, "dbcloud-emulator")); err != nil {
		return err
	}
	if r.cfg.Tofu != "" {
		if err := os.Symlink(r.cfg.Tofu, filepath.Join(r.shims, "tofu")); err != nil {
			return err
		}
	}
	failing := "#!/bin/sh\necho \"pagetest: terraform $* fails here on purpose (does the caller notice?)\" >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(r.failBin, "terraform"), []byte(failing), 0o755); err != nil {
		return err
	}
	// The README's private CLI configuration: dev_overrides to the local build, no init.
	tfrc := filepath.Join(r.root, "dbcloud-dev.tfrc")
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	// The README's line, and its OpenTofu twin.
	for _, addr := range []string{"registry.terraform.io/dbcloud/dbcloud", "registry.opentofu.org/dbcloud/dbcloud"} {
		fmt.Fprintf(&b, "    %q = %q\n", addr, r.cfg.ProviderDir)
	}
	b.WriteString("  }\n  direct {}\n}\n")
	if err := os.WriteFile(tfrc, []byte(b.String()), 0o644); err != nil {
		return err
	}
	baseURL, err := r.startEmulator()
	if err != nil {
		return err
	}
	r.vars = map[string]string{
		"BASE_URL":      baseURL,
		"EMULATOR_ADDR": strings.TrimSuffix(strings.TrimPrefix(baseURL, "http://"), "/v1"),
		"ACCESS_KEY":    accessKey,
		"SECRET_KEY":    secretKey,
		"PROJECT_ID":    projectID,
		"PROVIDER_DIR":  r.cfg.ProviderDir,
	}
	// A free loopback address for a server that a block starts on a fixed one.
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		r.vars["FREE_ADDR"] = l.Addr().String()
		_ = l.Close()
	}
	// A reader's shell: none of the test scripts' settings (TERRAFORM, TF_*, ...).
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if readerEnv.MatchString(k) {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env,
		"PATH="+r.shims+string(os.PathListSeparator)+os.Getenv("PATH"),
		"TF_CLI_CONFIG_FILE="+tfrc,
		"CHECKPOINT_DISABLE=1",
		"DBCLOUD_BASE_URL="+baseURL,
		"DBCLOUD_ACCESS_KEY="+accessKey,
		"DBCLOUD_SECRET_KEY="+secretKey,
		"DBCLOUD_PROJECT_ID="+projectID,
	)
	if err := os.WriteFile(filepath.Join(r.state, "cwd"), []byte(r.work), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.state, "env"), nil, 0o644); err != nil {
		return err
	}
	if setup := r.page.Options["setup"]; setup != "" {
		return r.setupScript(setup)
	}
	return nil
}

var readerEnv = regexp.MustCompile(`^(HOME|USER|LOGNAME|SHELL|LANG|LC_[A-Z]+|TZ|TMPDIR|TERM|GO[A-Z0-9_]*|XDG_[A-Z_]+|DBCLOUD_POSTGRES_BINDIR)$`)

// setupScript runs a page's setup script (setup=PATH, relative to the repository
// root): what the reader has before the page starts, such as objects to import. It
// runs with bash and the page's environment, in a directory of its own; each
// KEY=VALUE line it writes to $PAGETEST_VARS becomes a value that sub= may use.
func (r *pageRun) setupScript(script string) error {
	abs, err := filepath.Abs(script)
	if err != nil {
		return err
	}
	dir := filepath.Join(r.root, "setup")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	varsFile := filepath.Join(r.root, "setup.vars")
	env := append(append([]string{}, r.env...), "PAGETEST_VARS="+varsFile)
	out, code, err := r.exec(dir, env, nil, "bash", abs)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit %d", code)
	}
	if err != nil {
		return fmt.Errorf("setup %s: %w\n%s", script, err, indent(tail(out, 40)))
	}
	b, _ := os.ReadFile(varsFile)
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			r.vars[k] = v
		}
	}
	return nil
}

func (r *pageRun) startEmulator() (string, error) {
	pg := r.cfg.Postgres
	if v := r.page.Options["postgres"]; v != "" {
		pg = v
	}
	if pg == "" {
		pg = "auto"
	}
	cmd := exec.Command(r.cfg.Emulator, "-addr", "127.0.0.1:0", "-access-key", accessKey, "-secret-key", secretKey,
		"-projects", projectID, "-timing", "fast", "-postgres", pg)
	// Its own process group (a block's leftovers are looked for by group), and
	// stopped with the runner, also when the runner is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	logf, err := os.Create(filepath.Join(r.root, "emulator.log"))
	if err != nil {
		return "", err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("emulator: %w", err)
	}
	r.emu = cmd
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u, ok := <-line:
		if !ok || !strings.HasPrefix(u, "http://") {
			return "", fmt.Errorf("the emulator did not start: %s", readTail(filepath.Join(r.root, "emulator.log")))
		}
		return u, nil
	case <-time.After(2 * time.Minute):
		return "", errors.New("the emulator did not print its URL within 2 minutes")
	}
}

func (r *pageRun) teardown() {
	for _, pg := range r.bg {
		killGroup(pg)
	}
	if r.emu != nil && r.emu.Process != nil {
		_ = r.emu.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = r.emu.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			killGroup(r.emu.Process.Pid)
			<-done
		}
	}
	if r.root != "" {
		_ = os.RemoveAll(r.root)
	}
}

func (r *pageRun) run() {
	for i, b := range r.page.Blocks {
		kind, arg, err := Classify(b)
		what := fmt.Sprintf("%s:%d %s", r.page.Path, b.Line, langName(b.Lang))
		if err != nil {
			r.fail(what, err.Error(), "")
			continue
		}
		text, err := r.substitute(b)
		if err != nil {
			r.fail(what, err.Error(), "")
			continue
		}
		if d := b.Marker["dir"]; d != "" && kind != KindShown && kind != KindSkip {
			if err := r.chdir(d); err != nil {
				r.fail(what, err.Error(), "")
				continue
			}
		}
		switch kind {
		case KindShown:
			continue
		case KindSkip:
			r.res.Skipped++
			r.printf("  skip  %s (%s)\n", what, arg)
			continue
		case KindFile:
			r.res.Blocks++
			if r.reference {
				if b.Marker["dir"] == "" {
					if err := r.chdir(fmt.Sprintf("example-%d", b.Line)); err != nil {
						r.fail(what, err.Error(), "")
						continue
					}
				}
				if !slices.Contains(r.examples, r.cwd()) {
					r.examples = append(r.examples, r.cwd())
				}
			}
			if err := r.declare(r.cwd(), arg, text); err != nil {
				r.fail(what, err.Error(), "")
				continue
			}
			if err := writeFile(r.cwd(), arg, text); err != nil {
				r.fail(what+" -> "+arg, err.Error(), "")
			} else {
				r.ok(what + " -> " + arg)
			}
		case KindShell, KindScript:
			if r.reference && b.Marker == nil {
				r.res.Skipped++
				r.printf("  skip  %s (a command on a reference page names example ids; its configuration blocks are run)\n", what)
				continue
			}
			if r.cfg.Tofu == "" && tofuRe.MatchString(text) {
				r.res.Skipped++
				r.printf("  skip  %s (runs OpenTofu, which is not built: make tofu)\n", what)
				continue
			}
			r.res.Blocks++
			r.shell(i, what, b, text, kind == KindScript)
		}
	}
	for _, m := range missingFiles(r.work) {
		r.fail(r.page.Path, m, "")
	}
	if _, ok := r.page.Options["no-validate"]; ok {
		return
	}
	for _, dir := range configDirs(r.work) {
		rel, _ := filepath.Rel(r.work, dir)
		what := fmt.Sprintf("%s: terraform validate in %s", r.page.Path, rel)
		out, code, err := r.exec(dir, r.env, nil, r.cli, "validate", "-no-color")
		switch {
		case err != nil:
			r.fail(what, err.Error(), out)
		case code != 0:
			r.fail(what, fmt.Sprintf("exit %d", code), out)
		default:
			r.ok(what)
		}
	}
	for _, dir := range r.examples {
		r.exercise(dir)
	}
}

// declare writes versions.tf (the provider in required_providers) into dir when
// the page's reader has the provider declared and dir has no terraform block yet.
func (r *pageRun) declare(dir, name, text string) error {
	if !r.declared || (!strings.HasSuffix(name, ".tf") && !strings.HasSuffix(name, ".tfquery.hcl")) {
		return nil
	}
	if regexp.MustCompile(`(?m)^terraform\s*\{`).MatchString(text) {
		return nil
	}
	for _, p := range tfFiles(dir) {
		if b, _ := os.ReadFile(p); regexp.MustCompile(`(?m)^terraform\s*\{`).Match(b) {
			return nil
		}
	}
	const versions = "terraform {\n  required_providers {\n    dbcloud = {\n      source = \"dbcloud/dbcloud\"\n    }\n  }\n}\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "versions.tf"), []byte(versions), 0o644)
}

var (
	notCheapRe  = regexp.MustCompile(`(?m)^\s*(import|data|ephemeral|action|variable)\b|provisioner|action_trigger`)
	resourceRe  = regexp.MustCompile(`(?m)^resource\s+"dbcloud_`)
	protectedRe = regexp.MustCompile(`(?m)^\s*deletion_protection\s*=\s*true`)
)

// exercise runs a reference page's example against the emulator where that is
// cheap: `terraform query` for a list block; apply, an empty plan and destroy for
// a configuration of resources that names no existing object and needs no input.
func (r *pageRun) exercise(dir string) {
	rel, _ := filepath.Rel(r.work, dir)
	if q, _ := filepath.Glob(filepath.Join(dir, "*.tfquery.hcl")); len(q) > 0 {
		r.step(dir, fmt.Sprintf("%s: terraform query in %s", r.page.Path, rel), 0, "query", "-no-color")
		return
	}
	var all strings.Builder
	for _, p := range tfFiles(dir) {
		b, _ := os.ReadFile(p)
		all.Write(b)
	}
	if notCheapRe.MatchString(all.String()) || !resourceRe.MatchString(all.String()) {
		return
	}
	what := fmt.Sprintf("%s: apply, empty plan, destroy in %s", r.page.Path, rel)
	if r.step(dir, what+" (apply)", 0, "apply", "-auto-approve", "-no-color") {
		r.step(dir, what+" (plan)", 0, "plan", "-detailed-exitcode", "-no-color")
	}
	// A protected service refuses destroy, as the example means it to.
	if !protectedRe.MatchString(all.String()) {
		r.step(dir, what+" (destroy)", 0, "destroy", "-auto-approve", "-no-color")
	}
}

func (r *pageRun) step(dir, what string, want int, args ...string) bool {
	out, code, err := r.exec(dir, r.env, nil, r.cli, args...)
	switch {
	case err != nil:
		r.fail(what, err.Error(), out)
	case code != want:
		r.fail(what, fmt.Sprintf("exit %d", code), out)
	default:
		r.ok(what)
		return true
	}
	return false
}

func langName(l string) string {
	if l == "" {
		return "block"
	}
	return l
}

func (r *pageRun) cwd() string {
	b, err := os.ReadFile(filepath.Join(r.state, "cwd"))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return r.work
	}
	return strings.TrimSpace(string(b))
}

// chdir makes dir (relative to the page's first directory) the current one: a
// section of the page that starts a configuration of its own.
func (r *pageRun) chdir(dir string) error {
	clean := filepath.Clean(dir)
	if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
		return fmt.Errorf("dir=%q must be a relative path inside the working directory", dir)
	}
	abs := filepath.Join(r.work, clean)
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.state, "cwd"), []byte(abs), 0o644)
}

// substitute applies the block's sub="OLD=>NEW" markers (NEW may use ${BASE_URL},
// ${EMULATOR_ADDR}, ${ACCESS_KEY}, ${SECRET_KEY}, ${PROJECT_ID}, ${FREE_ADDR} and
// the values of the page's setup script).
func (r *pageRun) substitute(b Block) (string, error) {
	text := b.Text
	if b.Marker == nil || b.Marker["sub"] == "" {
		return text, nil
	}
	for _, s := range strings.Split(b.Marker["sub"], "\x00") {
		old, nw, ok := strings.Cut(s, "=>")
		if !ok || old == "" {
			return "", fmt.Errorf("sub=%q: write sub=\"OLD=>NEW\"", s)
		}
		if !strings.Contains(text, old) {
			return "", fmt.Errorf("sub=%q: the block does not contain %q", s, old)
		}
		var unknown []string
		nw = os.Expand(nw, func(k string) string {
			v, ok := r.vars[k]
			if !ok {
				unknown = append(unknown, k)
			}
			return v
		})
		if len(unknown) > 0 {
			return "", fmt.Errorf("sub=%q: no value for %s", s, strings.Join(unknown, ", "))
		}
		text = strings.ReplaceAll(text, old, nw)
	}
	return text, nil
}

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

// execShell runs bash -c wrapper in a process group of its own, with "yes" lines
// (1 MiB) on stdin for Terraform's confirmations. Processes of the group still running after
// bash exits are reported (in the output, with leftoverMark) and killed.
func (r *pageRun) execShell(env []string, wrapper string) (string, int, error) {
	// Each terraform reads a buffer's worth of stdin: enough for every prompt of a block.
	yes := strings.Repeat("yes\n", 1<<18)
	return r.exec("", env, strings.NewReader(yes), "bash", "-c", wrapper)
}

func (r *pageRun) exec(dir string, env []string, stdin io.Reader, name string, args ...string) (string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.BlockTimeout)
	defer cancel()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	var buf syncBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Background processes keep the pipes open: Wait must not wait for them.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		killGroup(cmd.Process.Pid)
		werr = <-done
		return buf.String(), -1, fmt.Errorf("still running after %s: stopped (%w)", r.cfg.BlockTimeout, werr)
	}
	// A process that its block stopped on the way out may take a moment to go.
	procs := groupProcs(cmd.Process.Pid)
	for i := 0; i < 20 && len(procs) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
		procs = groupProcs(cmd.Process.Pid)
	}
	if len(procs) > 0 {
		killGroup(cmd.Process.Pid)
		buf.WriteString("\n" + leftoverMark + strings.Join(procs, "; ") + "\n")
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil && !errors.Is(werr, exec.ErrWaitDelay) {
		return buf.String(), 0, werr
	}
	return buf.String(), code, nil
}

// background starts a block marked background (a server the reader leaves
// running in another terminal) and waits for its first line of output, or for the
// ready="regexp" of its marker. It is stopped when the page ends.
func (r *pageRun) background(what string, b Block, wrapper string) {
	cmd := exec.Command("bash", "-c", wrapper)
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var buf syncBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		r.fail(what, err.Error(), "")
		return
	}
	r.bg = append(r.bg, cmd.Process.Pid)
	go func() { _ = cmd.Wait() }()
	ready := regexp.MustCompile(`\S`)
	if s := b.Marker["ready"]; s != "" {
		re, err := regexp.Compile(s)
		if err != nil {
			r.fail(what, "ready=: "+err.Error(), "")
			return
		}
		ready = re
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if ready.MatchString(buf.String()) {
			r.ok(what + " (in the background)")
			return
		}
		if len(groupProcs(cmd.Process.Pid)) == 0 {
			r.fail(what, "the background block exited", buf.String())
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.fail(what, "the background block printed nothing matching "+ready.String()+" within 2 minutes", buf.String())
}

// groupProcs lists the processes of process group pgid ("pid command").
func groupProcs(pgid int) []string {
	if err := syscall.Kill(-pgid, 0); err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		s := string(stat)
		j := strings.LastIndexByte(s, ')')
		if j < 0 {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
		}
	}
	return out
}

func killGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	for range 50 {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}

var ansiRe = regexp.MustCompile("\x1b\\[[0-9;]*m")

func indent(s string) string {
	s = ansiRe.ReplaceAllString(s, "")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "        " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n        ") + "\n"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func readTail(name string) string {
	b, _ := os.ReadFile(name)
	return tail(string(b), 10)
}
