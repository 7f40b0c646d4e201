package provider

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// What the tests that interrupt the real terraform binary (lost_answer_test.go, chaos_test.go) check
// after it, with the driver of tfdriver_test.go: the objects of the emulator compared with the objects
// of the state, and terraform's diagnostics for the failure messages.

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

// emuObject is an object the emulator holds, under the type of the resource that manages it.
type emuObject struct {
	Type, ID, Name string
}

func (o emuObject) String() string { return fmt.Sprintf("%s %s (%s)", o.Type, o.ID, o.Name) }

// emulatorObjects lists the objects of the test project (services that are DELETED are gone).
func emulatorObjects(srv *emulatortest.Server) []emuObject {
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

// objectAudit compares the emulator with the state.
type objectAudit struct {
	objects    []emuObject
	orphans    []emuObject    // in the emulator, not in the state
	duplicates []emuObject    // a second object of the same type and name
	missing    []string       // in the state, not in the emulator
	byType     map[string]int // objects per type
}

func auditObjects(t *testing.T, srv *emulatortest.Server, w *tfWorkdir) objectAudit {
	t.Helper()
	a := objectAudit{objects: emulatorObjects(srv), byType: map[string]int{}}
	ids := w.stateIDs()
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
func waitEmulatorEmpty(srv *emulatortest.Server) []emuObject {
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := emulatorObjects(srv)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// emptyPlanThenCleanDestroy checks that a plan after what has nothing to do and that a destroy
// succeeds and leaves the emulator empty.
func emptyPlanThenCleanDestroy(t *testing.T, srv *emulatortest.Server, w *tfWorkdir, what string) {
	t.Helper()
	if out, err := w.run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Errorf("the plan after %s is not empty (%v):\n%s", what, err, tail(out, 30))
	}
	if out, err := w.run("destroy", "-auto-approve", "-input=false"); err != nil {
		t.Errorf("destroy failed: %v\n%s", err, diagnostics(out))
	}
	if left := waitEmulatorEmpty(srv); len(left) > 0 {
		t.Errorf("after destroy the emulator still holds %v", left)
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
