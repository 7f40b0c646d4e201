package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Issue 11 point 1: Ctrl-C while create waits. A real `terraform apply` talks to the provider served in
// this process (TF_REATTACH_PROVIDERS, as terraform-plugin-testing does), against a slow emulator; the
// test sends SIGINT to terraform while the new service is still QUEUED, then applies again. Exactly
// one create reaches the API, nothing is deleted, the interrupted apply left the service in state
// untainted, and the second apply waited for it and applied the remaining settings.

func TestAccService_interruptedCreateResumes(t *testing.T) {
	testAccPreCheck(t)
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceQueued = 10 * time.Minute })
	w := newTFWorkdir(t, srv, `
resource "dbcloud_service" "test" {
  name                      = "interrupted"
  connection_pooler_enabled = true
  password                  = "a-Passw0rd-1"
}
`)

	// 1. apply, interrupted while the create waits for READY.
	p := w.start("apply", "-auto-approve", "-input=false")
	var id string
	deadline := time.Now().Add(2 * time.Minute)
	for id == "" && time.Now().Before(deadline) {
		if svcs := srv.Services(testProjectID); len(svcs) > 0 {
			id = deref(svcs[0].ServiceID)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id == "" {
		_ = p.cmd.Process.Kill()
		t.Fatalf("no service was created:\n%s", p.out)
	}
	// Let the provider settle into its wait (a few polls), then Ctrl-C.
	for srv.Calls("getService") < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.interrupt(t)
	t.Logf("the interrupted terraform apply exited: %v", p.err)
	first := p.out.String()
	attrs, tainted := w.serviceState()
	if attrs["id"] != id || tainted {
		t.Fatalf("after the interrupt: id %v tainted %v, want %s untainted\n%s", attrs["id"], tainted, id, first)
	}
	if !strings.Contains(first, "the next apply resumes the wait") {
		t.Errorf("the interrupted apply did not say that the next apply resumes:\n%s", first)
	}

	// 2. The service becomes READY soon; the next apply waits for it and applies the rest.
	srv.SetServiceStatusFor(testProjectID, id, api.CONFIGURING, time.Second, api.READY)
	second, err := w.run("apply", "-auto-approve", "-input=false")
	if err != nil {
		t.Fatalf("second apply: %v\n%s", err, second)
	}
	if !strings.Contains(second, "0 added, 1 changed, 0 destroyed") {
		t.Errorf("second apply: want one in-place update:\n%s", second)
	}
	attrs, tainted = w.serviceState()
	if attrs["id"] != id || tainted || attrs["status"] != "READY" || attrs["connection_pooler_enabled"] != true {
		t.Errorf("after the second apply: id %v tainted %v status %v pooler %v; want %s, untainted, READY, pooler on",
			attrs["id"], tainted, attrs["status"], attrs["connection_pooler_enabled"], id)
	}
	for op, want := range map[string]int{"createService": 1, "deleteService": 0, "enablePooler": 1, "updatePassword": 1} {
		if got := srv.Calls(op); got != want {
			t.Errorf("emulator saw %d %s calls, want %d", got, op, want)
		}
	}
	if n := len(srv.Services(testProjectID)); n != 1 {
		t.Errorf("%d services in the emulator, want 1", n)
	}

	// 3. A third plan is empty; then clean up.
	if out, err := w.run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Errorf("plan after the resumed apply is not empty (%v):\n%s", err, out)
	}
	if out, err := w.run("destroy", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	// The destroy returned once the service read DELETED; the emulator keeps that record a while.
	if live := liveServices(srv); len(live) != 0 {
		t.Errorf("%d services left after destroy (not DELETED)", len(live))
	}
}
