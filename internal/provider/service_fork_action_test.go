package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// The action dbcloud_service_fork, driven like the other actions (service_actions_test.go) through the
// acceptance tests' terraform: -invoke from Terraform 1.14, and the before_destroy action trigger with
// caller.id from Terraform 1.16 (the Terraform of the CLI matrix, TERRAFORM_NEXT_VERSION, runs them).

func TestDefaultForkName(t *testing.T) {
	at := time.Date(2026, 11, 25, 18, 24, 42, 0, time.FixedZone("CET", 3600))
	if got, want := defaultForkName("orders", at), "orders-20261125T172442Z"; got != want {
		t.Errorf("defaultForkName = %q, want %q (UTC)", got, want)
	}
	long := strings.Repeat("é", 128)
	got := defaultForkName(long, at)
	if n := len([]rune(got)); n != 128 || !strings.HasSuffix(got, "-20261125T172442Z") || !strings.HasPrefix(got, strings.Repeat("é", 111)) {
		t.Errorf("defaultForkName of a 128-character name = %q (%d characters), want 111 of its characters and the suffix, 128 in all", got, n)
	}
}

func TestForkSourceProblem(t *testing.T) {
	svc := func(st api.ServiceStatus, standby bool) *api.Service {
		s := &api.Service{ServiceID: ptr("abcde12345"), Status: ptr(st)}
		if standby {
			s.ForkedFrom = &api.ForkedFrom{ServiceID: ptr("prim000001"), IsStandby: ptr(true)}
		}
		return s
	}
	for _, tc := range []struct {
		svc  *api.Service
		want string // "" = can be forked
	}{
		{svc(api.READY, false), ""},
		{svc(api.PAUSED, false), "is PAUSED: the API forks only a running (READY) service, so nothing was forked. Resume it first"},
		{svc(api.PAUSING, false), "is PAUSING"},
		{svc(api.CONFIGURING, false), "is CONFIGURING, not READY"},
		{svc(api.QUEUED, false), "is QUEUED, not READY"},
		{svc(api.DELETING, false), "is DELETING: it is being or was deleted"},
		{svc(api.READY, true), "is a read replica set of service prim000001"},
	} {
		got := forkSourceProblem(tc.svc)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s (standby %v): %q, want %q", deref(tc.svc.Status), tc.svc.ForkedFrom != nil, got, tc.want)
		}
	}
}

// forksOf lists the services forked from source, oldest first.
func forksOf(srv *emulatortest.Server, source string) []api.Service {
	var out []api.Service
	for _, s := range srv.Services(testProjectID) {
		if s.ForkedFrom != nil && deref(s.ForkedFrom.ServiceID) == source && deref(s.Status) != api.DELETED {
			out = append(out, s)
		}
	}
	return out
}

// forkCalls counts the fork calls the emulator received since its request log was last reset (sent),
// and those that reached its handler: not met by the outage, which drops them (status 0) or answers
// 503 (nothing else answers 503 in these tests).
func forkCalls(srv *emulatortest.Server) (sent, handled int) {
	for _, r := range srv.Requests() {
		if r.OperationID != "forkService" {
			continue
		}
		sent++
		if r.Status != 0 && r.Status != http.StatusServiceUnavailable {
			handled++
		}
	}
	return sent, handled
}

// oneForkOf checks that exactly one fork of the source exists, that it is the one in state (fork, a
// dbcloud_service address; "" for none), and that exactly one fork call reached the API's handler.
func oneForkOf(t *testing.T, srv *emulatortest.Server, what, sourceID, forkID string) error {
	forks := forksOf(srv, sourceID)
	sent, handled := forkCalls(srv)
	t.Logf("%s: %d fork calls sent, %d reached the API's handler; %d forks of %s", what, sent, handled, len(forks), sourceID)
	if len(forks) != 1 {
		ids := make([]string, 0, len(forks))
		for _, f := range forks {
			ids = append(ids, deref(f.ServiceID))
		}
		return fmt.Errorf("%s: %d forks of %s (%s), want exactly 1", what, len(forks), sourceID, strings.Join(ids, ", "))
	}
	if forkID != "" && deref(forks[0].ServiceID) != forkID {
		return fmt.Errorf("%s: the fork of %s is %s, but state holds %s", what, sourceID, deref(forks[0].ServiceID), forkID)
	}
	if handled != 1 {
		return fmt.Errorf("%s: %d fork calls reached the API's handler, want 1", what, handled)
	}
	return nil
}

// serviceExists reports whether the emulator holds the service (DELETED is gone).
func serviceExists(srv *emulatortest.Server, id string) bool {
	svc, ok := srv.Service(testProjectID, id)
	return ok && deref(svc.Status) != api.DELETED
}

const forkActionsConfig = `
resource "dbcloud_service" "s" {
  name = "orders"
}

action "dbcloud_service_fork" "paused" {
  config {
    service_id = dbcloud_service.s.id
    pause      = true
  }
}

action "dbcloud_service_fork" "named" {
  config {
    service_id = dbcloud_service.s.id
    name       = "orders-copy"
    strategy   = "LAST_SNAPSHOT"
  }
}
`

var defaultForkNamePattern = regexp.MustCompile(`^orders-\d{8}T\d{6}Z$`)

// -invoke: one fork, paused when asked, progress that names it, an empty plan after; a lost answer is
// resolved by looking (one fork, one fork call); a paused source is refused before any write.
func TestAccServiceForkAction_invoke(t *testing.T) {
	t.Parallel()
	at := newActionTest(t, forkActionsConfig)

	out, code, ops := at.invoke(t, "dbcloud_service_fork.paused")
	if code != 0 {
		t.Fatalf("fork with pause = true: exit code %d\n%s", code, out)
	}
	wantCalls(t, "fork with pause = true", ops, "forkService", "stopService")
	forks := forksOf(at.srv, at.id)
	if len(forks) != 1 {
		t.Fatalf("%d forks of %s, want 1: %v", len(forks), at.id, forks)
	}
	id, name := deref(forks[0].ServiceID), deref(forks[0].Name)
	if !defaultForkNamePattern.MatchString(name) || deref(forks[0].Status) != api.PAUSED {
		t.Errorf("fork %s: name %q status %s, want orders-<UTC timestamp>, PAUSED", id, name, deref(forks[0].Status))
	}
	for _, want := range []string{
		fmt.Sprintf("into a new service %q, strategy NOW", name),
		fmt.Sprintf("fork %s (%q) of service %s: QUEUED", id, name, at.id),
		"waiting for service " + id + " to become READY: READY",
		"stopping fork " + id + " (pause = true)",
		"waiting for service " + id + " to become PAUSED: PAUSED",
		fmt.Sprintf("fork %s (%q) is PAUSED after", id, name),
		fmt.Sprintf(`find it with data "dbcloud_services" { name = %q }`, name),
		"terraform import dbcloud_service.<name> " + id,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fork with pause = true: no progress message %q in the output:\n%s", want, out)
		}
	}
	if st := at.status(t); st != api.READY {
		t.Errorf("the source is %s after the fork, want READY", st)
	}
	at.emptyPlan(t, "the fork")

	// The fork is made, then the API answers 500: the action looks for it by name and goes on.
	at.srv.InjectFault("forkService", emulator.FaultCommitThenFail, 1)
	out, code, ops = at.invoke(t, "dbcloud_service_fork.named")
	if code != 0 {
		t.Fatalf("fork whose answer is lost: exit code %d\n%s", code, out)
	}
	wantCalls(t, "fork whose answer is lost", ops, "forkService")
	if at.srv.Calls("listServices") == 0 || !strings.Contains(out, `the answer to the fork was lost: looking for a new service "orders-copy" instead of forking again`) {
		t.Errorf("fork whose answer is lost: no look for the fork:\n%s", out)
	}
	forks = forksOf(at.srv, at.id)
	if len(forks) != 2 || deref(forks[1].Name) != "orders-copy" || deref(forks[1].Status) != api.READY {
		t.Fatalf("after the lost answer: forks %v, want the first and a READY orders-copy", forks)
	}
	if id := deref(forks[1].ServiceID); !strings.Contains(out, fmt.Sprintf("fork %s (%q) is READY after", id, "orders-copy")) {
		t.Errorf("fork whose answer is lost: no progress message naming the fork found (%s):\n%s", id, out)
	}
	at.emptyPlan(t, "the fork whose answer was lost")

	// A paused source: an error, and nothing sent.
	at.srv.PauseService(testProjectID, at.id)
	out, code, ops = at.invoke(t, "dbcloud_service_fork.paused")
	if code == 0 || !words("Error: Could not fork the service", "is PAUSED", "nothing was forked", "Resume it first").MatchString(out) {
		t.Errorf("fork of a paused service: exit code %d, want an error:\n%s", code, out)
	}
	wantCalls(t, "fork of a paused service", ops)
	if n := len(forksOf(at.srv, at.id)); n != 2 {
		t.Errorf("after the refused fork: %d forks, want still 2", n)
	}
	at.srv.SetServiceStatus(testProjectID, at.id, api.READY)
}

// Arguments that the API would refuse fail at plan, before any request; a missing source fails after
// one read.
func TestAccServiceForkAction_invalidAndMissing(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	at := newActionWorkdir(t, tf, srv, providerBlock(srv)+`
action "dbcloud_service_fork" "missing" {
  config {
    service_id = "zzzzz00000"
  }
}
`)
	out, code, ops := at.invoke(t, "dbcloud_service_fork.missing")
	if code == 0 || !words("Error: Could not fork the service: not found", "No service zzzzz00000 exists", "nothing was forked", "404").MatchString(out) {
		t.Errorf("fork of a missing service: exit code %d, want a not-found error:\n%s", code, out)
	}
	wantCalls(t, "fork of a missing service", ops)
	if n := srv.Calls("getService"); n != 1 {
		t.Errorf("%d service reads, want 1", n)
	}

	for _, tc := range []struct{ args, want string }{
		{`strategy = "PITR"`, "target_time is required when strategy is PITR"},
		{`target_time = "2026-01-31T12:00:00Z"`, "target_time is only used with strategy = \"PITR\" (the strategy is NOW)"},
		{`target_time = "yesterday"`, "must be an RFC 3339 timestamp"},
		{`strategy = "LATEST"`, "value must be one of"},
		{fmt.Sprintf("name = %q", strings.Repeat("n", 129)), "character count must be between 1 and 128"},
		{`name = ""`, "character count must be between 1 and 128"},
		{`cpu_millis = 2000`, `Attribute "memory_gbs" must be specified when "cpu_millis" is specified`},
		{`service_id_typo = 1`, "Unsupported argument"},
	} {
		at.write(t, providerBlock(srv)+fmt.Sprintf(`
action "dbcloud_service_fork" "bad" {
  config {
    service_id = "abcde12345"
    %s
  }
}
`, tc.args))
		out, code, _ := at.invoke(t, "dbcloud_service_fork.bad")
		if code == 0 || !words(tc.want).MatchString(out) {
			t.Errorf("%s: exit code %d, want a validation error %q:\n%s", tc.args, code, tc.want, out)
		}
		if n := srv.Calls(""); n != 0 {
			t.Errorf("%s: the API received %d requests, want none", tc.args, n)
		}
	}
}

// finalCopyConfig is a service with a final copy made before it is destroyed; %s is the service's
// extra arguments.
const finalCopyConfig = `
resource "dbcloud_service" "db" {
  name = "final-db"
%s
  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.dbcloud_service_fork.final]
      on_failure = halt
    }
  }
}

action "dbcloud_service_fork" "final" {
  config {
    service_id = caller.id
    pause      = true
  }
}
`

// terraform destroy with a before_destroy fork, on a service with real PostgreSQL: the copy is made
// first (paused), a row written before the destroy is on it, the source is gone.
func TestAccServiceForkAction_beforeDestroyPostgres(t *testing.T) {
	tf := newTerraform(t, "1.16")
	srv, _ := newPostgresEmulator(t)
	ctx := t.Context()
	tf.writeFile("main.tf", providerBlock(srv)+fmt.Sprintf(finalCopyConfig, ""))
	tf.must("init", "-input=false")
	tf.must("apply", "-auto-approve", "-input=false")
	attrs, _ := tf.serviceState()
	source, _ := attrs["id"].(string)
	host, _ := attrs["hostname"].(string)
	port, _ := attrs["port"].(float64)
	password, _ := attrs["initial_password"].(string)
	conn, err := pgLogin(ctx, host, int(port), password)
	if err != nil {
		t.Fatalf("login to %s: %v", source, err)
	}
	for _, sql := range []string{"CREATE TABLE notes (v text)", "INSERT INTO notes VALUES ('" + pgRow + "')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	_ = conn.Close(ctx)

	srv.ResetRequests()
	out := tf.must("destroy", "-auto-approve", "-input=false")
	forks := forksOf(srv, source)
	if len(forks) != 1 {
		t.Fatalf("%d forks of %s after the destroy, want 1:\n%s", len(forks), source, out)
	}
	fork := forks[0]
	id, name := deref(fork.ServiceID), deref(fork.Name)
	if !words("Action started: action.dbcloud_service_fork.final (triggered by dbcloud_service.db)",
		fmt.Sprintf("fork %s (%q) of service %s", id, name, source), fmt.Sprintf("fork %s (%q) is PAUSED", id, name),
		"Action complete: action.dbcloud_service_fork.final (triggered by dbcloud_service.db)",
		"dbcloud_service.db: Destruction complete").MatchString(out) {
		t.Errorf("the destroy did not fork (naming the fork %s %q) and then destroy:\n%s", id, name, out)
	}
	if serviceExists(srv, source) {
		t.Errorf("the source %s still exists after the destroy", source)
	}
	if deref(fork.Status) != api.PAUSED {
		t.Errorf("the fork is %s, want PAUSED", deref(fork.Status))
	}

	// The copy holds the row: start it and read it with the copy's own password.
	client := testClient(t, srv)
	if _, err := client.StartService(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(ctx, client, id, api.READY); err != nil {
		t.Fatal(err)
	}
	started, _ := srv.Service(testProjectID, id)
	fconn, err := pgLogin(ctx, deref(started.Endpoint.Host), deref(started.Endpoint.Port), srv.ServicePassword(testProjectID, id))
	if err != nil {
		t.Fatalf("login to the fork %s: %v", id, err)
	}
	defer func() { _ = fconn.Close(ctx) }()
	var v string
	if err := fconn.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil || v != pgRow {
		t.Errorf("row on the fork: %q, %v; want %q", v, err, pgRow)
	}
}

// The fork cannot be made: the service is kept, and so is its state, whether the destroy is an apply
// that removes the service (on_failure = halt stops it) or a full terraform destroy (Terraform turns the
// action's error into a warning there; the provider refuses the delete).
func TestAccServiceForkAction_beforeDestroyFails(t *testing.T) {
	t.Parallel()
	newTerraform(t, "1.16")
	cfg := func(count string) string {
		return fmt.Sprintf(finalCopyConfig, "  count = "+count)
	}
	at := newActionTest(t, cfg("1"))
	kept := func(what string) {
		t.Helper()
		if n := at.srv.Calls("deleteService"); n != 0 {
			t.Errorf("%s: %d deletes sent, want none", what, n)
		}
		if _, ok := at.srv.Service(testProjectID, at.id); !ok {
			t.Fatalf("%s: the service is gone", what)
		}
		if ids := at.tf.stateIDs()["dbcloud_service"]; len(ids) != 1 || ids[0] != at.id {
			t.Errorf("%s: the state holds services %v, want [%s]", what, ids, at.id)
		}
	}

	// 1. A paused source cannot be forked: an apply that removes the service (count = 0) stops.
	at.srv.PauseService(testProjectID, at.id)
	at.write(t, providerBlock(at.srv)+cfg("0"))
	at.srv.ResetRequests()
	out, code := at.tf.runCode("apply", "-auto-approve", "-input=false")
	if code == 0 || !words("Error: Could not fork the service", "is PAUSED", "nothing was forked").MatchString(out) {
		t.Errorf("apply removing a paused service: exit code %d, want the fork's error:\n%s", code, out)
	}
	wantCalls(t, "apply removing a paused service", at.changes(t))
	kept("apply removing a paused service")

	// 2. The same with terraform destroy: Terraform goes on after the failed action, the provider refuses.
	at.write(t, providerBlock(at.srv)+cfg("1"))
	at.srv.ResetRequests()
	out, code = at.tf.runCode("destroy", "-auto-approve", "-input=false")
	if code == 0 || !words("Error: Service not deleted: its copy was not made", "did not finish: Could not fork the service", "is PAUSED").MatchString(out) {
		t.Errorf("destroy of a paused service: exit code %d, want the provider's refusal:\n%s", code, out)
	}
	wantCalls(t, "destroy of a paused service", at.changes(t))
	kept("destroy of a paused service")

	// 3. The API refuses the fork call (400: nothing made, and no doubt about it): the destroy stops.
	// The fork was sent once.
	at.srv.SetServiceStatus(testProjectID, at.id, api.READY)
	at.srv.InjectFault("forkService", emulator.FaultEchoBody, 1)
	at.srv.ResetRequests()
	out, code = at.tf.runCode("destroy", "-auto-approve", "-input=false")
	if code == 0 || !words("Error: Service not deleted: its copy was not made", "did not finish: Could not fork the service").MatchString(out) {
		t.Errorf("destroy with a failing fork call: exit code %d, want the provider's refusal:\n%s", code, out)
	}
	wantCalls(t, "destroy with a failing fork call", at.changes(t), "forkService")
	if n := len(forksOf(at.srv, at.id)); n != 0 {
		t.Errorf("%d forks, want none", n)
	}
	kept("destroy with a failing fork call")
	at.emptyPlan(t, "the stopped destroys")

	// 4. Then the destroy succeeds (the next run has no memory of the failures), though the fork call
	// fails first (500, nothing made): the action looks for the fork, finds none, and forks again. One
	// copy, the source gone.
	at.srv.InjectFault("forkService", emulator.FaultServerError, 1)
	at.srv.ResetRequests()
	out = at.tf.must("destroy", "-auto-approve", "-input=false")
	if n := len(forksOf(at.srv, at.id)); n != 1 {
		t.Errorf("after the destroy, %d forks, want 1:\n%s", n, out)
	}
	if n := at.srv.Calls("forkService"); n != 2 || !strings.Contains(out, "the fork was not made: forking again") {
		t.Errorf("after the destroy, %d fork calls, want 2 (the failed one, then the one sent again once the look found nothing):\n%s", n, out)
	}
	if serviceExists(at.srv, at.id) {
		t.Errorf("the service still exists after the destroy:\n%s", out)
	}
}

// The fork's answer is lost and Ctrl-C comes while it is outstanding, in a terraform destroy: the
// provider looks for the fork (on a context Ctrl-C does not cancel) and finds it; one fork call, one
// fork; the source is not deleted and stays in state; the plan after is empty.
func TestAccServiceForkAction_lostAnswerInterrupted(t *testing.T) {
	t.Parallel()
	newTerraform(t, "1.16")
	at := newActionTest(t, fmt.Sprintf(finalCopyConfig, ""))
	committed := at.srv.HoldAnswer("forkService", 2*time.Minute)
	at.srv.ResetRequests()
	p := at.tf.start("destroy", "-auto-approve", "-input=false")
	select {
	case <-committed:
	case <-time.After(3 * time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatalf("no fork within three minutes:\n%s", p.out)
	}
	p.interrupt(t)
	err, out := p.err, p.out
	t.Logf("the interrupted destroy exited: %v\n%s", err, out.String())

	forks := forksOf(at.srv, at.id)
	if len(forks) != 1 {
		t.Fatalf("%d forks, want 1", len(forks))
	}
	name := deref(forks[0].Name)
	if !strings.Contains(out.String(), fmt.Sprintf("into a new service %q", name)) {
		t.Errorf("the progress before the interrupt does not name the fork %q:\n%s", name, out.String())
	}
	// The look: a list of the services that arrived after the fork call (the fork is in it from the
	// commit on). The log holds a request once it is answered, the held fork call once it is dropped.
	looked := func() bool {
		var forkAt time.Time
		for _, r := range at.srv.Requests() {
			if r.OperationID == "forkService" {
				forkAt = r.Time
			}
		}
		for _, r := range at.srv.Requests() {
			if !forkAt.IsZero() && r.OperationID == "listServices" && r.Status == 200 && r.Time.After(forkAt) {
				return true
			}
		}
		return false
	}
	if !waitUntil(time.Minute, looked) {
		t.Errorf("the provider did not look for the fork after its answer was lost")
	}
	if n := at.srv.Calls("forkService"); n != 1 {
		t.Errorf("%d fork calls, want 1", n)
	}
	if n := at.srv.Calls("deleteService"); n != 0 {
		t.Errorf("the source was deleted after Ctrl-C (%d deletes)", n)
	}
	// The delete waited for the action, which found the fork by looking: the refusal names it.
	if !words("Error: Service not deleted: its copy was not made", "did not finish: Could not finish the fork: interrupted:",
		fmt.Sprintf("The fork %s (%q) exists", deref(forks[0].ServiceID), name)).MatchString(out.String()) {
		t.Errorf("no refusal of the delete after Ctrl-C naming the fork found by looking:\n%s", out.String())
	}
	if _, ok := at.srv.Service(testProjectID, at.id); !ok {
		t.Fatalf("the source is gone")
	}
	if ids := at.tf.stateIDs()["dbcloud_service"]; len(ids) != 1 || ids[0] != at.id {
		t.Errorf("the state holds services %v, want [%s]", ids, at.id)
	}
	at.emptyPlan(t, "the interrupted destroy")
	if n := len(forksOf(at.srv, at.id)); n != 1 {
		t.Errorf("after the plan, %d forks, want still 1", n)
	}
}

// The action's own end of a lost answer followed by Ctrl-C, without terraform in between: the fork's
// answer is withheld, the request's context ends (as when Terraform asks the provider to stop), and the
// action looks for the fork, finds it, and ends with an error naming it, without blocking on progress
// that nobody reads any more; the source may not be deleted in this run.
func TestServiceForkAction_lostAnswerThenStop(t *testing.T) {
	t.Parallel()
	srv := newTestEmulator(t)
	source := netTestService(t, srv, "orders")
	a := NewServiceForkAction() // wrapped: Configure is the wrapper's
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	a.(action.ActionWithConfigure).Configure(t.Context(), action.ConfigureRequest{ProviderData: pd}, &action.ConfigureResponse{})
	var sresp action.SchemaResponse
	a.Schema(t.Context(), action.SchemaRequest{}, &sresp)
	raw := objectWith(t.Context(), sresp.Schema.Type(), map[string]tftypes.Value{
		"service_id": tftypes.NewValue(tftypes.String, source),
		"name":       tftypes.NewValue(tftypes.String, "orders-final"),
		"pause":      tftypes.NewValue(tftypes.Bool, true),
	})

	ctx, stop := context.WithCancel(context.Background())
	var progress []string
	resp := &action.InvokeResponse{SendProgress: func(ev action.InvokeProgressEvent) {
		if ctx.Err() != nil {
			select {} // as the plugin server: once stopped, nobody reads
		}
		progress = append(progress, ev.Message)
	}}
	committed := srv.HoldAnswer("forkService", time.Minute)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Invoke(ctx, action.InvokeRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: raw}}, resp)
	}()
	select {
	case <-committed:
		stop()
	case <-time.After(time.Minute):
		t.Fatal("no fork call within a minute")
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the action did not return after the stop")
	}
	// The held call enters the emulator's request log when its handler returns, once it sees the
	// client gone: wait for it (a shared machine may take a moment).
	waitUntil(30*time.Second, func() bool { return srv.Calls("forkService") > 0 })
	forks := forksOf(srv, source)
	if len(forks) != 1 || srv.Calls("forkService") != 1 {
		t.Fatalf("%d forks, %d fork calls; want 1 and 1", len(forks), srv.Calls("forkService"))
	}
	id := deref(forks[0].ServiceID)
	if got := firstErrorOf(resp.Diagnostics); !strings.Contains(got, fmt.Sprintf(`interrupted: The fork %s ("orders-final") exists`, id)) {
		t.Errorf("the action's error %q does not name the fork %s found by looking (progress: %q)", got, id, progress)
	}
	if !slices.ContainsFunc(progress, func(p string) bool { return strings.Contains(p, `into a new service "orders-final"`) }) {
		t.Errorf("no progress naming the fork before the call: %q", progress)
	}
	var diags diag.Diagnostics
	if !pd.copies.refuseDelete(t.Context(), source, &diags) || !strings.Contains(diags.Errors()[0].Detail(), "did not finish: Could not finish the fork: interrupted") {
		t.Errorf("a delete of the source is not refused after the interrupted fork: %v", diags)
	}
	if pd.copies.refuseDelete(t.Context(), id, &diags) {
		t.Errorf("a delete of the fork %s is refused", id)
	}
}

const forkActionOutageConfig = `
resource "dbcloud_service" "s" {
  name = "orders"
}

action "dbcloud_service_fork" "copy" {
  config {
    service_id = dbcloud_service.s.id
    name       = "orders-copy"
  }
}
`

// The dbcloud_service_fork action, invoked with the outage starting at its fork: it succeeds, one fork
// is made and is READY, the progress says what happened, the plan after is empty.
func TestAccServiceForkAction_outage(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	window := outageWindow(45 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		at := newActionTestOn(t, newTerraformServing(t, "1.14.0", outageProviderServer), forkActionOutageConfig)
		name := "fork action sent into " + window.String() + " of " + kind.String()
		started := time.Now()
		at.srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "forkService"})
		out, code, _ := at.invoke(t, "dbcloud_service_fork.copy")
		if code != 0 {
			t.Fatalf("%s: exit code %d\n%s", name, code, out)
		}
		if err := outageRidden(t, at.srv, name, &started)(nil); err != nil {
			t.Error(err)
		}
		if err := oneForkOf(t, at.srv, name, at.id, ""); err != nil {
			t.Fatal(err)
		}
		fork := forksOf(at.srv, at.id)[0]
		id := deref(fork.ServiceID)
		want := []string{fmt.Sprintf("fork %s (%q) is READY after", id, "orders-copy")}
		if kind == emulator.OutageDrop {
			// The dropped fork: looked for, not found, sent again.
			want = append(want,
				`the answer to the fork was lost: looking for a new service "orders-copy" instead of forking again`,
				`no service "orders-copy" appeared, so the fork was not made: forking again`)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no progress message %q in the output:\n%s", name, w, out)
			}
		}
		at.emptyPlan(t, name)
	})
}
