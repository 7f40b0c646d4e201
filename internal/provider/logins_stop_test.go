package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/logins"
)

// TestStopDropsLoginsAndNamesTheRest: an interrupted operation takes every open login; one whose
// service cannot be reached is named, with its expiry and service, in a warning of the operation's
// answer (no secret in it), and its Close later has nothing more to say.
func TestStopDropsLoginsAndNamesTheRest(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0") // a port nobody listens on
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	tg, err := logins.NewTarget("127.0.0.1", port, "", true)
	if err != nil {
		t.Fatal(err)
	}
	tg.AdminPassword, tg.Login, tg.LoginPassword = "admin-secret", "tf_login_unreachable", "login-secret"
	tg.Service, tg.Expires = "svc0000001", time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)
	token := openLogins.Add(tg)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C: the operation's context is cancelled
	var diags diag.Diagnostics
	interruptedLogins(ctx, &diags)

	if openLogins.Take(token) != nil {
		t.Error("the login is still open after the interrupt")
	}
	if _, dropped := droppedAtStop.Load(token); !dropped {
		t.Error("Close would warn again for a login the interrupt took")
	}
	if diags.HasError() || len(diags) != 1 {
		t.Fatalf("diagnostics after the interrupt: %+v", diags)
	}
	d := diags[0]
	if !strings.Contains(d.Summary(), "tf_login_unreachable") || !strings.Contains(d.Detail(), "2026-11-26T18:00:00Z") ||
		!strings.Contains(d.Detail(), "svc0000001") || strings.Contains(d.Detail(), "secret") {
		t.Fatalf("warning: %s: %s", d.Summary(), d.Detail())
	}

	// An operation that was not interrupted leaves the logins open.
	token = openLogins.Add(tg)
	diags = nil
	interruptedLogins(context.Background(), &diags)
	if openLogins.Take(token) == nil || len(diags) != 0 {
		t.Errorf("an operation that ended normally dropped the logins: %+v", diags)
	}
}

// TestRunWalk: a walk that read or planned resources and applied none is planning; one that
// applied, or touched no resource, is not.
func TestRunWalk(t *testing.T) {
	var w runWalk
	if w.planning() {
		t.Error("a walk that touched nothing is planning")
	}
	w.readOrPlan()
	if !w.planning() {
		t.Error("a walk that read resources is not planning")
	}
	w.apply()
	if w.planning() {
		t.Error("a walk that applied a resource is planning")
	}
}

// TestLeftoverWarning: the warning of a login an earlier run left says it would have stopped
// working at its expiry, or that it had stopped working already when its expiry had passed, for a
// login dropped and for one that could not be (without a secret in it).
func TestLeftoverWarning(t *testing.T) {
	tg := &logins.Target{Service: "svc0000001", AdminPassword: "admin-secret"}
	for _, c := range []struct {
		l            logins.Leftover
		summary      string
		want, wantNo string
	}{
		{logins.Leftover{Login: "tf_login_a", Expires: "2026-11-26T18:00:00Z"}, "Dropped login tf_login_a, left by an earlier run",
			"(it would have stopped working at 2026-11-26T18:00:00Z)", "already"},
		{logins.Leftover{Login: "tf_login_b", Expires: "2026-11-25T18:00:00Z", Expired: true}, "Dropped login tf_login_b, left by an earlier run",
			"(it had stopped working at 2026-11-25T18:00:00Z already)", "would have"},
		{logins.Leftover{Login: "tf_login_c", Expires: "2026-11-26T18:00:00Z", Err: errors.New("refused admin-secret")}, "Login tf_login_c was not dropped",
			"It stops working at 2026-11-26T18:00:00Z anyway.", "admin-secret"},
		{logins.Leftover{Login: "tf_login_d", Expires: "2026-11-25T18:00:00Z", Expired: true, Err: errors.New("refused")}, "Login tf_login_d was not dropped",
			"It stopped working at 2026-11-25T18:00:00Z already.", "anyway"},
	} {
		summary, detail := leftoverWarning(tg, c.l)
		if summary != c.summary || !strings.Contains(detail, c.want) || !strings.Contains(detail, "svc0000001") || strings.Contains(detail, c.wantNo) {
			t.Errorf("%+v: %q / %q, want %q with %q and without %q", c.l, summary, detail, c.summary, c.want, c.wantNo)
		}
	}
}

// TestAccServiceCredentials_interrupted: Ctrl-C during an apply that has made a login (its
// migration still running) drops the login before terraform exits.
func TestAccServiceCredentials_interrupted(t *testing.T) {
	skipUnlessAcc(t)
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	out := t.TempDir()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(out, "started.json")
	w := newTFWorkdir(t, srv, runsBase)
	v := []string{"-var", "admin_password=admin-Pw/1", "-var", "password_version=1", "-var", "region=us-east-1"}
	if o, err := w.run(append([]string{"apply", "-auto-approve", "-input=false"}, v...)...); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(o, 40))
	}
	w.write(runsBase + fmt.Sprintf(`
ephemeral "dbcloud_service_credentials" "job" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
  ttl            = "2h"
}

resource "terraform_data" "job" {
  provisioner "local-exec" {
    command = "%[1]s && exec sleep 600"
    environment = {
      %[2]s = "sql"
      CREDS_URI = ephemeral.dbcloud_service_credentials.job.connection_uri
      CREDS_SQL = "SELECT 1"
      CREDS_OUT = %[3]q
    }
  }
}
`, bin, credsProbeEnv, marker))
	// The provider's binary, as users run it: Terraform does not close the logins after Ctrl-C, and
	// nothing of the provider is running while the provisioner is; the provider drops them when
	// Terraform stops it on the way out.
	p := w.startBinary(append([]string{"apply", "-auto-approve", "-input=false"}, v...)...)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if p.over || time.Now().After(deadline) {
			p.interrupt(t)
			t.Fatalf("the job never started:\n%s", tail(p.out.String(), 40))
		}
		time.Sleep(50 * time.Millisecond)
	}
	r, err := readProbe(marker)
	if err != nil || r.Err != "" {
		t.Fatalf("the job's login: %+v, %v", r, err)
	}
	p.interrupt(t)
	attrs, _ := w.serviceState()
	id, _ := attrs["id"].(string)
	in := pg.Instance(id)
	admin, err := pgLogin(ctx, in.Host(), in.Port(), "admin-Pw/1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(context.WithoutCancel(ctx)) }()
	var left int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", r.User).Scan(&left); err != nil {
		t.Fatal(err)
	}
	output := p.out.String()
	switch {
	case left == 0:
		t.Logf("Ctrl-C: login %s dropped", r.User)
	case strings.Contains(output, "Login "+r.User+" was not dropped") && strings.Contains(output, "stops working at"):
		t.Logf("Ctrl-C: login %s not dropped, and the warning says so", r.User)
	default:
		t.Errorf("after Ctrl-C login %s is still there and no warning names it:\n%s", r.User, tail(output, 40))
	}
	_ = pgbackend.AdminUser
}

// TestAccServiceCredentials_leftoverDropped: the service's endpoint goes down (the service paused
// behind Terraform's back) while a provisioner uses a login, and the provisioner fails the run:
// the login cannot be dropped then (and Terraform skips the close after an upstream error). The
// next apply of the same configuration drops it, and its warning names the login and its expiry;
// no login is left. The provider's binary, as users run it (its working directory is Terraform's).
func TestAccServiceCredentials_leftoverDropped(t *testing.T) {
	skipUnlessAcc(t)
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	client := testClient(t, srv)
	out := t.TempDir()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker, release, ok := filepath.Join(out, "started.json"), filepath.Join(out, "release"), filepath.Join(out, "ok")
	w := newTFWorkdir(t, srv, runsBase)
	v := []string{"apply", "-auto-approve", "-input=false", "-no-color", "-var", "admin_password=admin-Pw/1", "-var", "password_version=1", "-var", "region=us-east-1"}
	if o, err := w.run(v...); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(o, 40))
	}
	attrs, _ := w.serviceState()
	id, _ := attrs["id"].(string)
	w.write(runsBase + fmt.Sprintf(`
ephemeral "dbcloud_service_credentials" "job" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
  ttl            = "2h"
}

resource "terraform_data" "job" {
  provisioner "local-exec" {
    # Log in, then wait for the test (which stops the endpoint meanwhile): fail unless told ok.
    command = "test -f %[4]s || { %[1]s && until test -f %[5]s; do sleep 0.1; done; test -f %[4]s; }"
    environment = {
      %[2]s = "sql"
      CREDS_URI     = ephemeral.dbcloud_service_credentials.job.connection_uri
      CREDS_EXPIRES = ephemeral.dbcloud_service_credentials.job.expires_at
      CREDS_SQL     = "SELECT 1"
      CREDS_OUT     = %[3]q
    }
  }
}
`, bin, credsProbeEnv, marker, ok, release))
	p := w.startBinary(v...)
	t.Cleanup(func() { // on every way out: the job stops waiting (and fails), and the run ends
		_ = os.WriteFile(release, nil, 0o600)
		_ = p.waitAtMost(t, 3*time.Minute)
	})
	if err := waitFile(marker, p, 3*time.Minute); err != nil {
		p.interrupt(t)
		t.Fatalf("%v:\n%s", err, tail(p.out.String(), 40))
	}
	r, err := readProbe(marker)
	if err != nil || r.Err != "" || r.ExpiresAt == "" {
		t.Fatalf("the job's login: %+v, %v", r, err)
	}
	if _, err := client.StopService(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(ctx, client, id, api.PAUSED); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.waitAtMost(t, 3*time.Minute); err == nil {
		t.Fatalf("the run whose job failed exited 0:\n%s", tail(p.out.String(), 40))
	}
	t.Logf("the failed run, on login %s (expires %s):\n%s", r.User, r.ExpiresAt, diagnostics(p.out.String()))

	if _, err := client.StartService(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(ctx, client, id, api.READY); err != nil {
		t.Fatal(err)
	}
	in := pg.Instance(id)
	admin, err := pgLogin(ctx, in.Host(), in.Port(), "admin-Pw/1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close(context.WithoutCancel(ctx)) }()
	count := func() (n int) {
		t.Helper()
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("after the failed run %d logins are left, want the job's", n)
	}
	if err := os.WriteFile(ok, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p = w.startBinary(v...)
	if err := p.waitAtMost(t, 3*time.Minute); err != nil {
		t.Fatalf("the next apply: %v\n%s", err, tail(p.out.String(), 40))
	}
	o := p.out.String()
	if !strings.Contains(o, "Dropped login "+r.User+", left by an earlier run") || !strings.Contains(o, r.ExpiresAt) {
		t.Errorf("the next apply does not say it dropped %s (expiring %s):\n%s", r.User, r.ExpiresAt, diagnostics(o))
	}
	if n := count(); n != 0 {
		t.Errorf("after the next apply %d logins are left", n)
	}
}

// waitFile waits until path exists, or p ends, or d passes.
func waitFile(path string, p *tfProcess, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if p.over || time.Now().After(deadline) {
			return fmt.Errorf("%s never appeared", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
