package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/thirdparty"
)

// Acceptance tests against the emulator with a real PostgreSQL behind it (pgbackend): the endpoint
// the provider returns is a database that the password Terraform knows logs in to. They need the
// PostgreSQL server binaries (.ci/run installs them with apt-get).

// newPostgresEmulator starts an emulator with one PostgreSQL instance behind each service, all
// stopped when the test ends.
func newPostgresEmulator(t *testing.T) (*emulatortest.Server, *pgbackend.Manager) {
	t.Helper()
	testAccPreCheck(t)
	pg, withPG := startPostgres(t)
	return newTestEmulator(t, withPG), pg
}

// startPostgres starts the PostgreSQL template of a test and returns it with the emulator option
// that puts an instance of it behind each service. Cleanups run last-in first-out: the emulator
// (registered by newTestEmulator, after this) is closed first, then this waits for the queued
// database operations and stops the instances.
func startPostgres(t *testing.T) (*pgbackend.Manager, func(*emulator.Options)) {
	t.Helper()
	binDir, err := pgbackend.FindBinDir("")
	if err != nil {
		t.Fatalf("these tests need the PostgreSQL server binaries (apt-get install postgresql): %v", err)
	}
	pg, err := pgbackend.Start(context.WithoutCancel(t.Context()), pgbackend.Options{BinDir: binDir, Logf: t.Logf})
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	t.Logf("PostgreSQL template ready in %v", pg.StartupTime())
	b := pgbackend.NewBackend(pg)
	t.Cleanup(func() {
		if err := b.Close(time.Minute); err != nil {
			t.Error(err)
		}
		if err := pg.Close(); err != nil {
			t.Error(err)
		}
	})
	return pg, func(o *emulator.Options) { o.Database = b }
}

// pgLogin logs in to host:port as the real service's clients do: tsdbadmin to tsdb, over TLS
// (sslmode=require), with password.
func pgLogin(ctx context.Context, host string, port int, password string) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, mustConfig(host, port, password))
}

// pgEndpoint is a service's (or replica set's) endpoint and identity, as Terraform's state has it.
type pgEndpoint struct {
	id, host, password string
	port               int
}

func stateEndpoint(s *terraform.State, name, passwordAttr string) (pgEndpoint, error) {
	rs, ok := s.RootModule().Resources[name]
	if !ok {
		return pgEndpoint{}, fmt.Errorf("%s not in state", name)
	}
	a := rs.Primary.Attributes
	port, err := strconv.Atoi(a["port"])
	if err != nil {
		return pgEndpoint{}, fmt.Errorf("%s: port %q: %w", name, a["port"], err)
	}
	return pgEndpoint{id: a["id"], host: a["hostname"], port: port, password: a[passwordAttr]}, nil
}

// loginAs logs in to the endpoint with password, and closes the connection.
func loginAs(ctx context.Context, e pgEndpoint, password string) error {
	conn, err := pgLogin(ctx, e.host, e.port, password)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

const pgRow = "written before the fork"

func TestAccServicePostgres(t *testing.T) {
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	client := testClient(t, srv)
	var primary pgEndpoint
	ids := map[string]bool{}

	const service = `
resource "dbcloud_service" "db" {
  name = "pg-acc"
%s
}
`
	const fork = `
resource "dbcloud_service" "fork" {
  name = "pg-acc-fork"
  fork {
    source_service_id = dbcloud_service.db.id
    strategy          = "NOW"
  }
}

resource "dbcloud_read_replica_set" "ro" {
  service_id = dbcloud_service.db.id
  name       = "pg-acc-ro"
  nodes      = 1
  cpu_millis = 500
  memory_gbs = 2
}
`
	const newPassword = "a-new-password-for-pg-acc"

	tc := testCase(t, srv,
		// Create: the endpoint is the service's own instance, and initial_password logs in; a row is
		// written.
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(service, ""),
			Check: func(s *terraform.State) error {
				var err error
				primary, err = stateEndpoint(s, "dbcloud_service.db", "initial_password")
				if err != nil {
					return err
				}
				ids[primary.id] = true
				in := pg.Instance(primary.id)
				if in == nil || primary.host != in.Host() || primary.port != in.Port() {
					return fmt.Errorf("endpoint %s:%d is not the service's instance", primary.host, primary.port)
				}
				conn, err := pgLogin(ctx, primary.host, primary.port, primary.password)
				if err != nil {
					return fmt.Errorf("login with initial_password: %w", err)
				}
				defer func() { _ = conn.Close(ctx) }()
				if _, err := conn.Exec(ctx, "CREATE TABLE notes (v text)"); err != nil {
					return err
				}
				_, err = conn.Exec(ctx, "INSERT INTO notes VALUES ($1)", pgRow)
				return err
			},
		},
		// Password change: the old password is refused, the new one accepted.
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(service, fmt.Sprintf("  password = %q", newPassword)),
			Check: func(*terraform.State) error {
				if err := loginAs(ctx, primary, primary.password); err == nil {
					return fmt.Errorf("the old password still logs in after the change")
				}
				if err := loginAs(ctx, primary, newPassword); err != nil {
					return fmt.Errorf("login with the new password: %w", err)
				}
				return nil
			},
		},
		// Fork: the fork's instance has the row; the replica set (a hot standby) reads it with the
		// primary's password, read-only (SQLSTATE 25006).
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(service, fmt.Sprintf("  password = %q", newPassword)) + fork,
			Check: func(s *terraform.State) error {
				f, err := stateEndpoint(s, "dbcloud_service.fork", "initial_password")
				if err != nil {
					return err
				}
				ids[f.id] = true
				conn, err := pgLogin(ctx, f.host, f.port, f.password)
				if err != nil {
					return fmt.Errorf("login to the fork: %w", err)
				}
				defer func() { _ = conn.Close(ctx) }()
				var v string
				if err := conn.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil || v != pgRow {
					return fmt.Errorf("row in the fork: %q, %w", v, err)
				}

				ro, err := stateEndpoint(s, "dbcloud_read_replica_set.ro", "")
				if err != nil {
					return err
				}
				rconn, err := pgLogin(ctx, ro.host, ro.port, newPassword)
				if err != nil {
					return fmt.Errorf("login to the replica set's endpoint: %w", err)
				}
				defer func() { _ = rconn.Close(ctx) }()
				if err := rconn.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil || v != pgRow {
					return fmt.Errorf("row through the replica set: %q, %w", v, err)
				}
				_, err = rconn.Exec(ctx, "INSERT INTO notes VALUES ('no')")
				if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "25006" {
					return fmt.Errorf("a write on the replica set's endpoint: %w, want SQLSTATE 25006", err)
				}
				return nil
			},
		},
		// Pause (through the API: stop, then start): no login while PAUSED.
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(service, fmt.Sprintf("  password = %q", newPassword)) + fork,
			Check: func(*terraform.State) error {
				if _, err := client.StopService(ctx, primary.id); err != nil {
					return err
				}
				if err := waitStatus(ctx, client, primary.id, api.PAUSED); err != nil {
					return err
				}
				if err := loginAs(ctx, primary, newPassword); err == nil {
					return fmt.Errorf("a paused service accepted a login")
				}
				if _, err := client.StartService(ctx, primary.id); err != nil {
					return err
				}
				if err := waitStatus(ctx, client, primary.id, api.READY); err != nil {
					return err
				}
				if err := loginAs(ctx, primary, newPassword); err != nil {
					return fmt.Errorf("login after resume: %w", err)
				}
				return nil
			},
		},
	)
	// Delete: the instances are gone.
	checkDestroyed := tc.CheckDestroy
	tc.CheckDestroy = func(s *terraform.State) error {
		if err := checkDestroyed(s); err != nil {
			return err
		}
		for id := range ids {
			if pg.Instance(id) != nil {
				return fmt.Errorf("the instance of deleted service %s still exists", id)
			}
		}
		if err := loginAs(ctx, primary, newPassword); err == nil {
			return fmt.Errorf("deleted service %s still accepts a login", primary.id)
		}
		return nil
	}
	resource.Test(t, tc)
}

func mustConfig(host string, port int, password string) *pgx.ConnConfig {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=tsdbadmin dbname=tsdb sslmode=require connect_timeout=5", host, port))
	if err != nil {
		panic(err)
	}
	cfg.Password = password
	return cfg
}

// waitStatus polls the service until it has status (at most a minute).
func waitStatus(ctx context.Context, c *api.Client, id string, status api.ServiceStatus) error {
	deadline := time.Now().Add(time.Minute)
	for {
		svc, err := c.GetService(ctx, id)
		if err != nil {
			return err
		}
		if svc.Status != nil && *svc.Status == status {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("service %s: not %s after a minute", id, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The other projects' providers the tests run as real clients (internal/thirdparty): the PostgreSQL
// provider (cyrilgdn/postgresql), which the connecting guide pairs with dbcloud_service, and the
// vendor's official provider (timescale/timescale), which the migrating guide moves from. Each is built
// from its source in ../shared/third_party (relative to the repository's root, as CI checks it out)
// into the one build cache (the user's cache directory, keyed by a hash of the source: built once,
// reused by every later run and by the page runner), or comes from the registry when the source is
// not there and the registry answers. Neither: the test skips, saying so.

// postgresqlProvider is thirdPartyProvider of the PostgreSQL provider.
func postgresqlProvider(t *testing.T) string {
	t.Helper()
	return thirdPartyProvider(t, thirdparty.PostgreSQL)
}

// thirdPartyProvider answers the directory of a built provider of ../shared/third_party (for
// dev_overrides), or "" when the registry is to install it (terraform init); it skips the test when
// neither works.
func thirdPartyProvider(t *testing.T, p thirdparty.Provider) string {
	t.Helper()
	root, err := thirdparty.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := p.Build(root, t.Logf)
	if !errors.Is(err, thirdparty.ErrNoSource) {
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, rerr := c.Get("https://registry.terraform.io/v1/providers/" + p.Source + "/versions")
	if rerr == nil {
		_ = resp.Body.Close()
	}
	if rerr != nil || resp.StatusCode != http.StatusOK {
		t.Skipf("the %s provider is not at hand: %v, and registry.terraform.io does not answer (%v)", p.Source, err, rerr)
	}
	return ""
}

// TestAccPostgreSQLProvider_build: the PostgreSQL provider builds (or comes from the cache) and runs.
func TestAccPostgreSQLProvider_build(t *testing.T) {
	skipUnlessAcc(t)
	dir := postgresqlProvider(t)
	if dir == "" {
		t.Skip("from the registry")
	}
	if fi, err := os.Stat(filepath.Join(dir, thirdparty.PostgreSQL.Binary())); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("no executable provider in %s: %v", dir, err)
	}
}

// The probe: a login exists only while Terraform runs, so a test that needs one (the logins of
// dbcloud_service_credentials, TestAccOutage_readsLoginQueryAndAction) checks it inside the apply: a
// terraform_data's local-exec provisioner runs this test binary again as a probe (credsProbeEnv set to
// its mode), with the login's connection_uri in its environment; the probe logs in, tries what the
// test asks and writes what it saw to a file the test reads afterwards (readProbe).

const credsProbeEnv = "DBCLOUD_CREDS_PROBE"

func init() {
	if mode := os.Getenv(credsProbeEnv); mode != "" {
		os.Exit(credsProbe(mode))
	}
}

// credsProbeResult is what the probe saw.
type credsProbeResult struct {
	User             string    `json:"user"`
	Password         string    `json:"password"`
	ValidUntil       time.Time `json:"valid_until"`
	Now              time.Time `json:"now"`
	ExpiresAt        string    `json:"expires_at"`
	StatementTimeout string    `json:"statement_timeout"`
	Read             string    `json:"read"`
	WriteCode        string    `json:"write_code"`
	WorkDir          string    `json:"work_dir"`
	Err              string    `json:"err"`
}

// credsProbe logs in with $CREDS_URI; mode "write" makes a table as the application role and
// writes to it, mode "read" reads app_data, turns default_transaction_read_only off and tries to
// write, mode "sql" runs $CREDS_SQL. It writes its result to $CREDS_OUT.
func credsProbe(mode string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := credsProbeResult{ExpiresAt: os.Getenv("CREDS_EXPIRES")}
	res.WorkDir, _ = os.Getwd() // Terraform's working directory: where the state is
	err := func() error {
		u, err := url.Parse(os.Getenv("CREDS_URI"))
		if err != nil {
			return err
		}
		res.Password, _ = u.User.Password()
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close(ctx) }()
		if mode == "sql" { // run $CREDS_SQL (any role, tsdbadmin too)
			if _, err := conn.Exec(ctx, os.Getenv("CREDS_SQL")); err != nil {
				return err
			}
			return conn.QueryRow(ctx, "SELECT session_user").Scan(&res.User)
		}
		if err := conn.QueryRow(ctx, `SELECT current_user, rolvaliduntil, now(), current_setting('statement_timeout')
			FROM pg_roles WHERE rolname = current_user`).Scan(&res.User, &res.ValidUntil, &res.Now, &res.StatementTimeout); err != nil {
			return err
		}
		switch mode {
		case "write":
			for _, s := range []string{"SET ROLE app", "CREATE TABLE made_by_login (v text)", "INSERT INTO made_by_login VALUES ('from the login')", "RESET ROLE"} {
				if _, err := conn.Exec(ctx, s); err != nil {
					return fmt.Errorf("%s: %w", s, err)
				}
			}
			return conn.QueryRow(ctx, "SELECT v FROM made_by_login").Scan(&res.Read)
		case "read":
			if err := conn.QueryRow(ctx, "SELECT v FROM app_data").Scan(&res.Read); err != nil {
				return err
			}
			// The service refuses this in a read-only session (25006); the write below is what
			// counts either way.
			_, _ = conn.Exec(ctx, "SET default_transaction_read_only = off")
			_, err := conn.Exec(ctx, "INSERT INTO app_data VALUES ('written by a read-only login')")
			res.WriteCode = sqlStateOf(err)
			if err == nil {
				res.WriteCode = "none: the write worked"
			}
			return nil
		}
		return fmt.Errorf("unknown probe mode %q", mode)
	}()
	if err != nil {
		res.Err = err.Error()
	}
	b, _ := json.Marshal(res)
	// Written whole (a temporary file, then a rename): tests wait for the file to appear.
	outFile := os.Getenv("CREDS_OUT")
	werr := os.WriteFile(outFile+".tmp", b, 0o600)
	if werr == nil {
		werr = os.Rename(outFile+".tmp", outFile)
	}
	if werr != nil || err != nil {
		fmt.Fprintln(os.Stderr, "probe:", res.Err, werr)
		return 1
	}
	return 0
}

func readProbe(file string) (credsProbeResult, error) {
	var r credsProbeResult
	b, err := os.ReadFile(file)
	if err != nil {
		return r, fmt.Errorf("the probe left no result: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, err
	}
	if r.Err != "" {
		return r, fmt.Errorf("probe: %s", r.Err)
	}
	return r, nil
}

func sqlStateOf(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// The runs users make with logins in their configuration, each one plain `terraform apply` (or
// destroy), driven with the real terraform binary against the emulator with PostgreSQL behind it
// (service_credentials_ephemeral_test.go, logins_stop_test.go, service_pauses_test.go). The
// application's role is made as tsdbadmin by a provisioner in the same configuration (as the
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
