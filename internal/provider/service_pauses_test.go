package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// This run's pauses: what the plan of a service says of its pause after the apply (known until a plan
// makes it unknown again), and which services the apply's create or update left paused; each run
// (each provider data) keeps its own.
func TestRunPauses(t *testing.T) {
	var run, other providerData
	if _, known := run.pauses.afterApply("s1"); known || run.pauses.pausedByThisRun("s1") {
		t.Fatal("a service this run knows nothing of: its pause is known")
	}
	run.pauses.plan("s1", true)
	run.pauses.plan("s2", false)
	if paused, known := run.pauses.afterApply("s1"); !paused || !known {
		t.Errorf("s1 planned paused: afterApply = %v, %v", paused, known)
	}
	if paused, known := run.pauses.afterApply("s2"); paused || !known {
		t.Errorf("s2 planned running: afterApply = %v, %v", paused, known)
	}
	run.pauses.unplanned("s1")
	if _, known := run.pauses.afterApply("s1"); known {
		t.Error("s1 planned unknown after paused: the earlier plan still counts")
	}
	if run.pauses.pausedByThisRun("s2") {
		t.Error("s2 was planned, not paused by the apply: pausedByThisRun")
	}
	run.pauses.leftPaused("s2")
	if !run.pauses.pausedByThisRun("s2") {
		t.Error("s2 left paused by the apply: not pausedByThisRun")
	}
	if _, known := run.pauses.afterApply("s2"); !known {
		t.Error("leftPaused forgot the plan of s2")
	}
	if _, known := other.pauses.afterApply("s2"); known || other.pauses.pausedByThisRun("s2") {
		t.Error("another run sees this run's pauses")
	}
}

// runsPausable is runsBase with the service's paused set by var.paused.
var runsPausable = strings.Replace(runsBase, "  password_wo_version       = var.password_version\n",
	"  password_wo_version       = var.password_version\n  paused                    = var.paused\n", 1) + `
variable "paused" {
  type    = bool
  default = false
}
`

// TestAccServiceCredentials_pauseResume: with the logins of the connecting guide configured
// (runsLogins), pausing the service is one apply that exits 0 (the logins warn, with null values),
// resuming it is one apply, also after a pause through the API (the console, the pause action),
// each re-plan is empty, a destroy of the paused service is one run, and
// no login is left where the endpoint was reachable. On the acceptance tests' CLI: Terraform, or
// OpenTofu, which refuses an ephemeral result that is not wholly known.
func TestAccServiceCredentials_pauseResume(t *testing.T) {
	skipUnlessAcc(t)
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	out := t.TempDir()
	w := newTFWorkdirOnAccCLI(t, srv, runsPausable+runsLogins(out))
	tofu := w.opts.addr != ""
	vars := func(paused bool) []string {
		return []string{"-var", "admin_password=admin-Pw/1", "-var", "password_version=1", "-var", "region=us-east-1", "-var", fmt.Sprintf("paused=%v", paused)}
	}
	run := func(what string, args ...string) string {
		t.Helper()
		start := time.Now()
		o, err := w.run(append(args, "-auto-approve", "-input=false", "-no-color")...)
		if err != nil {
			t.Fatalf("%s: one run failed: %v\n%s", what, err, tail(o, 60))
		}
		t.Logf("%s: one run, %s", what, time.Since(start).Round(100*time.Millisecond))
		return o
	}
	replanEmpty := func(what string, paused bool) {
		t.Helper()
		if o, err := w.run(append([]string{"plan", "-detailed-exitcode", "-input=false", "-no-color"}, vars(paused)...)...); err != nil {
			t.Fatalf("%s: the plan after the apply is not empty (%v):\n%s", what, err, tail(o, 40))
		}
	}
	loginsLeft := func(what string) {
		t.Helper()
		attrs, _ := w.serviceState()
		id, _ := attrs["id"].(string)
		in := pg.Instance(id)
		c, err := pgLogin(ctx, in.Host(), in.Port(), "admin-Pw/1")
		if err != nil {
			t.Fatalf("%s: tsdbadmin: %v", what, err)
		}
		defer func() { _ = c.Close(context.WithoutCancel(ctx)) }()
		var left int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%'`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Errorf("%s: %d logins left", what, left)
		}
	}

	run("service, role and logins", append([]string{"apply"}, vars(false)...)...)
	replanEmpty("created", false)
	loginsLeft("created")

	o := run("paused, logins configured", append([]string{"apply"}, vars(true)...)...)
	// Terraform opens the logins after the pause (and they warn); OpenTofu opens none that nothing
	// running in the apply uses.
	if !tofu && (!strings.Contains(o, "No login made on service") || !strings.Contains(o, "PAUSED")) {
		t.Errorf("the apply that paused did not warn that no login was made:\n%s", diagnostics(o))
	}
	replanEmpty("paused", true)

	run("resumed, logins configured", append([]string{"apply"}, vars(false)...)...)
	replanEmpty("resumed", false)
	loginsLeft("resumed")

	// Paused through the API (as the console and the dbcloud_service_pause action pause it): the
	// same one apply resumes it, as the page says, whatever paused it.
	client := testClient(t, srv)
	attrs, _ := w.serviceState()
	id, _ := attrs["id"].(string)
	if _, err := client.StopService(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(ctx, client, id, api.PAUSED); err != nil {
		t.Fatal(err)
	}
	run("resumed after a pause through the API", append([]string{"apply"}, vars(false)...)...)
	if svc, err := client.GetService(ctx, id); err != nil || svc.Status == nil || *svc.Status != api.READY {
		t.Fatalf("after the apply that resumes, the service is %v (%v), want READY", svc, err)
	}
	replanEmpty("resumed after a pause through the API", false)
	loginsLeft("resumed after a pause through the API")

	run("paused again", append([]string{"apply"}, vars(true)...)...)
	run("destroy while paused", append([]string{"destroy"}, vars(true)...)...)
	if left := waitEmulatorEmpty(srv); len(left) > 0 {
		t.Errorf("left after the destroy: %v", left)
	}
}
