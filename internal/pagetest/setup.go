package pagetest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/thirdparty"
)

// A page's directory, CLI configuration, environment and setup script.

// setup makes the page's directories and shims, the README's private CLI configuration, starts the
// page's emulator, sets the reader's environment and runs the page's setup script.
func (r *pageRun) setup() error {
	if err := r.makeDirs(); err != nil {
		return err
	}
	tfrc, err := r.writeCLIConfig()
	if err != nil {
		return err
	}
	baseURL, err := r.startEmulator()
	if err != nil {
		return err
	}
	r.setVars(baseURL)
	r.setEnv(tfrc, baseURL)
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

// makeDirs makes the page's temporary directory: the reader's directory, the state carried between
// blocks, the PATH shims (terraform, dbcloud-emulator, tofu) and the failing terraform of the fault
// run of scripts.
func (r *pageRun) makeDirs() error {
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
	links := map[string]string{"terraform": r.cli, "dbcloud-emulator": r.cfg.Emulator}
	if r.cfg.Tofu != "" {
		links["tofu"] = r.cfg.Tofu
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(r.shims, name)); err != nil {
			return err
		}
	}
	failing := "#!/bin/sh\necho \"pagetest: terraform $* fails here on purpose (does the caller notice?)\" >&2\nexit 1\n"
	return os.WriteFile(filepath.Join(r.failBin, "terraform"), []byte(failing), 0o755)
}

// writeCLIConfig writes the README's private CLI configuration (dev_overrides to the local build, no
// init; then those of the other providers the page uses) with the one writer (clitest), and answers its
// path.
func (r *pageRun) writeCLIConfig() (string, error) {
	tfrc := filepath.Join(r.root, "dbcloud-dev.tfrc")
	dirs := map[string]string{clitest.DBCloud: r.cfg.ProviderDir}
	maps.Copy(dirs, r.others)
	return tfrc, clitest.WriteCLIConfig(tfrc, dirs)
}

// otherProviders builds the other providers the page uses (provider=SOURCE[,SOURCE...]), from their
// source next to the repository into the build cache the tests share (internal/thirdparty), for the
// CLI configuration's dev_overrides. skip says why the page cannot run (a provider without its source).
func (r *pageRun) otherProviders() (skip string, err error) {
	list := r.page.Options["provider"]
	if list == "" {
		return "", nil
	}
	root, err := thirdparty.RepoRoot(".")
	if err != nil {
		return "", err
	}
	r.others = map[string]string{}
	for _, source := range strings.Split(list, ",") {
		source = strings.TrimSpace(source)
		p, ok := thirdparty.BySource(source)
		if !ok {
			return "", fmt.Errorf("provider=%s: not a provider of ../shared/third_party (internal/thirdparty knows its builds)", source)
		}
		dir, err := p.Build(root, func(format string, args ...any) { r.printf("  "+format+"\n", args...) })
		if errors.Is(err, thirdparty.ErrNoSource) {
			return fmt.Sprintf("needs the %s provider: %v", source, err), nil
		}
		if err != nil {
			return "", err
		}
		r.others[source] = dir
	}
	return "", nil
}

// setVars sets the values sub= may use: the emulator's, and a free loopback address.
func (r *pageRun) setVars(baseURL string) {
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
}

// setEnv sets the blocks' environment: a reader's shell (none of the test scripts' settings:
// TERRAFORM, TF_*, ...) after the README's setup, pointed at the page's emulator.
func (r *pageRun) setEnv(tfrc, baseURL string) {
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
}

var readerEnv = regexp.MustCompile(`^(HOME|USER|LOGNAME|SHELL|LANG|LC_[A-Z]+|TZ|TMPDIR|TERM|GO[A-Z0-9_]*|XDG_[A-Z_]+|DBCLOUD_POSTGRES_BINDIR)$`)

// setupScript runs the page's setup script (setup=PATH, relative to the repository root: Setup) with
// the page's environment, in a directory of its own, before the first block; the values it answers
// are values that sub= may use.
func (r *pageRun) setupScript(script string) error {
	vars, err := Setup(script, filepath.Join(r.root, "setup"), r.work, r.env, r.cfg.BlockTimeout)
	maps.Copy(r.vars, vars)
	return err
}

// Setup runs a page's setup script (its setup= marker: a path relative to the repository's root) as
// the runner runs it before the page's first block, and as a Go test of the page runs it too: with bash,
// in dir (made when missing), with the environment env, $PAGETEST_WORKDIR the reader's directory
// workdir (what the script leaves there, a state say, is there when the page starts) and
// $PAGETEST_VARS a file where each KEY=VALUE line it writes is a value of the answer (ids of the
// objects it made: what sub= may use). It fails, with the end of its output, when the script does or
// runs longer than timeout.
func Setup(script, dir, workdir string, env []string, timeout time.Duration) (map[string]string, error) {
	path := script
	if !filepath.IsAbs(path) {
		root, err := thirdparty.RepoRoot(".")
		if err != nil {
			return nil, err
		}
		path = filepath.Join(root, script)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	vars, err := os.CreateTemp("", "pagetest-vars-")
	if err != nil {
		return nil, err
	}
	_ = vars.Close()
	defer func() { _ = os.Remove(vars.Name()) }()
	env = append(slices.Clone(env), "PAGETEST_VARS="+vars.Name(), "PAGETEST_WORKDIR="+workdir)
	out, code, err := execIn(timeout, dir, env, nil, "bash", path)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit %d", code)
	}
	if err != nil {
		return nil, fmt.Errorf("setup %s: %w\n%s", script, err, indent(tail(out, 40)))
	}
	b, err := os.ReadFile(vars.Name())
	values := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			values[k] = v
		}
	}
	return values, err
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
