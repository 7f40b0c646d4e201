package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// The one driver of the tests that run the terraform binary themselves (signals, -parallelism, query,
// actions, several runs at once: what terraform-plugin-testing's resource.Test cannot do): a working
// directory, a CLI, and the provider that CLI talks to (served in this process, or the provider's
// binary built once per test binary and named by dev_overrides). Commands run to the end or are
// started and interrupted; the state and saved plans are read back.

// Registry addresses the provider is served under: a configuration that names no source asks for
// hashicorp/dbcloud.
const (
	tfAddrDBCloud   = "registry.terraform.io/dbcloud/dbcloud"
	tfAddrHashicorp = "registry.terraform.io/hashicorp/dbcloud"
)

// tfOptions chooses the CLI and the provider of a tfWorkdir.
type tfOptions struct {
	onPath     bool   // the terraform on PATH, not the acceptance tests' CLI (TF_ACC_TERRAFORM_PATH)
	minVersion string // skip the test unless the CLI is Terraform at this version or later
	addr       string // the address the in-process provider is served under (tfAddrDBCloud when empty)
	// server makes the in-process provider (testProviderServer when nil).
	server     func() (tfprotov6.ProviderServer, error)
	perCommand bool // a fresh in-process provider for each command (tests that interrupt terraform)
	binary     bool // the provider's built binary through dev_overrides, not an in-process provider
	// cliConfig: a CLI configuration of the test's own (TF_CLI_CONFIG_FILE; its dev_overrides name
	// the providers), no in-process provider.
	cliConfig string
}

// tfWorkdir is a Terraform working directory, the CLI that runs in it and the provider it talks to.
type tfWorkdir struct {
	t        *testing.T
	bin, dir string
	srv      *emulatortest.Server // the emulator write's provider block points at (nil: write is not used)
	opts     tfOptions
	env      []string      // more environment for every command
	timeout  time.Duration // how long run waits for a command (five minutes when zero)
	reattach string        // the shared in-process provider's TF_REATTACH_PROVIDERS, once served
	stdin    string        // what commands read on their standard input (answers to prompts)
}

// newTF makes a working directory in a fresh temporary directory. It skips the test when the CLI is
// missing (the acceptance tests' CLI) or older than opts.minVersion.
func newTF(t *testing.T, opts tfOptions) *tfWorkdir {
	t.Helper()
	var bin string
	if opts.onPath {
		bin = pathCLI(t)
	} else {
		bin = acceptanceCLI(t)
	}
	if opts.minVersion != "" {
		requireTerraform(t, bin, opts.minVersion)
	}
	if opts.addr == "" {
		opts.addr = tfAddrDBCloud
	}
	if opts.server == nil {
		opts.server = testProviderServer
	}
	return &tfWorkdir{t: t, bin: bin, dir: t.TempDir(), opts: opts}
}

// newTFWorkdir writes the configuration (resources only; the terraform and provider blocks are added)
// and runs init, with the terraform on PATH and a fresh in-process provider for each command.
func newTFWorkdir(t *testing.T, srv *emulatortest.Server, resources string) *tfWorkdir {
	t.Helper()
	w := newTF(t, tfOptions{onPath: true, perCommand: true})
	w.srv = srv
	w.write(resources)
	w.must("init", "-input=false")
	return w
}

// newTerraform is the acceptance tests' CLI, skipped below Terraform minVersion, with one in-process
// provider for the test served under hashicorp/dbcloud (configurations that name no source).
func newTerraform(t *testing.T, minVersion string) *tfWorkdir {
	t.Helper()
	return newTF(t, tfOptions{minVersion: minVersion, addr: tfAddrHashicorp})
}

// newTerraformServing is newTerraform serving the provider server newServer makes.
func newTerraformServing(t *testing.T, minVersion string, newServer func() (tfprotov6.ProviderServer, error)) *tfWorkdir {
	t.Helper()
	return newTF(t, tfOptions{minVersion: minVersion, addr: tfAddrHashicorp, server: newServer})
}

// write replaces main.tf with the terraform block, the provider block of w.srv and resources.
func (w *tfWorkdir) write(resources string) {
	w.t.Helper()
	w.writeFile("main.tf", `
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
`+providerBlock(w.srv)+resources)
}

// writeFile writes a file of the working directory.
func (w *tfWorkdir) writeFile(name, content string) {
	w.t.Helper()
	writeFile(w.t, filepath.Join(w.dir, name), content)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs a terraform command to the end and returns its output (stdout and stderr); after the
// timeout (five minutes) it is killed and the test fails.
func (w *tfWorkdir) run(args ...string) (string, error) {
	w.t.Helper()
	p := w.start(args...)
	err := p.waitAtMost(w.t, cmp.Or(w.timeout, 5*time.Minute))
	return p.out.String(), err
}

// runCode is run with the exit code for the error.
func (w *tfWorkdir) runCode(args ...string) (string, int) {
	w.t.Helper()
	out, err := w.run(args...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit):
		return out, exit.ExitCode()
	}
	w.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	return out, -1
}

// must runs a command that must exit 0 (the test fails otherwise) and returns what it wrote to stdout.
func (w *tfWorkdir) must(args ...string) string {
	w.t.Helper()
	p := w.start(args...)
	if err := p.waitAtMost(w.t, cmp.Or(w.timeout, 5*time.Minute)); err != nil {
		w.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, p.out.String())
	}
	return p.stdout.String()
}

// runWant runs a command whose exit code must be want (the test fails otherwise), and returns its output.
func (w *tfWorkdir) runWant(want int, args ...string) string {
	w.t.Helper()
	out, code := w.runCode(args...)
	if code != want {
		w.t.Fatalf("terraform %s exited %d, want %d:\n%s", strings.Join(args, " "), code, want, out)
	}
	return out
}

// tfProcess is a started terraform command.
type tfProcess struct {
	cmd         *exec.Cmd
	out, stdout *clitest.Buffer // out: stdout and stderr
	done        chan error
	err         error
	over        bool
}

// start starts a terraform command ("-no-color" is added after the command's name).
func (w *tfWorkdir) start(args ...string) *tfProcess {
	w.t.Helper()
	if !slices.Contains(args, "-no-color") && args[0] != "state" && args[0] != "version" {
		args = slices.Insert(slices.Clone(args), 1, "-no-color")
	}
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	p := &tfProcess{cmd: cmd, out: &clitest.Buffer{}, stdout: &clitest.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(p.stdout, p.out), p.out
	if w.stdin != "" {
		cmd.Stdin = strings.NewReader(w.stdin)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	return p
}

// environ is a command's environment: the test's, without the settings of another terraform (logs,
// providers to reattach, CLI configuration), and the provider of w.
func (w *tfWorkdir) environ() []string {
	env := []string{"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_INPUT=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_LOG") && !strings.HasPrefix(kv, "TF_REATTACH_PROVIDERS=") && !strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			env = append(env, kv)
		}
	}
	switch {
	case w.opts.cliConfig != "":
		env = append(env, "TF_CLI_CONFIG_FILE="+w.opts.cliConfig)
	case w.opts.binary:
		env = append(env, "TF_CLI_CONFIG_FILE="+devOverrides(w.t))
	case w.opts.perCommand:
		env = append(env, "TF_REATTACH_PROVIDERS="+serveProviderServerForTerraform(w.t, w.opts.addr, w.opts.server))
	default:
		if w.reattach == "" {
			w.reattach = serveProviderServerForTerraform(w.t, w.opts.addr, w.opts.server)
		}
		env = append(env, "TF_REATTACH_PROVIDERS="+w.reattach)
	}
	return append(env, w.env...)
}

// startBinary starts a command with the provider's built binary (dev_overrides), whatever w's
// provider is: the process as Terraform runs it, started by Terraform and stopped on its way out.
func (w *tfWorkdir) startBinary(args ...string) *tfProcess {
	w.t.Helper()
	b := *w
	b.opts.binary = true
	return b.start(args...)
}

// interrupt sends SIGINT (Ctrl-C) and waits for terraform to exit (it must within two minutes).
func (p *tfProcess) interrupt(t *testing.T) {
	t.Helper()
	if p.over {
		return
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Logf("SIGINT: %v", err)
	}
	_ = p.wait(t) // the exit status is the caller's to read (p.err)
}

// wait waits for terraform to exit (two minutes at most, then it is killed and the test fails).
func (p *tfProcess) wait(t *testing.T) error {
	t.Helper()
	return p.waitAtMost(t, 2*time.Minute)
}

// waitAtMost waits for terraform to exit; after d it is killed and the test fails.
func (p *tfProcess) waitAtMost(t *testing.T, d time.Duration) error {
	t.Helper()
	if p.over {
		return p.err
	}
	select {
	case p.err = <-p.done:
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		p.err, p.over = <-p.done, true
		t.Fatalf("terraform %s did not exit within %s:\n%s", strings.Join(p.cmd.Args[1:], " "), d, tail(p.out.String(), 40))
	}
	p.over = true
	return p.err
}

// acceptanceCLIPath is the CLI the acceptance tests run: TF_ACC_TERRAFORM_PATH, else terraform on PATH.
func acceptanceCLIPath() (string, error) {
	if bin := os.Getenv("TF_ACC_TERRAFORM_PATH"); bin != "" {
		return bin, nil
	}
	return exec.LookPath("terraform")
}

// acceptanceCLI is acceptanceCLIPath; the test skips without one.
func acceptanceCLI(t *testing.T) string {
	t.Helper()
	bin, err := acceptanceCLIPath()
	if err != nil {
		t.Skip("no terraform binary: set TF_ACC_TERRAFORM_PATH or put terraform on PATH")
	}
	return bin
}

// pathCLI is the terraform on PATH; the test fails without one.
func pathCLI(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("terraform is not on PATH: %v", err)
	}
	return bin
}

// requireTerraform skips the test unless bin is Terraform (not OpenTofu) at minVersion or later.
func requireTerraform(t *testing.T, bin, minVersion string) {
	t.Helper()
	out, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		t.Skipf("%s is not Terraform (version -json answered %q)", bin, out)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatalf("terraform version %q: %v", v.Version, err)
	}
	if have.LessThan(version.Must(version.NewVersion(minVersion))) {
		t.Skipf("Terraform %s is older than %s", have, minVersion)
	}
}

// The provider's binary, built once per test binary (the module's main package).
var providerBinary struct {
	once      sync.Once
	path, rc  string // the binary; a CLI configuration whose dev_overrides name it
	err       error
	buildLogs string
}

// devOverrides builds the provider's binary once per test binary and returns a CLI configuration
// (TF_CLI_CONFIG_FILE) whose dev_overrides name it for Terraform's and OpenTofu's registries (clitest).
func devOverrides(t *testing.T) string {
	t.Helper()
	providerBinary.once.Do(func() {
		// One binary for every test of the run: a test's TempDir would go with the first test.
		dir, err := os.MkdirTemp("", "dbcloud-provider-bin") //nolint:usetesting // shared by the run's tests
		if err != nil {
			providerBinary.err = err
			return
		}
		providerBinary.path = filepath.Join(dir, "terraform-provider-dbcloud")
		// The provider's backoff shrinks by the factor of the outage windows (internal/api.backoffScale),
		// so that a short outage is met by as many attempts as a real one.
		scale := fmt.Sprintf("-X github.com/dbcloud/terraform-provider-dbcloud/internal/api.backoffScale=%g", outageScale)
		out, err := exec.Command("go", "build", "-ldflags", scale, "-o", providerBinary.path,
			"github.com/dbcloud/terraform-provider-dbcloud").CombinedOutput()
		if err != nil {
			providerBinary.err, providerBinary.buildLogs = err, string(out)
			return
		}
		providerBinary.rc = filepath.Join(dir, "dev.tfrc")
		providerBinary.err = clitest.WriteCLIConfig(providerBinary.rc, map[string]string{clitest.DBCloud: dir})
	})
	if providerBinary.err != nil {
		t.Fatalf("building the provider: %v\n%s", providerBinary.err, providerBinary.buildLogs)
	}
	return providerBinary.rc
}

// cliConfigWith is a CLI configuration of the test's own (tfOptions.cliConfig), written by the one
// writer of dev_overrides (clitest): the provider's binary (devOverrides) and, by registry source, the
// builds of the other providers the test runs beside it (thirdPartyProvider); a source whose directory
// is "" is left to terraform init (from the registry).
func cliConfigWith(t *testing.T, others map[string]string) string {
	t.Helper()
	dirs := map[string]string{clitest.DBCloud: providerBinaryDir(t)}
	for source, dir := range others {
		if dir != "" {
			dirs[source] = dir
		}
	}
	rc := filepath.Join(t.TempDir(), "dev.tfrc")
	if err := clitest.WriteCLIConfig(rc, dirs); err != nil {
		t.Fatal(err)
	}
	return rc
}

// providerBinaryDir is the directory of the provider's binary that devOverrides builds.
func providerBinaryDir(t *testing.T) string {
	t.Helper()
	devOverrides(t)
	return filepath.Dir(providerBinary.path)
}

// tfStateFile is what the tests read of terraform.tfstate.
type tfStateFile struct {
	Resources []struct {
		Mode      string `json:"mode"`
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			IndexKey   any            `json:"index_key"`
			Status     string         `json:"status"`
			Deposed    string         `json:"deposed"`
			Attributes map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

// state reads terraform.tfstate (empty when there is none yet).
func (w *tfWorkdir) state() tfStateFile {
	w.t.Helper()
	var st tfStateFile
	b, err := os.ReadFile(filepath.Join(w.dir, "terraform.tfstate"))
	if os.IsNotExist(err) {
		return st
	}
	if err != nil {
		w.t.Fatalf("reading the state: %v", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		w.t.Fatalf("reading the state: %v\n%s", err, b)
	}
	return st
}

// stateIDs returns the ids of the state's objects by resource type (current and deposed instances).
func (w *tfWorkdir) stateIDs() map[string][]string {
	w.t.Helper()
	ids := map[string][]string{}
	for _, r := range w.state().Resources {
		for _, in := range r.Instances {
			if id, _ := in.Attributes["id"].(string); id != "" {
				ids[r.Type] = append(ids[r.Type], id)
			}
		}
	}
	return ids
}

// stateAddresses returns the id of every current managed resource instance, by address.
func (w *tfWorkdir) stateAddresses() map[string]string {
	w.t.Helper()
	ids := map[string]string{}
	for _, r := range w.state().Resources {
		for _, in := range r.Instances {
			if r.Mode != "managed" || in.Deposed != "" {
				continue
			}
			addr := r.Type + "." + r.Name
			switch k := in.IndexKey.(type) {
			case float64:
				addr += fmt.Sprintf("[%d]", int(k))
			case string:
				addr += fmt.Sprintf("[%q]", k)
			}
			ids[addr], _ = in.Attributes["id"].(string)
		}
	}
	return ids
}

// instance returns the attributes of the one instance of the managed resource addr (type.name); the
// test fails when the state does not hold exactly one.
func (w *tfWorkdir) instance(addr string) map[string]any {
	w.t.Helper()
	for _, r := range w.state().Resources {
		if r.Mode == "managed" && r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			return r.Instances[0].Attributes
		}
	}
	w.t.Fatalf("%s is not in the state: %+v", addr, w.state())
	return nil
}

// serviceState returns the attributes of the state's one dbcloud_service and whether it is tainted.
func (w *tfWorkdir) serviceState() (attrs map[string]any, tainted bool) {
	w.t.Helper()
	for _, r := range w.state().Resources {
		if r.Mode == "managed" && r.Type == "dbcloud_service" && len(r.Instances) == 1 {
			return r.Instances[0].Attributes, r.Instances[0].Status == "tainted"
		}
	}
	w.t.Fatalf("no dbcloud_service in the state: %+v", w.state())
	return nil, false
}

// tfPlanJSON is what the tests read of `terraform show -json` of a saved plan.
type tfPlanJSON struct {
	ResourceDrift   []tfResourceChange `json:"resource_drift"`
	ResourceChanges []tfResourceChange `json:"resource_changes"`
}

type tfResourceChange struct {
	Address string `json:"address"`
	Change  struct {
		Actions   []string        `json:"actions"`
		Before    map[string]any  `json:"before"`
		After     map[string]any  `json:"after"`
		Importing json.RawMessage `json:"importing"`
	} `json:"change"`
}

// plan reads a saved plan (terraform show -json).
func (w *tfWorkdir) plan(planFile string) tfPlanJSON {
	w.t.Helper()
	out := w.must("show", "-json", planFile)
	var p tfPlanJSON
	i := strings.Index(out, "{")
	if i < 0 {
		w.t.Fatalf("terraform show -json %s printed no JSON:\n%s", planFile, out)
	}
	if err := json.NewDecoder(strings.NewReader(out[i:])).Decode(&p); err != nil {
		w.t.Fatalf("terraform show -json %s: %v\n%s", planFile, err, out)
	}
	return p
}

// serveProviderServerForTerraform serves the provider server newServer makes (testProviderServer: the
// tests' fast backoff and retries) over go-plugin in this process under the registry address addr, and
// returns the TF_REATTACH_PROVIDERS value that makes a real terraform process use it. The server stops
// at the end of the test.
func serveProviderServerForTerraform(t *testing.T, addr string, newServer func() (tfprotov6.ProviderServer, error)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	factory := func() tfprotov6.ProviderServer { return server }
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- tf6server.Serve(addr, factory,
			tf6server.WithDebug(ctx, cfgCh, closeCh),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(t),
			tf6server.WithoutLogStderrOverride())
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-cfgCh:
	case err := <-serveErr:
		cancel()
		t.Fatalf("serving the provider: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the provider server did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-closeCh:
		case <-time.After(10 * time.Second):
		}
	})
	reattach, err := json.Marshal(map[string]any{addr: map[string]any{
		"Protocol":        string(cfg.Protocol),
		"ProtocolVersion": cfg.ProtocolVersion,
		"Pid":             cfg.Pid,
		"Test":            cfg.Test,
		"Addr":            map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return string(reattach)
}
