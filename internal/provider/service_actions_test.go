package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// The actions dbcloud_service_restart, _pause and _resume. terraform-plugin-testing has no action
// steps, so these tests drive the acceptance tests' terraform binary (TF_ACC_TERRAFORM_PATH, else
// terraform on PATH; skipped below 1.14, so they run on the Terraform 1.16 of the CLI matrix) with the
// provider served in this process, as the query round trip does.

// TestServiceActionSteps: what each action does for each status, before any call.
func TestServiceActionSteps(t *testing.T) {
	const id = "abcde12345"
	for _, tc := range []struct {
		op             serviceOp
		status         string
		wait           bool
		steps, warning string // steps: the step names joined by "; " (first word of each)
		err            string
	}{
		{op: opRestart, status: "READY", wait: true, steps: "stopping; waiting PAUSED; starting; waiting READY"},
		{op: opRestart, status: "READY", wait: false, steps: "stopping; waiting PAUSED; starting"},
		{op: opRestart, status: "CONFIGURING", wait: true, steps: "stopping; waiting PAUSED; starting; waiting READY"},
		{op: opRestart, status: "PAUSED", wait: true, err: "Use the dbcloud_service_resume action"},
		{op: opRestart, status: "PAUSING", wait: true, err: "is PAUSING"},
		{op: opPause, status: "READY", wait: true, steps: "stopping; waiting PAUSED"},
		{op: opPause, status: "READY", wait: false, steps: "stopping"},
		{op: opPause, status: "PAUSED", wait: true, warning: "already PAUSED"},
		{op: opPause, status: "PAUSING", wait: true, steps: "waiting PAUSED", warning: "already PAUSING"},
		{op: opPause, status: "PAUSING", wait: false, warning: "already PAUSING"},
		{op: opResume, status: "PAUSED", wait: true, steps: "starting; waiting READY"},
		{op: opResume, status: "PAUSED", wait: false, steps: "starting"},
		{op: opResume, status: "PAUSING", wait: true, steps: "starting; waiting READY"},
		{op: opResume, status: "READY", wait: true, warning: "is READY, not paused"},
		{op: opResume, status: "RESUMING", wait: true, steps: "waiting READY", warning: "already RESUMING"},
		{op: opResume, status: "CONFIGURING", wait: true, warning: "is CONFIGURING, not paused"},
		{op: opResume, status: "DELETING", wait: true, err: "is DELETING"},
		{op: opPause, status: "DELETED", wait: true, err: "is DELETED"},
		{op: opRestart, status: "DELETING", wait: true, err: "is DELETING"},
	} {
		t.Run(fmt.Sprintf("%d/%s/wait=%v", tc.op, tc.status, tc.wait), func(t *testing.T) {
			steps, warning, err := serviceActionSteps(tc.op, id, tc.status, tc.wait)
			if (err != nil) != (tc.err != "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			var names []string
			for _, s := range steps {
				f := strings.Fields(s.what)
				name := f[0]
				if name == "waiting" {
					name += " " + f[len(f)-1]
				}
				names = append(names, name)
			}
			if got := strings.Join(names, "; "); got != tc.steps {
				t.Errorf("steps %q, want %q", got, tc.steps)
			}
			if (warning == "") != (tc.warning == "") || !strings.Contains(warning, tc.warning) {
				t.Errorf("warning %q, want %q", warning, tc.warning)
			}
		})
	}
}

// actionTest is one test's terraform working directory with a service made by the configuration.
type actionTest struct {
	tf  *tfWorkdir
	srv *emulatortest.Server
	id  string // the service's id
}

// actionsConfig declares one action of each type (restart, pause, resume, and a pause with wait =
// false) on dbcloud_service.s, whose `paused` is left unset (as the Day-2 operations guide advises).
const actionsConfig = `
resource "dbcloud_service" "s" {
  name = "day2"
}

action "dbcloud_service_restart" "restart" {
  config {
    service_id = dbcloud_service.s.id
  }
}

action "dbcloud_service_pause" "pause" {
  config {
    service_id = dbcloud_service.s.id
    timeouts {
      invoke = "5m"
    }
  }
}

action "dbcloud_service_pause" "pause_nowait" {
  config {
    service_id = dbcloud_service.s.id
    wait       = false
  }
}

action "dbcloud_service_resume" "resume" {
  config {
    service_id = dbcloud_service.s.id
  }
}

action "dbcloud_service_pause" "pause_2s" {
  config {
    service_id = dbcloud_service.s.id
    timeouts {
      invoke = "2s"
    }
  }
}
`

// newActionTest applies the configuration (provider block + body) on a fresh emulator reached
// through baseURL (empty: the emulator itself) and returns the service's id.
func newActionTest(t *testing.T, body string, mods ...func(*emulator.Options)) *actionTest {
	t.Helper()
	testAccPreCheck(t)
	return newActionTestOn(t, newTerraform(t, "1.14.0"), body, mods...)
}

// newActionTestOn is newActionTest with the terraform tf (and the provider it is served).
func newActionTestOn(t *testing.T, tf *tfWorkdir, body string, mods ...func(*emulator.Options)) *actionTest {
	t.Helper()
	srv := newTestEmulator(t, mods...)
	at := newActionWorkdir(t, tf, srv, providerBlock(srv)+body)
	tf.must("apply", "-auto-approve", "-input=false")
	attrs, _ := at.tf.serviceState()
	at.id, _ = attrs["id"].(string)
	if at.id == "" {
		t.Fatalf("no service id in the state: %v", attrs)
	}
	t.Cleanup(func() {
		// Whatever the test left, destroy succeeds once the service is settled.
		if svc, ok := srv.Service(testProjectID, at.id); ok && deref(svc.Status) != api.READY && deref(svc.Status) != api.PAUSED {
			srv.SetServiceStatus(testProjectID, at.id, api.READY)
		}
		at.tf.must("destroy", "-auto-approve", "-input=false")
	})
	return at
}

// newActionWorkdir writes the configuration cfg for terraform tf and runs init, on the emulator srv;
// nothing is applied.
func newActionWorkdir(t *testing.T, tf *tfWorkdir, srv *emulatortest.Server, cfg string) *actionTest {
	t.Helper()
	at := &actionTest{tf: tf, srv: srv}
	at.write(t, cfg)
	tf.must("init", "-input=false")
	return at
}

func (at *actionTest) write(t *testing.T, cfg string) {
	t.Helper()
	writeFile(t, filepath.Join(at.tf.dir, "main.tf"), cfg)
}

// invoke runs `terraform apply -invoke=action.<addr>` with an empty request log before, and returns the
// output, the exit code and the state-changing calls the API received, in order.
func (at *actionTest) invoke(t *testing.T, addr string) (string, int, []string) {
	t.Helper()
	at.srv.ResetRequests()
	out, code := at.tf.runCode("apply", "-auto-approve", "-input=false", "-invoke=action."+addr)
	return out, code, at.changes(t)
}

// invokeOK invokes the action addr (what names it in failures), which must exit 0 having sent exactly
// the state-changing calls; the service's status after it must be status (unless empty). It returns
// the output.
func (at *actionTest) invokeOK(t *testing.T, what, addr string, status api.ServiceStatus, calls ...string) string {
	t.Helper()
	out, code, ops := at.invoke(t, addr)
	if code != 0 {
		t.Fatalf("%s: exit code %d\n%s", what, code, out)
	}
	wantCalls(t, what, ops, calls...)
	if status == "" {
		return out
	}
	if st := at.status(t); st != status {
		t.Errorf("after %s: status %s, want %s", what, st, status)
	}
	return out
}

// changes is the request log's state-changing calls (operation ids) in order; it fails the test for a
// read other than a service read, the list of services or the check of the credentials.
func (at *actionTest) changes(t *testing.T) []string {
	t.Helper()
	var ops []string
	for _, r := range at.srv.Requests() {
		switch {
		case r.Method != http.MethodGet:
			ops = append(ops, r.OperationID)
		case r.OperationID == "getAuthInfo":
			// The plan-time check of the credentials, once in a run that plans a create
			// (credentials_check.go): not a call of the action.
		case r.OperationID != "getService" && r.OperationID != "listServices":
			t.Errorf("unexpected read %s %s (%s)", r.Method, r.Path, r.OperationID)
		}
	}
	return ops
}

func (at *actionTest) status(t *testing.T) api.ServiceStatus {
	t.Helper()
	svc, ok := at.srv.Service(testProjectID, at.id)
	if !ok {
		t.Fatalf("service %s is gone", at.id)
	}
	return deref(svc.Status)
}

// emptyPlan checks that a plan after the action has nothing to do.
func (at *actionTest) emptyPlan(t *testing.T, after string) {
	t.Helper()
	if out, code := at.tf.runCode("plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Errorf("after %s: the next plan is not empty (exit code %d):\n%s", after, code, out)
	}
}

func wantCalls(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: the API received the state-changing calls %v, want exactly %v", what, got, want)
	}
}

// Each action invoked with -invoke: the calls in order, the status after, progress messages and an
// empty plan after; the no-ops (pause of a PAUSED service, resume of a READY one) warn and send nothing.
func TestAccServiceActions_invoke(t *testing.T) {
	t.Parallel()
	at := newActionTest(t, actionsConfig)

	out := at.invokeOK(t, "restart", "dbcloud_service_restart.restart", api.READY, "stopService", "startService")
	for _, want := range []string{"stopping service " + at.id, "to become PAUSED: PAUSED", "starting service " + at.id, "to become READY: READY", "done after"} {
		if !strings.Contains(out, want) {
			t.Errorf("restart: no progress message %q in the output:\n%s", want, out)
		}
	}
	at.emptyPlan(t, "restart")

	at.invokeOK(t, "pause", "dbcloud_service_pause.pause", api.PAUSED, "stopService")
	// paused is unset in the configuration: the next plan keeps the service paused.
	at.emptyPlan(t, "pause")

	out = at.invokeOK(t, "second pause", "dbcloud_service_pause.pause", "")
	if !words("Warning: Could not pause the service: nothing to do", "Service "+at.id+" is already PAUSED: nothing was sent.").MatchString(out) {
		t.Errorf("second pause: no warning that nothing was done:\n%s", out)
	}

	out, code, _ := at.invoke(t, "dbcloud_service_restart.restart")
	if code == 0 || !words("Error: Could not restart the service", "is PAUSED", "Use the dbcloud_service_resume action").MatchString(out) {
		t.Errorf("restart of a paused service: exit code %d, want an error:\n%s", code, out)
	}
	wantCalls(t, "restart of a paused service", at.changes(t))

	at.invokeOK(t, "resume", "dbcloud_service_resume.resume", api.READY, "startService")
	at.emptyPlan(t, "resume")

	out = at.invokeOK(t, "second resume", "dbcloud_service_resume.resume", "")
	if !words("Warning: Could not resume the service: nothing to do", "is READY, not paused: nothing was sent.").MatchString(out) {
		t.Errorf("second resume: no warning that nothing was done:\n%s", out)
	}
}

// wait = false returns once the API accepted the stop: the emulator keeps the service PAUSING for ten
// minutes, so an action that waited for PAUSED would not return. Then timeouts.invoke ends a wait.
func TestAccServiceActions_noWait(t *testing.T) {
	t.Parallel()
	at := newActionTest(t, actionsConfig, func(o *emulator.Options) { o.Timing.ServicePausing = 10 * time.Minute })
	at.invokeOK(t, "pause with wait = false", "dbcloud_service_pause.pause_nowait", api.PAUSING, "stopService")
	// A pause of the PAUSING service sends nothing more and waits, here until its 2s timeout.
	out, code, ops := at.invoke(t, "dbcloud_service_pause.pause_2s")
	if code == 0 || !words("Warning: Could not pause the service: nothing to do", "is already PAUSING").MatchString(out) ||
		!words("Error: Could not pause the service: timed out", "timed out after", "waiting for service "+at.id+" to become PAUSED: last status PAUSING",
			"Raise timeouts.invoke").MatchString(out) {
		t.Errorf("pause of a PAUSING service with a 2s timeout: exit code %d, want a warning and a timeout error:\n%s", code, out)
	}
	wantCalls(t, "pause of a PAUSING service", ops)
	// Let it finish.
	at.srv.SetServiceStatus(testProjectID, at.id, api.PAUSED)
	at.emptyPlan(t, "pause with wait = false")
}

// An action_trigger on an in-place update: renaming the service restarts it after the rename. The
// action names the service through `caller` (the triggering resource; Terraform >= 1.16: before, a
// reference to the triggering resource is a cycle, see the Day-2 operations guide).
func TestAccServiceActions_trigger(t *testing.T) {
	t.Parallel()
	newTerraform(t, "1.16")
	cfg := func(name string) string {
		return fmt.Sprintf(`
resource "dbcloud_service" "s" {
  name = %q
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.dbcloud_service_restart.restart]
    }
  }
}

action "dbcloud_service_restart" "restart" {
  config {
    service_id = caller.id
  }
}
`, name)
	}
	at := newActionTest(t, cfg("day2"))
	wantCalls(t, "create (no after_create trigger)", at.changes(t), "createService")

	at.write(t, providerBlock(at.srv)+cfg("day2-renamed"))
	at.srv.ResetRequests()
	out := at.tf.must("apply", "-auto-approve", "-input=false")
	wantCalls(t, "rename with an after_update trigger", at.changes(t), "renameService", "stopService", "startService")
	if !strings.Contains(out, "1 changed") || !strings.Contains(out, "Action complete: action.dbcloud_service_restart.restart (triggered by dbcloud_service.s)") {
		t.Errorf("the apply did not update the service in place and then run the triggered restart:\n%s", out)
	}
	if svc, _ := at.srv.Service(testProjectID, at.id); deref(svc.Name) != "day2-renamed" || deref(svc.Status) != api.READY {
		t.Errorf("after the apply: name %q status %s, want day2-renamed, READY", deref(svc.Name), deref(svc.Status))
	}
	at.emptyPlan(t, "the triggered restart")
}

// A service that answers 409 to the stop: the action waits it out with the one busy-retry and sends
// the stop again; progress shows the busy status.
func TestAccServiceActions_busy(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	proxy := &svcConflictProxy{srv: srv}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	id := netTestService(t, srv, "busy-action")
	at := &actionTest{tf: tf, srv: srv, id: id}
	at.write(t, proxyProviderBlock(ts.URL)+fmt.Sprintf(`
action "dbcloud_service_pause" "pause" {
  config {
    service_id = %q
  }
}
`, id))
	tf.must("init", "-input=false")
	proxy.mu.Lock()
	proxy.suffix, proxy.conflicts = "/stop", 2
	proxy.mu.Unlock()
	out, code, ops := at.invoke(t, "dbcloud_service_pause.pause")
	if code != 0 {
		t.Fatalf("pause of a busy service: exit code %d\n%s", code, out)
	}
	proxy.mu.Lock()
	seen := proxy.seen
	proxy.mu.Unlock()
	if seen != 3 {
		t.Errorf("the provider sent %d stops, want 3 (two answered 409, one accepted)", seen)
	}
	wantCalls(t, "pause of a busy service (behind the proxy's two 409s)", ops, "stopService")
	if !strings.Contains(out, "to accept the stop: busy (HTTP 409: service is UPGRADING, not READY)") {
		t.Errorf("no progress message about the 409:\n%s", out)
	}
	if st := at.status(t); st != api.PAUSED {
		t.Errorf("status %s, want PAUSED", st)
	}
}

// A service id that does not exist fails with a clear error after one read; one that is not a service
// id fails at plan, before any request.
func TestAccServiceActions_missingAndInvalid(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	at := newActionWorkdir(t, tf, srv, providerBlock(srv)+`
action "dbcloud_service_resume" "missing" {
  config {
    service_id = "zzzzz00000"
  }
}
`)
	out, code, ops := at.invoke(t, "dbcloud_service_resume.missing")
	if code == 0 || !words("Error: Service not found", "No service zzzzz00000 exists in project "+testProjectID, "nothing was sent", "404").MatchString(out) {
		t.Errorf("resume of a missing service: exit code %d, want a not-found error:\n%s", code, out)
	}
	wantCalls(t, "resume of a missing service", ops)
	if n := srv.Calls("getService"); n != 1 {
		t.Errorf("%d service reads, want 1", n)
	}

	for _, bad := range []string{"", "NotAnId", "abc", "abcdefghijk"} {
		at.write(t, providerBlock(srv)+fmt.Sprintf(`
action "dbcloud_service_restart" "bad" {
  config {
    service_id = %q
  }
}
`, bad))
		out, code, _ := at.invoke(t, "dbcloud_service_restart.bad")
		if code == 0 || !words("must be a service id: 10 lower-case letters and digits").MatchString(out) {
			t.Errorf("service_id %q: exit code %d, want a validation error:\n%s", bad, code, out)
		}
		if n := srv.Calls(""); n != 0 {
			t.Errorf("service_id %q: the API received %d requests, want none", bad, n)
		}
	}
}

// Ctrl-C while the pause waits for PAUSED: terraform stops promptly with an error that says what goes
// on, the stop was sent once and nothing else; invoking the pause again waits for the end.
func TestAccServiceActions_interrupt(t *testing.T) {
	t.Parallel()
	at := newActionTest(t, actionsConfig, func(o *emulator.Options) { o.Timing.ServicePausing = 10 * time.Minute })
	at.srv.ResetRequests()
	p := at.tf.start("apply", "-auto-approve", "-input=false", "-invoke=action.dbcloud_service_pause.pause")
	// Wait until the stop was accepted and the action polls the PAUSING service, then Ctrl-C.
	waitUntil(2*time.Minute, func() bool {
		return at.srv.Calls("stopService") > 0 && at.status(t) == api.PAUSING && at.srv.Calls("getService") >= 4
	})
	if at.srv.Calls("stopService") == 0 {
		_ = p.cmd.Process.Kill()
		t.Fatalf("the action sent no stop:\n%s", p.out)
	}
	p.interrupt(t)
	err, out := p.err, p.out
	// The provider stops its wait at once and answers an error, but terraform-plugin-go's server
	// sends no event once Terraform has asked the provider to stop (its InvokeAction returns when the
	// stop context is done), so Terraform shows neither that error nor a completion, and exits 0.
	t.Logf("the interrupted terraform apply exited: %v\n%s", err, out.String())
	if !strings.Contains(out.String(), "Interrupt received") || strings.Contains(out.String(), "Action complete: action.dbcloud_service_pause.pause") {
		t.Errorf("interrupted action: want an interrupt and no completed action:\n%s", out.String())
	}
	wantCalls(t, "interrupted pause", at.changes(t), "stopService")
	if st := at.status(t); st != api.PAUSING {
		t.Errorf("after the interrupt: status %s, want PAUSING (the stop goes on)", st)
	}

	// Invoked again, the pause sends nothing and waits for PAUSED.
	at.srv.SetServiceStatusFor(testProjectID, at.id, api.PAUSING, 500*time.Millisecond, api.PAUSED)
	at.invokeOK(t, "second pause", "dbcloud_service_pause.pause", api.PAUSED)
}
