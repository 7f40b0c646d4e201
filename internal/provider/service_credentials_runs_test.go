package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

// The runs users make with logins in their configuration, each one plain `terraform apply` (or
// destroy), driven with the real terraform binary against the emulator with PostgreSQL behind it.
// The application's role is made as tsdbadmin by a provisioner in the same configuration (as the
// connecting guide's example does with psql; the probe stands in for psql here).

const runsBase = `
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "password_version" {
  type = number
}

variable "region" {
  type = string
}

resource "dbcloud_service" "app" {
  name                      = "runs"
  region_code               = var.region
  allow_replacement         = true
  connection_pooler_enabled = true
  password_wo               = var.admin_password
  password_wo_version       = var.password_version
}
`

// runsLogins adds what the guide adds: the application's role (made as tsdbadmin), a login that is
// a member of it and runs the migration (again when the service is replaced or the password
// rotated), and a report that reads through the pooler with a read-only login.
func runsLogins(dir string) string {
	bin, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`
resource "terraform_data" "app_role" {
  triggers_replace = [dbcloud_service.app.id]

  provisioner "local-exec" {
    command = %[1]q
    environment = {
      %[2]s = "sql"
      CREDS_URI = provider::dbcloud::with_password(dbcloud_service.app.connection_uri, var.admin_password)
      CREDS_SQL = "CREATE ROLE app NOLOGIN; GRANT USAGE, CREATE ON SCHEMA public TO app; GRANT app TO tsdbadmin"
      CREDS_OUT = "%[3]s/app_role.json"
    }
  }
}

ephemeral "dbcloud_service_credentials" "migrate" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
  member_of      = ["app"]
  ttl            = "15m"

  depends_on = [terraform_data.app_role]
}

resource "terraform_data" "migrate" {
  triggers_replace = [dbcloud_service.app.id, var.password_version]

  provisioner "local-exec" {
    command = %[1]q
    environment = {
      %[2]s = "sql"
      CREDS_URI = ephemeral.dbcloud_service_credentials.migrate.connection_uri
      CREDS_SQL = "SET ROLE app; CREATE TABLE IF NOT EXISTS items (v text); INSERT INTO items VALUES ('migrated')"
      CREDS_OUT = "%[3]s/migrate.json"
    }
  }
}

ephemeral "dbcloud_service_credentials" "report" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
  member_of      = ["app"]
  read_only      = true

  depends_on = [terraform_data.app_role]
}

resource "terraform_data" "report" {
  triggers_replace = [terraform_data.migrate.id]

  provisioner "local-exec" {
    command = %[1]q
    environment = {
      %[2]s = "sql"
      CREDS_URI = ephemeral.dbcloud_service_credentials.report.pooler_connection_uri
      CREDS_SQL = "SELECT count(*) FROM items"
      CREDS_OUT = "%[3]s/report.json"
    }
  }
}
`, bin, credsProbeEnv, dir)
}

// TestAccServiceCredentials_oneApplyEach: on a service that exists, adding the logins with the role
// they are members of takes one apply (the role does not exist while planning); rotating the admin
// password takes one apply (the service has the old one while planning), and the migration runs
// with a login made with the new one; replacing the service (a new region) takes one apply and runs
// the migration on the new service; the read-only report logs in through the pooler; after each, a
// plan is empty and no login is left; a destroy of the paused service, its logins configured,
// takes one run.
func TestAccServiceCredentials_oneApplyEach(t *testing.T) {
	skipUnlessAcc(t)
	srv, pg := newPostgresEmulator(t)
	if !pg.PgBouncer() {
		t.Fatal("this test needs pgbouncer (apt-get install pgbouncer)")
	}
	ctx := t.Context()
	client := testClient(t, srv)
	out := t.TempDir()
	w := newTFWorkdir(t, srv, runsBase)
	vars := func(password string, version int, region string) []string {
		return []string{"-var", "admin_password=" + password, "-var", fmt.Sprintf("password_version=%d", version), "-var", "region=" + region}
	}
	apply := func(what string, v []string) string {
		t.Helper()
		start := time.Now()
		o, err := w.run(append([]string{"apply", "-auto-approve", "-input=false"}, v...)...)
		if err != nil {
			t.Fatalf("%s: one terraform apply failed: %v\n%s", what, err, tail(o, 60))
		}
		t.Logf("%s: one apply, %s", what, time.Since(start).Round(100*time.Millisecond))
		applied := o
		o, err = w.run(append([]string{"plan", "-detailed-exitcode", "-input=false"}, v...)...)
		if err != nil {
			t.Fatalf("%s: the plan after the apply is not empty (%v):\n%s", what, err, tail(o, 40))
		}
		return applied
	}
	// While planning, the logins said why they wait (and the apply made them: migrated checks).
	waited := func(what, out, cause string) {
		t.Helper()
		if !strings.Contains(out, "No login made on service") || !strings.Contains(out, cause) {
			t.Errorf("%s: the plan did not warn that the logins wait (%s):\n%s", what, cause, diagnostics(out))
		}
	}
	serviceID := func() string {
		t.Helper()
		attrs, _ := w.serviceState()
		id, _ := attrs["id"].(string)
		return id
	}
	adminConn := func(id, password string) *pgx.Conn {
		t.Helper()
		in := pg.Instance(id)
		if in == nil {
			t.Fatalf("no instance for service %s", id)
		}
		c, err := pgLogin(ctx, in.Host(), in.Port(), password)
		if err != nil {
			t.Fatalf("tsdbadmin with the configured password: %v", err)
		}
		t.Cleanup(func() { _ = c.Close(context.WithoutCancel(ctx)) })
		return c
	}
	migrated := func(what, id, password string) {
		t.Helper()
		c := adminConn(id, password)
		var owner string
		var rows, left int
		if err := c.QueryRow(ctx, `SELECT tableowner, (SELECT count(*) FROM items), (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%')
			FROM pg_tables WHERE tablename = 'items'`).Scan(&owner, &rows, &left); err != nil {
			t.Fatalf("%s: the migration did not run on service %s: %v", what, id, err)
		}
		if owner != "app" || rows < 1 || left != 0 {
			t.Errorf("%s: items owned by %q with %d rows, %d logins left", what, owner, rows, left)
		}
		for _, f := range []string{"migrate.json", "report.json"} {
			r, err := readProbe(filepath.Join(out, f))
			if err != nil || r.Err != "" || !strings.HasPrefix(r.User, credentialsUserPrefix) {
				t.Errorf("%s: %s: %+v, %v", what, f, r, err)
			}
			_ = os.Remove(filepath.Join(out, f))
		}
	}

	apply("the service alone", vars("first-Pw/1", 1, "us-east-1"))
	first := serviceID()

	w.write(runsBase + runsLogins(out))
	o := apply("logins added to the existing service, with the role they are members of", vars("first-Pw/1", 1, "us-east-1"))
	waited("logins added", o, `role "app" does not exist`)
	migrated("logins added", first, "first-Pw/1")

	o = apply("admin password rotated", vars("second-Pw/2", 2, "us-east-1"))
	waited("rotation", o, "refused admin_password")
	migrated("rotation", first, "second-Pw/2")
	if c, err := pgLogin(ctx, pg.Instance(first).Host(), pg.Instance(first).Port(), "first-Pw/1"); err == nil {
		_ = c.Close(ctx)
		t.Error("the old admin password still logs in after the rotation")
	}

	apply("service replaced", vars("second-Pw/2", 2, "eu-west-1"))
	second := serviceID()
	if second == first || second == "" {
		t.Fatalf("the service was not replaced (%s, then %s)", first, second)
	}
	migrated("replacement", second, "second-Pw/2")

	if _, err := client.StopService(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(ctx, client, second, api.PAUSED); err != nil {
		t.Fatal(err)
	}
	o, err := w.run(append([]string{"destroy", "-auto-approve", "-input=false"}, vars("second-Pw/2", 2, "eu-west-1")...)...)
	if err != nil {
		t.Fatalf("destroy of the paused service with logins: %v\n%s", err, tail(o, 40))
	}
	// (Terraform drops the warnings of a destroy's refresh walk: the logins' "No login made" is
	// not shown, the destroy just goes on.)
	if left := waitEmulatorEmpty(srv); len(left) > 0 {
		t.Errorf("left after the destroy: %v", left)
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

// TestAccServiceCredentials_destroyNeverBlocked: a destroy of a configuration with logins goes
// through when the admin password given is wrong, and when the service is already gone.
func TestAccServiceCredentials_destroyNeverBlocked(t *testing.T) {
	skipUnlessAcc(t)
	srv, _ := newPostgresEmulator(t)
	ctx := t.Context()
	client := testClient(t, srv)
	logins := runsBase + `
ephemeral "dbcloud_service_credentials" "job" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
}

resource "terraform_data" "job" {
  provisioner "local-exec" {
    command     = "test -n \"$U\""
    environment = { U = ephemeral.dbcloud_service_credentials.job.username }
  }
}
`
	for _, c := range []struct {
		name   string
		before func(w *tfWorkdir) string // answers the admin password the destroy is given
	}{
		{"wrong password", func(*tfWorkdir) string { return "not-the-password" }},
		{"service already gone", func(w *tfWorkdir) string {
			attrs, _ := w.serviceState()
			id, _ := attrs["id"].(string)
			if err := client.DeleteService(ctx, id); err != nil {
				t.Fatal(err)
			}
			return "admin-Pw/1"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newTFWorkdir(t, srv, logins)
			v := func(pw string) []string {
				return []string{"-var", "admin_password=" + pw, "-var", "password_version=1", "-var", "region=us-east-1"}
			}
			if o, err := w.run(append([]string{"apply", "-auto-approve", "-input=false"}, v("admin-Pw/1")...)...); err != nil {
				t.Fatalf("apply: %v\n%s", err, tail(o, 40))
			}
			pw := c.before(w)
			if o, err := w.run(append([]string{"destroy", "-auto-approve", "-input=false"}, v(pw)...)...); err != nil {
				t.Fatalf("destroy (%s): %v\n%s", c.name, err, diagnostics(o))
			}
			if ids := w.stateIDs(); len(ids) != 0 {
				t.Errorf("left in state after the destroy: %v", ids)
			}
		})
	}
	if left := waitEmulatorEmpty(srv); len(left) > 0 {
		t.Errorf("left after the destroys: %v", left)
	}
}

// newTFWorkdirOnAccCLI is newTFWorkdir on the acceptance tests' CLI (TF_ACC_TERRAFORM_PATH, else
// terraform on PATH), with the provider at the address that CLI gives dbcloud/dbcloud.
func newTFWorkdirOnAccCLI(t *testing.T, srv *emulatortest.Server, resources string) *tfWorkdir {
	t.Helper()
	opts := tfOptions{perCommand: true}
	if acceptanceCLIIsOpenTofu(t) {
		opts.addr = "registry.opentofu.org/dbcloud/dbcloud"
	}
	w := newTF(t, opts)
	w.srv = srv
	w.write(resources)
	w.must("init", "-input=false")
	return w
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
