package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// The harness of the tests that drive the real terraform binary and interrupt it (lost_answer_test.go,
// chaos_test.go): a working directory with a configuration, commands run to the end or started and sent
// SIGINT, and the objects of the emulator compared with the objects of the state.

// skipUnlessAcc skips a test that drives the terraform binary unless TF_ACC is set (`make unit` runs
// without it, `make test` and `go test` with TF_ACC=1 run it).
func skipUnlessAcc(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("drives the terraform binary: set TF_ACC=1")
	}
	if _, err := exec.LookPath("terraform"); err != nil {
		t.Fatalf("terraform is not on PATH: %v", err)
	}
}

// tfWorkdir is a Terraform working directory whose provider points at srv.
type tfWorkdir struct {
	t   *testing.T
	dir string
	srv *emulator.Server
	// cli and addr, when set: the CLI to run instead of terraform on PATH, and the provider's
	// address for it (newTFWorkdirOnAccCLI).
	cli, addr string
}

// newTFWorkdir writes the configuration (resources only; the provider block is added) and runs init.
func newTFWorkdir(t *testing.T, srv *emulator.Server, resources string) *tfWorkdir {
	t.Helper()
	w := &tfWorkdir{t: t, dir: t.TempDir(), srv: srv}
	w.write(resources)
	if out, err := w.run("init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}
	return w
}

// write replaces the configuration.
func (w *tfWorkdir) write(resources string) {
	w.t.Helper()
	main := `
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
` + providerBlock(w.srv) + resources
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(main), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// run runs a terraform command to the end with a fresh in-process provider (five minutes at most,
// then it is killed and the test fails).
func (w *tfWorkdir) run(args ...string) (string, error) {
	w.t.Helper()
	p := w.start(args...)
	err := p.waitAtMost(w.t, 5*time.Minute)
	return p.out.String(), err
}

// tfProcess is a started terraform command.
type tfProcess struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan error
	err  error
	over bool
}

// start starts a terraform command with a fresh in-process provider.
func (w *tfWorkdir) start(args ...string) *tfProcess {
	w.t.Helper()
	addr := interruptProviderAddr
	if w.addr != "" {
		addr = w.addr
	}
	cmd, out := terraformCmd(w.t, w.dir, serveProviderForTerraform(w.t, addr), args...)
	if w.cli != "" {
		cmd.Path, cmd.Args[0] = w.cli, w.cli
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	p := &tfProcess{cmd: cmd, out: out, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p
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

// emuObject is an object the emulator holds, under the type of the resource that manages it.
type emuObject struct {
	Type, ID, Name string
}

func (o emuObject) String() string { return fmt.Sprintf("%s %s (%s)", o.Type, o.ID, o.Name) }

// emulatorObjects lists the objects of the test project (services that are DELETED are gone).
func emulatorObjects(srv *emulator.Server) []emuObject {
	var out []emuObject
	p := srv.Snapshot().Projects[testProjectID]
	if p == nil {
		return nil
	}
	for _, s := range p.Services {
		if s.Service.Status != nil && *s.Service.Status == api.DELETED {
			continue
		}
		out = append(out, emuObject{"dbcloud_service", deref(s.Service.ServiceID), deref(s.Service.Name)})
		for _, rs := range s.ReplicaSets {
			out = append(out, emuObject{"dbcloud_read_replica_set", deref(rs.ID), deref(rs.Name)})
		}
	}
	for _, v := range p.VPCs {
		out = append(out, emuObject{"dbcloud_vpc", deref(v.VPC.ID), deref(v.VPC.Name)})
		for _, pr := range v.Peerings {
			out = append(out, emuObject{"dbcloud_vpc_peering", deref(pr.ID), deref(pr.PeerVpcID)})
		}
	}
	return out
}

// stateIDs returns the ids of the state's objects by resource type (current and deposed instances).
func stateIDs(t *testing.T, dir string) map[string][]string {
	t.Helper()
	ids := map[string][]string{}
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if os.IsNotExist(err) {
		return ids
	}
	if err != nil {
		t.Fatalf("reading the state: %v", err)
	}
	var st tfStateFile
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			if id, _ := in.Attributes["id"].(string); id != "" {
				ids[r.Type] = append(ids[r.Type], id)
			}
		}
	}
	return ids
}

// objectAudit compares the emulator with the state.
type objectAudit struct {
	objects    []emuObject
	orphans    []emuObject    // in the emulator, not in the state
	duplicates []emuObject    // a second object of the same type and name
	missing    []string       // in the state, not in the emulator
	byType     map[string]int // objects per type
}

func auditObjects(t *testing.T, srv *emulator.Server, dir string) objectAudit {
	t.Helper()
	a := objectAudit{objects: emulatorObjects(srv), byType: map[string]int{}}
	ids := stateIDs(t, dir)
	seen := map[string]bool{}
	inEmu := map[string]bool{}
	for _, o := range a.objects {
		a.byType[o.Type]++
		inEmu[o.Type+"/"+o.ID] = true
		if !slices.Contains(ids[o.Type], o.ID) {
			a.orphans = append(a.orphans, o)
		}
		if k := o.Type + "/" + o.Name; seen[k] {
			a.duplicates = append(a.duplicates, o)
		} else {
			seen[k] = true
		}
	}
	for typ, list := range ids {
		for _, id := range list {
			if !inEmu[typ+"/"+id] {
				a.missing = append(a.missing, typ+" "+id)
			}
		}
	}
	return a
}

// waitEmulatorEmpty waits until the emulator holds nothing (a delete that was accepted finishes on its
// own schedule) or 15 seconds pass, and returns what is left.
func waitEmulatorEmpty(srv *emulator.Server) []emuObject {
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := emulatorObjects(srv)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail returns the last n lines of s (for failure messages).
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"[...]"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// diagnostics returns the "Error:" and "Warning:" diagnostics of terraform's output (each with the
// few lines of detail that follow it), or the output's last lines when it has none.
func diagnostics(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := strings.TrimLeft(lines[i], "│ ")
		if !strings.HasPrefix(l, "Error:") && !strings.HasPrefix(l, "Warning:") {
			continue
		}
		end := min(i+12, len(lines))
		for j := i + 1; j < end; j++ {
			if m := strings.TrimLeft(lines[j], "│ "); strings.HasPrefix(m, "Error:") || strings.HasPrefix(m, "Warning:") {
				end = j
			}
		}
		for _, d := range lines[i:end] {
			if d = strings.TrimRight(d, " "); d != "" {
				out = append(out, d)
			}
		}
		i = end - 1
	}
	if len(out) == 0 {
		return tail(s, 15)
	}
	return strings.Join(out, "\n")
}
