package provider

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/pagetest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/thirdparty"
)

// The connecting guide's configuration with the PostgreSQL provider (cyrilgdn/postgresql), run from
// the page with that provider built from its source (postgres_test.go): TestAccConnectingGuidePostgreSQL.

// connectingPage is the connecting guide, as the page runner reads it.
func connectingPage(t *testing.T) *pagetest.Page {
	t.Helper()
	page, err := pagetest.ParseFile("../../docs/guides/connecting.md")
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// guideConfig is the page's configuration under heading, a terraform block.
func guideConfig(t *testing.T, heading string) pagetest.Block {
	t.Helper()
	for _, b := range connectingPage(t).Under(heading) {
		if b.Lang == "terraform" {
			return b
		}
	}
	t.Fatalf("the connecting page has no terraform block under %q", heading)
	return pagetest.Block{}
}

// guideRun is a working directory of the guide's configuration, run with the acceptance tests' CLI,
// the provider built from this repository and the PostgreSQL provider (dev_overrides in its own CLI
// configuration).
type guideRun struct {
	t   *testing.T
	dir string
	w   *tfWorkdir
}

func (g *guideRun) tf(env []string, args ...string) (string, error) {
	g.t.Helper()
	full := args
	if args[0] != "state" { // the flags before the positional arguments (apply tfplan)
		full = append([]string{args[0], "-input=false"}, args[1:]...)
	}
	w := *g.w
	w.env = append(slices.Clone(g.w.env), env...)
	start := time.Now()
	out, err := w.run(full...)
	g.t.Logf("terraform %s: %v, %s", strings.Join(args, " "), err, time.Since(start).Round(100*time.Millisecond))
	return out, err
}

// must runs a terraform command that must succeed.
func (g *guideRun) must(what string, env []string, args ...string) string {
	g.t.Helper()
	o, err := g.tf(env, args...)
	if err != nil {
		g.t.Fatalf("%s: terraform %s: %v\n%s", what, strings.Join(args, " "), err, tail(o, 60))
	}
	return o
}

// edit replaces old by new in main.tf (old must be there).
func (g *guideRun) edit(old, new string) {
	g.t.Helper()
	p := filepath.Join(g.dir, "main.tf")
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), old) {
		g.t.Fatalf("main.tf has no %q (%v)", old, err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o600); err != nil {
		g.t.Fatal(err)
	}
}

// TestAccConnectingGuidePostgreSQL runs the connecting guide's configuration with the PostgreSQL
// provider, as the page shows it, against the emulator with PostgreSQL behind it: one apply makes the
// service, the roles, the logins and the migration; logins added to the running service take one
// apply; a rotation of the admin password takes one apply with the page's previous_admin_password
// wiring, and also through a saved plan (plan -out, apply tfplan, both variables set for both); the
// replacement takes the two applies the page shows; pausing takes one apply, a plan while paused is
// the page's `plan -refresh=false`, and resuming the page's one command, `apply
// -target=dbcloud_service.app` answered yes, also after a pause through the API (as the console
// and the pause action make it); a destroy while paused is the page's two commands, the destroy
// answered no, then yes, after the partial failure of destroy -refresh=false the page describes.
// Each re-plan is empty and no login is left where the endpoint is reachable. On the acceptance
// tests' CLI (TF_ACC_TERRAFORM_PATH, else terraform on PATH): Terraform or OpenTofu.
func TestAccConnectingGuidePostgreSQL(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel() // its own emulator; the PostgreSQL provider was built (cached) by TestAccPostgreSQLProvider_build, which runs before the parallel tests
	g, srv, pg := newGuidePostgreSQLRun(t)
	ctx := t.Context()
	pw := func(now string) []string { return []string{"TF_VAR_admin_password=" + now} }
	rotating := func(previous, now string) []string {
		return append(pw(now), "TF_VAR_previous_admin_password="+previous)
	}
	empty := func(what string, env []string, extra ...string) {
		t.Helper()
		if o, err := g.tf(env, append([]string{"plan", "-detailed-exitcode"}, extra...)...); err != nil {
			t.Fatalf("%s: the plan after it is not empty (%v):\n%s", what, err, tail(o, 40))
		}
	}
	check := func(what, password string) {
		t.Helper()
		attrs, _ := g.w.serviceState()
		id, _ := attrs["id"].(string)
		in := pg.Instance(id)
		c, err := pgLogin(ctx, in.Host(), in.Port(), password)
		if err != nil {
			t.Fatalf("%s: tsdbadmin with the current password: %v", what, err)
		}
		defer func() { _ = c.Close(context.WithoutCancel(ctx)) }()
		var owner string
		var left int
		if err := c.QueryRow(ctx, `SELECT tableowner, (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%')
			FROM pg_tables WHERE tablename = 'items'`).Scan(&owner, &left); err != nil {
			t.Fatalf("%s: the migration did not run on service %s: %v", what, id, err)
		}
		if owner != "app" || left != 0 {
			t.Errorf("%s: items owned by %q, %d logins left", what, owner, left)
		}
	}

	g.must("the whole configuration", pw("first-Pw/1"), "apply", "-auto-approve")
	empty("the whole configuration", pw("first-Pw/1"))
	check("the whole configuration", "first-Pw/1")

	g.addReport(t)
	g.must("a login added", pw("first-Pw/1"), "apply", "-auto-approve")
	empty("a login added", pw("first-Pw/1"))
	check("a login added", "first-Pw/1")

	g.edit("password_wo_version = 1", "password_wo_version = 2")
	g.must("rotation", rotating("first-Pw/1", "second-Pw/2"), "apply", "-auto-approve")
	empty("rotation", pw("second-Pw/2"))
	check("rotation", "second-Pw/2")

	g.edit("password_wo_version = 2", "password_wo_version = 3")
	g.must("rotation, saved plan", rotating("second-Pw/2", "third-Pw/3"), "plan", "-out", "tfplan")
	// As the page says: Terraform's apply tfplan asks for the ephemeral variables again,
	// previous_admin_password too; OpenTofu's does not need it.
	o, err := g.tf(pw("third-Pw/3"), "apply", "tfplan")
	switch {
	case acceptanceCLIIsOpenTofu(t) && err != nil:
		t.Fatalf("OpenTofu: apply tfplan without TF_VAR_previous_admin_password: %v\n%s", err, tail(o, 20))
	case acceptanceCLIIsOpenTofu(t):
	case err == nil || !strings.Contains(o, "previous_admin_password") || !strings.Contains(o, "No value for required variable"):
		t.Fatalf("apply tfplan without TF_VAR_previous_admin_password: %v, want it refused naming the variable:\n%s", err, tail(o, 20))
	default:
		g.must("rotation, saved plan applied", rotating("second-Pw/2", "third-Pw/3"), "apply", "tfplan")
	}
	empty("rotation, saved plan", pw("third-Pw/3"))
	check("rotation, saved plan", "third-Pw/3")

	g.pauseResume(t, pw("third-Pw/3"), testClient(t, srv), empty, check)

	attrs, _ := g.w.serviceState()
	first, _ := attrs["id"].(string)
	g.edit(`  name                = "app-db"`, "  name                = \"app-db\"\n  region_code         = \"eu-west-1\"\n  allow_replacement   = true")
	g.must("replacement, the service", pw("third-Pw/3"), "apply", "-auto-approve", "-target=dbcloud_service.app")
	g.must("replacement, the rest", pw("third-Pw/3"), "apply", "-auto-approve")
	empty("replacement", pw("third-Pw/3"))
	check("replacement", "third-Pw/3")
	if attrs, _ := g.w.serviceState(); attrs["id"] == first {
		t.Fatal("the service was not replaced")
	}

	g.edit("paused              = false", "paused              = true")
	g.must("paused, before the destroy", pw("third-Pw/3"), "apply", "-auto-approve")
	g.destroyPaused(t, pw("third-Pw/3"), srv)
	if left := waitEmulatorEmpty(srv); len(left) > 0 {
		t.Errorf("left after the destroy: %v", left)
	}
}

// newGuidePostgreSQLRun is a working directory of the connecting guide's configuration with the
// PostgreSQL provider, taken from the page, with the emulator (PostgreSQL behind it) it runs against.
func newGuidePostgreSQLRun(t *testing.T) (*guideRun, *emulatortest.Server, *pgbackend.Manager) {
	t.Helper()
	pgProvider := postgresqlProvider(t) // "": from the registry (terraform init)
	srv, pg := newPostgresEmulator(t)
	cfg := guideConfig(t, "With the PostgreSQL provider")
	g := &guideRun{t: t}
	schema, ok := connectingPage(t).File("schema.sql")
	if !ok {
		t.Fatal("the connecting page shows no schema.sql")
	}
	g.w = newTF(t, tfOptions{cliConfig: cliConfigWith(t, map[string]string{thirdparty.PostgreSQL.Source: pgProvider})})
	g.dir = g.w.dir
	for name, content := range map[string]string{"main.tf": cfg.Text, "provider.tf": providerBlock(srv), "schema.sql": schema.Text} {
		if err := os.WriteFile(filepath.Join(g.dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if pgProvider == "" {
		g.must("installing the PostgreSQL provider from the registry", nil, "init")
	}
	return g, srv, pg
}

// addReport adds a read-only login and a report that uses it to the configuration.
func (g *guideRun) addReport(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(g.dir, "main.tf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	_, err = f.WriteString(`
ephemeral "dbcloud_service_credentials" "report" {
  service_id     = dbcloud_service.app.id
  admin_password = local.admin_password_now
  member_of      = [postgresql_role.app.name]
  read_only      = true
}

resource "terraform_data" "report" {
  triggers_replace = [terraform_data.migrate.id]

  provisioner "local-exec" {
    command     = "psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -tAc 'SELECT count(*) FROM items'"
    environment = { DATABASE_URL = ephemeral.dbcloud_service_credentials.report.connection_uri }
  }
}
`)
	if err != nil {
		t.Fatal(err)
	}
}

// answer runs a command as the page's reader does, without -auto-approve: the CLI shows its plan and
// asks, and reply ("yes" or "no") is the answer.
func (g *guideRun) answer(env []string, reply string, args ...string) (string, error) {
	g.t.Helper()
	w := *g.w
	w.env = append(slices.Clone(g.w.env), append(slices.Clone(env), "TF_INPUT=1")...) // TF_INPUT=0 would refuse to ask
	w.stdin = reply + "\n"
	full := append([]string{args[0], "-input=true"}, args[1:]...)
	start := time.Now()
	out, err := w.run(full...)
	g.t.Logf("terraform %s, answered %q: %v, %s", strings.Join(args, " "), reply, err, time.Since(start).Round(100*time.Millisecond))
	return out, err
}

// mustAnswer is answer for a command that must succeed.
func (g *guideRun) mustAnswer(what string, env []string, reply string, args ...string) string {
	g.t.Helper()
	o, err := g.answer(env, reply, args...)
	if err != nil {
		g.t.Fatalf("%s: terraform %s, answered %s: %v\n%s", what, strings.Join(args, " "), reply, err, tail(o, 60))
	}
	return o
}

// pageCommands are the terraform commands of the shell blocks under heading on the connecting page,
// block by block: each line's arguments after "terraform", without its comment.
func pageCommands(t *testing.T, heading string) [][][]string {
	t.Helper()
	var blocks [][][]string
	for _, b := range connectingPage(t).Under(heading) {
		if b.Lang != "shell" {
			continue
		}
		var cmds [][]string
		for line := range strings.SplitSeq(b.Text, "\n") {
			line, _, _ = strings.Cut(line, "#")
			if f := strings.Fields(line); len(f) > 0 {
				if f[0] != "terraform" {
					t.Fatalf("%s: %q is not a terraform command", heading, line)
				}
				cmds = append(cmds, f[1:])
			}
		}
		blocks = append(blocks, cmds)
	}
	if len(blocks) == 0 {
		t.Fatalf("the connecting page has no shell block under %q", heading)
	}
	return blocks
}

// pausedPage is the heading of the page's commands for a paused service.
const pausedPage = "A paused service with the PostgreSQL provider"

// pauseResume pauses the service (one apply), plans while paused as the page says, and resumes it
// with the page's command; then the same after a pause through the API (as the console and the
// dbcloud_service_pause action make it), where apply -refresh=false, as the page says, does not do.
func (g *guideRun) pauseResume(t *testing.T, env []string, client *api.Client, empty func(string, []string, ...string), check func(string, string)) {
	t.Helper()
	cmds := pageCommands(t, pausedPage)[0] // plan -refresh=false; apply -target=dbcloud_service.app
	g.edit(`  name                = "app-db"`, "  name                = \"app-db\"\n  paused              = true")
	o := g.must("paused", env, "apply", "-auto-approve")
	// Terraform opens the logins after the pause (they warn); OpenTofu opens none that nothing
	// running in the apply uses.
	if !acceptanceCLIIsOpenTofu(t) && !strings.Contains(o, "No login made on service") {
		t.Errorf("the apply that paused did not warn that no login was made:\n%s", diagnostics(o))
	}
	refused := func(what string, args ...string) {
		t.Helper()
		if o, err := g.tf(env, args...); err == nil || !strings.Contains(o, "connection refused") {
			t.Errorf("%s while paused: %v, want it to fail in the PostgreSQL provider's refresh (else the page says too much):\n%s", what, err, tail(o, 20))
		}
	}
	refused("a plain plan", "plan")
	if cmds[0][0] != "plan" {
		t.Fatalf("the page's first command while paused is terraform %v, want a plan", cmds[0])
	}
	empty("a plan while paused, as the page says", env, cmds[0][1:]...) // plan -detailed-exitcode and the page's flags
	g.edit("paused              = true", "paused              = false")
	refused("a plain apply that resumes", "apply", "-auto-approve")
	if o := g.mustAnswer("resumed as the page says", env, "yes", cmds[1]...); !strings.Contains(o, "Applied changes may be incomplete") {
		t.Errorf("the targeted apply did not warn that it was targeted (else the page says too much):\n%s", tail(o, 20))
	}
	empty("resumed", env)
	check("resumed", strings.TrimPrefix(env[0], "TF_VAR_admin_password="))

	attrs, _ := g.w.serviceState()
	id, _ := attrs["id"].(string)
	if _, err := client.StopService(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if err := waitStatus(t.Context(), client, id, api.PAUSED); err != nil {
		t.Fatal(err)
	}
	refused("a plain plan, paused through the API,", "plan")
	// apply -refresh=false does not see that pause: the service stays paused, and Terraform's logins
	// fail on it; OpenTofu opens none (nothing uses them) and says nothing.
	o, err := g.tf(env, "apply", "-auto-approve", "-refresh=false")
	flat := strings.Join(strings.Fields(strings.ReplaceAll(o, "│", " ")), " ")
	switch {
	case acceptanceCLIIsOpenTofu(t) && err != nil:
		t.Errorf("OpenTofu: apply -refresh=false after a pause through the API: %v, want it to exit 0 (else the page says too much):\n%s", err, diagnostics(o))
	case !acceptanceCLIIsOpenTofu(t) && (err == nil || !strings.Contains(flat, "Could not create a login on service") || !strings.Contains(flat, "PAUSED")):
		t.Errorf("apply -refresh=false after a pause through the API: %v, want the logins to fail on the PAUSED service (else the page says too much):\n%s", err, diagnostics(o))
	}
	if svc, err := client.GetService(t.Context(), id); err != nil || svc.Status == nil || *svc.Status != api.PAUSED {
		t.Errorf("after apply -refresh=false the service is %v (%v), want still PAUSED (else the page says too much)", svc, err)
	}
	g.mustAnswer("resumed as the page says, after a pause through the API", env, "yes", cmds[1]...)
	empty("resumed after a pause through the API", env)
	check("resumed after a pause through the API", strings.TrimPrefix(env[0], "TF_VAR_admin_password="))
}

// destroyPaused destroys the paused service as the page says: a plain destroy fails in the
// PostgreSQL provider's refresh and changes nothing; destroy -refresh=false fails only partly (the
// migration's terraform_data is gone, the rest is kept); then the page's two commands, each answered
// "no" first (nothing changes), then "yes", resume the service and destroy it.
func (g *guideRun) destroyPaused(t *testing.T, env []string, srv *emulatortest.Server) {
	t.Helper()
	before := g.w.stateAddresses()
	if o, err := g.tf(env, "destroy", "-auto-approve"); err == nil || !strings.Contains(o, "connection refused") || !maps.Equal(before, g.w.stateAddresses()) {
		t.Errorf("a plain destroy while paused: %v, want it to fail in the PostgreSQL provider's refresh, changing nothing (else the page says too much):\n%s", err, tail(o, 20))
	}
	if _, err := g.tf(env, "destroy", "-auto-approve", "-refresh=false"); err == nil {
		t.Fatal("destroy -refresh=false while paused succeeded (else the page says too much)")
	}
	ids := g.w.stateAddresses()
	if _, ok := ids["terraform_data.migrate"]; ok || ids["postgresql_role.app"] == "" || ids["postgresql_grant.app_public"] == "" || ids["dbcloud_service.app"] == "" {
		t.Errorf("after destroy -refresh=false while paused the state holds %v, want all but the migration (else the page says too little)", ids)
	}
	cmds := pageCommands(t, pausedPage)[1] // apply -target=dbcloud_service.app; destroy
	g.edit("paused              = true", "paused              = false")
	unchanged := func(what string, reply string, args []string, wantStatus api.ServiceStatus) {
		t.Helper()
		before := g.w.stateAddresses()
		o, _ := g.answer(env, reply, args...)
		svc, err := testClient(t, srv).GetService(t.Context(), before["dbcloud_service.app"])
		if after := g.w.stateAddresses(); !maps.Equal(before, after) || err != nil || svc.Status == nil || *svc.Status != wantStatus {
			t.Fatalf("%s answered no changed the state (%v, now %v) or the service (%v, %v):\n%s", what, before, after, svc, err, tail(o, 30))
		}
	}
	unchanged("the resume", "no", cmds[0], api.PAUSED)
	g.mustAnswer("resumed, before the destroy", env, "yes", cmds[0]...)
	unchanged("the destroy", "no", cmds[1], api.READY)
	g.mustAnswer("the destroy answered yes", env, "yes", cmds[1]...)
	if ids := g.w.stateIDs(); len(ids) != 0 {
		t.Errorf("left in state after the destroy: %v", ids)
	}
}

// TestAccCredentialsPagePostgreSQLProviderWithLogins proves what the credentials page says of
// configuring the PostgreSQL provider with one of the logins instead of tsdbadmin, on the connecting
// guide's configuration (its roles and grant made by tsdbadmin first): a read-only login fails
// already while planning (25006); an ordinary login, a member of the application role, can neither
// make a role nor drop the grant tsdbadmin made (42501); a login that cannot be made while planning
// (here: with the new password, while planning a rotation) has null values, and that provider then
// logs in as its default user, postgres, which the service refuses. The page's
// previous_admin_password wiring makes the login in a rotation's plan, as for tsdbadmin.
func TestAccCredentialsPagePostgreSQLProviderWithLogins(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel()
	g, _, _ := newGuidePostgreSQLRun(t)
	pw := []string{"TF_VAR_admin_password=first-Pw/1"}
	g.must("the guide's configuration", pw, "apply", "-auto-approve")
	fails := func(what string, env []string, want []string, args ...string) {
		t.Helper()
		o, err := g.tf(env, args...)
		flat := strings.Join(strings.Fields(strings.ReplaceAll(o, "│", " ")), " ")
		for _, w := range want {
			if err == nil || !strings.Contains(flat, w) {
				t.Errorf("%s: %v, want a failure saying %q (else the page says too much):\n%s", what, err, w, diagnostics(o))
				return
			}
		}
	}

	g.edit(`  username  = "tsdbadmin"
  password  = local.admin_password_now # ephemeral: allowed in a provider block`, `  username  = ephemeral.dbcloud_service_credentials.pg.username
  password  = ephemeral.dbcloud_service_credentials.pg.password`)
	g.edit("# The application's role: no login, no password.", `ephemeral "dbcloud_service_credentials" "pg" {
  service_id     = dbcloud_service.app.id
  admin_password = local.admin_password_now
  member_of      = ["tsdbadmin"]
  read_only      = true
}

# The application's role: no login, no password.`)
	fails("a read-only login, plan", pw, []string{"read-only transaction", "25006"}, "plan")

	g.edit("  member_of      = [\"tsdbadmin\"]\n  read_only      = true", "  member_of      = [\"app\"]")
	g.edit("# The application's role: no login, no password.", "resource \"postgresql_role\" \"extra\" {\n  name = \"extra\"\n}\n\n# The application's role: no login, no password.")
	fails("an ordinary login makes a role", pw, []string{"permission denied to create role", "42501"}, "apply", "-auto-approve")
	g.edit("resource \"postgresql_role\" \"extra\" {", "resource \"postgresql_role\" \"extra\" {\n  count = 0")
	fails("an ordinary login drops the grant tsdbadmin made", pw, []string{"postgresql_grant.app_public", "42501"},
		"destroy", "-auto-approve", "-target=postgresql_grant.app_public")

	rotating := []string{"TF_VAR_admin_password=second-Pw/2", "TF_VAR_previous_admin_password=first-Pw/1"}
	g.edit("password_wo_version = 1", "password_wo_version = 2")
	g.must("a rotation's plan with the page's wiring: the login is made with the previous password", rotating, "plan")
	g.edit("  service_id     = dbcloud_service.app.id\n  admin_password = local.admin_password_now\n  member_of      = [\"app\"]",
		"  service_id     = dbcloud_service.app.id\n  admin_password = var.admin_password\n  member_of      = [\"app\"]")
	fails("a rotation's plan, the login with the new password", rotating,
		// The emulator's pg_hba refuses its superuser over TCP (28000), whatever the password.
		[]string{"No login made on service", `pg_hba.conf rejects connection for host "127.0.0.1", user "postgres"`}, "plan")
}

// TestAccConnectingPagePostgreSQLProviderEndpoints proves what the connecting guide says of the
// PostgreSQL provider and the other endpoints, on the guide's configuration: through the pooler it
// works (its refresh reads the roles and grants, an apply makes a role); on a replica set's
// endpoint even a data source fails, since it opens a read-write transaction that a standby
// refuses (SQLSTATE 0A000).
func TestAccConnectingPagePostgreSQLProviderEndpoints(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel()
	g, _, pg := newGuidePostgreSQLRun(t)
	if !pg.PgBouncer() {
		t.Fatal("pgbouncer is not installed: the pooler is emulated (apt-get install pgbouncer)")
	}
	pw := []string{"TF_VAR_admin_password=first-Pw/1"}
	g.must("the guide's configuration", pw, "apply", "-auto-approve")
	g.edit(`  name                = "app-db"`, "  name                = \"app-db\"\n  connection_pooler_enabled = true")
	g.edit("# The application's role: no login, no password.", `resource "dbcloud_read_replica_set" "ro" {
  service_id = dbcloud_service.app.id
  name       = "app-ro"
  cpu_millis = 500
  memory_gbs = 2
}

# The application's role: no login, no password.`)
	g.must("the pooler and a replica set", pw, "apply", "-auto-approve")

	g.edit("  host      = dbcloud_service.app.hostname\n  port      = dbcloud_service.app.port",
		"  host      = dbcloud_service.app.pooler_hostname\n  port      = dbcloud_service.app.pooler_port")
	if o, err := g.tf(pw, "plan", "-detailed-exitcode"); err != nil {
		t.Fatalf("the PostgreSQL provider through the pooler: the plan is not empty (%v):\n%s", err, tail(o, 40))
	}
	g.edit("# The application's role: no login, no password.", "resource \"postgresql_role\" \"through_pooler\" {\n  name = \"through_pooler\"\n}\n\n# The application's role: no login, no password.")
	g.must("a role made through the pooler", pw, "apply", "-auto-approve")

	g.edit("# The application's role: no login, no password.", `provider "postgresql" {
  alias     = "replica"
  host      = dbcloud_read_replica_set.ro.hostname
  port      = dbcloud_read_replica_set.ro.port
  database  = "tsdb"
  username  = "tsdbadmin"
  password  = local.admin_password_now
  sslmode   = "require"
  superuser = false
}

data "postgresql_schemas" "on_replica" {
  provider = postgresql.replica
  database = "tsdb"
}

# The application's role: no login, no password.`)
	o, err := g.tf(pw, "plan")
	flat := strings.Join(strings.Fields(strings.ReplaceAll(o, "│", " ")), " ")
	if err == nil || !strings.Contains(flat, "cannot set transaction read-write mode during recovery") {
		t.Errorf("a data source of the PostgreSQL provider on the replica set's endpoint: %v, want it to fail (0A000, read-write during recovery):\n%s", err, diagnostics(o))
	}
}
