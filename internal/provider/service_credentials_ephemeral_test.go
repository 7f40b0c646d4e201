package provider

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

// The acceptance tests of dbcloud_service_credentials run real terraform (tfWorkdir) against the
// emulator with PostgreSQL behind it. A login exists only while Terraform runs, so the checks that
// need it run inside the apply: a terraform_data's local-exec provisioner runs this test binary
// again as a probe (credsProbeEnv, postgres_test.go), with the login's connection_uri in its
// environment; the probe logs in, tries what the test asks and writes what it saw to a file the test
// reads afterwards.

// credsAdminPassword is tsdbadmin's password in these tests (set with password_wo).
const credsAdminPassword = "Adm1n-pw/with:reserved@chars-and-ü"

const credsServiceConfig = `
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "dbcloud_service" "db" {
  name                = "creds-acc"
  password_wo         = var.admin_password
  password_wo_version = 1
}
`

// credsProbeConfig is a terraform_data that runs the probe with a login's connection string.
func credsProbeConfig(name, login, mode, out string) string {
	bin, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`
resource "terraform_data" %[1]q {
  provisioner "local-exec" {
    command = %[2]q
    environment = {
      %[3]s         = %[4]q
      CREDS_URI     = ephemeral.dbcloud_service_credentials.%[5]s.connection_uri
      CREDS_EXPIRES = ephemeral.dbcloud_service_credentials.%[5]s.expires_at
      CREDS_OUT     = %[6]q
    }
  }
}
`, name, bin, credsProbeEnv, mode, login, out)
}

// TestAccServiceCredentials: the guide's path. The service's password is write-only; a login that
// is a member of the application role makes a table as that role; a read-only login reads it and
// cannot write even with default_transaction_read_only off; the expiry matches ttl; both logins are
// gone after the run; neither the state file nor the state Terraform shows holds any of the
// passwords. Also read_only_connection_uri: its sessions read and cannot write.
func TestAccServiceCredentials(t *testing.T) {
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	vars := config.Variables{"admin_password": config.StringVariable(credsAdminPassword)}
	var in *pgbackend.Instance
	var admin *pgx.Conn
	t.Cleanup(func() {
		if admin != nil {
			_ = admin.Close(context.WithoutCancel(ctx))
		}
	})
	tmp := t.TempDir()
	writerOut, readerOut, analystOut := filepath.Join(tmp, "writer.json"), filepath.Join(tmp, "reader.json"), filepath.Join(tmp, "analyst.json")
	logins := fmt.Sprintf(`
ephemeral "dbcloud_service_credentials" "writer" {
  service_id        = dbcloud_service.db.id
  admin_password    = var.admin_password
  ttl               = "30m"
  member_of         = ["app"]
  statement_timeout = "45s"
}

ephemeral "dbcloud_service_credentials" "reader" {
  service_id     = dbcloud_service.db.id
  admin_password = var.admin_password
  read_only      = true
  member_of      = ["app"]
  ca_certificate = file(%q)
}

# The service's read-only role that inherits tsdbadmin (timescale_functions).
ephemeral "dbcloud_service_credentials" "analyst" {
  service_id     = dbcloud_service.db.id
  admin_password = var.admin_password
  read_only      = true
  member_of      = ["tsdbadmin"]
  ttl            = "5m"
}
`, pg.CertFile()) + credsProbeConfig("writer", "writer", "write", writerOut) + credsProbeConfig("reader", "reader", "read", readerOut) +
		credsProbeConfig("analyst", "analyst", "read", analystOut)

	tc := needsWriteOnly(testCase(t, srv,
		// The service, its password write-only; then what the PostgreSQL provider makes in the guide:
		// the application role, allowed to create in public (PostgreSQL 15 and later), and a table.
		resource.TestStep{
			ConfigVariables: vars,
			Config:          providerBlock(srv) + credsServiceConfig,
			Check: func(s *terraform.State) error {
				a, err := testAccAttrs(s, "dbcloud_service.db")
				if err != nil {
					return err
				}
				if in = pg.Instance(a["id"]); in == nil {
					return fmt.Errorf("no instance for service %s", a["id"])
				}
				if admin, err = pgLogin(ctx, in.Host(), in.Port(), credsAdminPassword); err != nil {
					return fmt.Errorf("login with the write-only password: %w", err)
				}
				for _, s := range []string{
					"CREATE ROLE app NOLOGIN", "GRANT CREATE, USAGE ON SCHEMA public TO app", "GRANT app TO tsdbadmin",
					"SET ROLE app", "CREATE TABLE app_data (v text)", "INSERT INTO app_data VALUES ('hello')", "RESET ROLE",
				} {
					if _, err := admin.Exec(ctx, s); err != nil {
						return fmt.Errorf("%s: %w", s, err)
					}
				}
				return checkReadOnlyURI(ctx, a["read_only_connection_uri"], in)
			},
		},
		resource.TestStep{
			ConfigVariables: vars,
			Config:          providerBlock(srv) + credsServiceConfig + logins,
			Check: func(s *terraform.State) error {
				wr, err := readProbe(writerOut)
				if err != nil {
					return err
				}
				rd, err := readProbe(readerOut)
				if err != nil {
					return err
				}
				an, err := readProbe(analystOut)
				if err != nil {
					return err
				}
				var errs []error
				fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
				// The writer: a generated name, the ttl, the statement timeout, a table owned by the role.
				if !regexp.MustCompile(`^tf_login_[a-z0-9]{12}$`).MatchString(wr.User) || wr.User == rd.User {
					fail("usernames %q and %q", wr.User, rd.User)
				}
				if left := wr.ValidUntil.Sub(wr.Now); left < 29*time.Minute || left > 30*time.Minute+5*time.Second {
					fail("the login is valid for %v, want ttl = 30m", left)
				}
				if exp, err := time.Parse(time.RFC3339, wr.ExpiresAt); err != nil || !exp.Equal(wr.ValidUntil) {
					fail("expires_at %q, the role's VALID UNTIL %v (%v)", wr.ExpiresAt, wr.ValidUntil, err)
				}
				if left := rd.ValidUntil.Sub(rd.Now); left < 59*time.Minute || left > time.Hour+5*time.Second {
					fail("the reader is valid for %v, want the default 1h", left)
				}
				if wr.StatementTimeout != "45s" {
					fail("statement_timeout %q, want 45s", wr.StatementTimeout)
				}
				var owner string
				if err := admin.QueryRow(ctx, "SELECT tableowner FROM pg_tables WHERE tablename = 'made_by_login'").Scan(&owner); err != nil || owner != "app" {
					fail("the login's table: owner %q (%v), want app", owner, err)
				}
				// The reader: reads, cannot write.
				if rd.Read != "hello" {
					fail("the read-only login read %q", rd.Read)
				}
				if rd.WriteCode != "25006" {
					fail("a write of the read-only login after SET default_transaction_read_only = off: %s, want SQLSTATE 25006", rd.WriteCode)
				}
				// The analyst (inherits tsdbadmin): reads, and its write is refused as read-only.
				if an.Read != "hello" || an.WriteCode != "25006" {
					fail("the read-only member of tsdbadmin read %q, and its write gave %s (want SQLSTATE 25006)", an.Read, an.WriteCode)
				}
				if left := an.ValidUntil.Sub(an.Now); left < 4*time.Minute || left > 5*time.Minute+5*time.Second {
					fail("the analyst is valid for %v, want ttl = 5m", left)
				}
				// The logins are gone, and cannot log in.
				for _, r := range []credsProbeResult{wr, rd, an} {
					var n int
					if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname = $1", r.User).Scan(&n); err != nil || n != 0 {
						fail("role %s after the run: %d (%v)", r.User, n, err)
					}
					if c, err := pgx.ConnectConfig(ctx, pgbackend.ConnConfig(in.Host(), in.Port(), r.User, r.Password, "tsdb")); err == nil {
						_ = c.Close(ctx)
						fail("login %s still works after the run", r.User)
					}
				}
				// No password in the state file or in the state Terraform shows (terraform show -json).
				stateFile, err := os.ReadFile(filepath.Join(wr.WorkDir, "terraform.tfstate"))
				if err != nil {
					return fmt.Errorf("the state file (the probe ran in %s): %w", wr.WorkDir, err)
				}
				shown, err := json.Marshal(s)
				if err != nil {
					return err
				}
				for what, text := range map[string]string{"the state file": string(stateFile), "the state terraform shows": string(shown)} {
					if !strings.Contains(text, "creds-acc") {
						fail("%s does not hold the service: the search below proves nothing", what)
					}
					for name, secret := range map[string]string{"the admin password": credsAdminPassword, "the writer's password": wr.Password,
						"the reader's password": rd.Password, "the analyst's password": an.Password} {
						if secret == "" || strings.Contains(text, secret) || strings.Contains(text, url.QueryEscape(secret)) {
							fail("%s holds %s", what, name)
						}
					}
				}
				return errors.Join(errs...)
			},
		},
	))
	resource.Test(t, tc)
}

// checkReadOnlyURI: read_only_connection_uri, with the password added by with_password, opens a
// session that reads and cannot write, even with default_transaction_read_only off.
func checkReadOnlyURI(ctx context.Context, roURI string, in *pgbackend.Instance) error {
	want := fmt.Sprintf("postgresql://tsdbadmin@%s/tsdb?sslmode=require&options=-c%%20tsdb_admin.read_only_connection%%3Dtrue",
		net.JoinHostPort(in.Host(), strconv.Itoa(in.Port())))
	if roURI != want {
		return fmt.Errorf("read_only_connection_uri = %q, want %q", roURI, want)
	}
	withPassword, err := uriWithPassword(roURI, types.StringValue(credsAdminPassword)) // provider::dbcloud::with_password
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, withPassword)
	if err != nil {
		return fmt.Errorf("login with read_only_connection_uri: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM app_data").Scan(&v); err != nil || v != "hello" {
		return fmt.Errorf("read through read_only_connection_uri: %q, %w", v, err)
	}
	_, _ = conn.Exec(ctx, "SET default_transaction_read_only = off") // refused too (25006)
	if _, err := conn.Exec(ctx, "INSERT INTO app_data VALUES ('no')"); sqlStateOf(err) != "25006" {
		return fmt.Errorf("a write through read_only_connection_uri: %w, want SQLSTATE 25006", err)
	}
	return nil
}

// TestAccServiceCredentialsErrors: each refusal names its cause.
func TestAccServiceCredentialsErrors(t *testing.T) {
	srv, pg := newPostgresEmulator(t)
	ctx := t.Context()
	client := testClient(t, srv)
	svc, err := client.CreateService(ctx, api.ServiceCreate{Name: "creds-errors"})
	if err != nil {
		t.Fatal(err)
	}
	id, password := deref(svc.ServiceID), deref(svc.InitialPassword)
	if err := waitStatus(ctx, client, id, api.READY); err != nil {
		t.Fatal(err)
	}
	rs, err := client.CreateReplicaSet(ctx, id, api.ReadReplicaSetCreate{Name: "creds-ro", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil {
		t.Fatal(err)
	}
	otherCA := filepath.Join(t.TempDir(), "other-ca.pem")
	writeSelfSignedCert(t, otherCA)
	t.Cleanup(func() { _ = client.DeleteService(context.WithoutCancel(ctx), id) })

	config := func(serviceID, adminPassword, extra string) string {
		return providerBlock(srv) + fmt.Sprintf(`
ephemeral "dbcloud_service_credentials" "login" {
  service_id     = %q
  admin_password = %q
%s
}

resource "terraform_data" "use" {
  provisioner "local-exec" {
    command     = "true"
    environment = { U = ephemeral.dbcloud_service_credentials.login.username }
  }
}
`, serviceID, adminPassword, extra)
	}
	step := func(cfg string, want ...string) resource.TestStep {
		re := make([]string, len(want))
		for i, w := range want {
			re[i] = strings.Join(strings.Fields(regexp.QuoteMeta(w)), `\s+`)
		}
		return resource.TestStep{Config: cfg, PlanOnly: true, ExpectError: regexp.MustCompile("(?s)" + strings.Join(re, ".*"))}
	}
	replicaActive := func() {
		if err := waitReplicaSetActive(ctx, client, id, deref(rs.ID)); err != nil {
			t.Fatal(err)
		}
	}
	// What the run itself may change (a password, a role, a paused service) only warns while
	// planning; an apply that needs the login fails, the warning beside the error.
	atApply := func(cfg string, want ...string) resource.TestStep {
		s := step(cfg, want...)
		s.PlanOnly = false
		return s
	}
	steps := []resource.TestStep{
		// A login works with this configuration (the plan opens it), so the cases below fail for
		// their own reason.
		{Config: config(id, password, ""), PlanOnly: true, ExpectNonEmptyPlan: true},
		atApply(config(id, "not-the-password", ""), "Could not create a login on service", "refused admin_password for tsdbadmin", "SQLSTATE 28P01"),
		atApply(config(id, password, `  member_of = ["no_such_role"]`), "Could not create a login on service", `member_of: role "no_such_role" does not exist`, "must exist on the service"),
		step(config(deref(rs.ID), password, ""), "is a read replica set of service "+id, "logins are made on the primary"),
		step(config(id, password, fmt.Sprintf("  ca_certificate = file(%q)", otherCA)), "could not be verified", "ca_certificate"),
		step(config(id, password, `  member_of = ["tsdbadmin"]`), "tsdbadmin only with read_only"),
		step(config(id, password, `  ttl = "400h"`), "Duration out of range"),
		step(config(id, password, `  ttl = "a day"`), "Invalid duration"),
		// An endpoint nobody listens on (the instance stopped behind the API's back).
		step(config(id, password, ""), "cannot reach the service's endpoint", "must reach the service's endpoint"),
		atApply(config(id, password, ""), "Could not create a login on service", "Service "+id+" is PAUSED", "Resume it"),
	}
	steps[3].PreConfig = replicaActive
	steps[8].PreConfig = func() {
		if err := pg.Stop(id); err != nil {
			t.Fatal(err)
		}
	}
	steps[9].PreConfig = func() {
		if err := pg.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := client.StopService(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := waitStatus(ctx, client, id, api.PAUSED); err != nil {
			t.Fatal(err)
		}
	}
	resource.Test(t, testCase(t, srv, steps...))
}

func writeSelfSignedCert(t *testing.T, file string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitReplicaSetActive polls the replica set until it is active (at most two minutes).
func waitReplicaSetActive(ctx context.Context, c *api.Client, serviceID, id string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		rs, err := c.GetReplicaSet(ctx, serviceID, id)
		if err == nil && rs.Status != nil && string(*rs.Status) == "active" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica set %s: not active after two minutes (%w)", id, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServiceCredentialsServiceChecks: what Open refuses before connecting, from the API's
// records: a replica set's id answered on the service path as a standby record (is_standby) or
// found only in a service's read_replica_sets (the GET answers 404), and a service that is not READY.
func TestServiceCredentialsServiceChecks(t *testing.T) {
	records := map[string]string{
		"primary001": `{"service_id":"primary001","status":"READY","endpoint":{"host":"db.example.com","port":5432},
			"read_replica_sets":[{"id":"replica002","status":"active"}]}`,
		"standby003": `{"service_id":"standby003","status":"READY","endpoint":{"host":"ro.example.com","port":5432},
			"forked_from":{"project_id":"proj000001","service_id":"primary001","is_standby":true}}`,
		"config0004": `{"service_id":"config0004","status":"CONFIGURING","endpoint":{"host":"db.example.com","port":5432}}`,
		"paused0005": `{"service_id":"paused0005","status":"PAUSED"}`,
	}
	h := http.NewServeMux()
	h.HandleFunc("GET /v1/projects/proj000001/services", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("[" + records["primary001"] + "]"))
	})
	h.HandleFunc("GET /v1/projects/proj000001/services/{id}", func(w http.ResponseWriter, r *http.Request) {
		rec, ok := records[r.PathValue("id")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"code":"not_found","message":"no service with that id exists"}`))
			return
		}
		_, _ = w.Write([]byte(rec))
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	client, err := api.New(api.Config{BaseURL: srv.URL + "/v1", AccessKey: "a", SecretKey: "s", ProjectID: "proj000001"})
	if err != nil {
		t.Fatal(err)
	}
	r := &serviceCredentials{pd: &providerData{client: client}}
	for id, want := range map[string]string{
		"primary001": "",
		"replica002": "replica002 is a read replica set of service primary001",
		"standby003": "standby003 is a read replica set of service primary001",
		// Not now (the run may change it; a destroy goes on): no error, the reason.
		"config0004": "later: Service config0004 is CONFIGURING, not READY",
		"paused0005": "later: Service paused0005 is PAUSED: a paused service accepts no logins",
		"nothing006": "later: No service with id nothing006",
	} {
		var diags diag.Diagnostics
		svc, later := r.primaryService(t.Context(), id, &diags)
		got := ""
		for _, d := range diags {
			got += d.Detail()
		}
		if later.why != "" {
			got = "later: " + later.why
		}
		if later.paused != strings.HasPrefix(id, "paused") {
			t.Errorf("%s: paused %v", id, later.paused)
		}
		switch {
		case want == "" && (svc == nil || diags.HasError()):
			t.Errorf("%s: refused: %s", id, got)
		case want != "" && (svc != nil || !strings.Contains(got, want)):
			t.Errorf("%s: %q, want %q", id, got, want)
		case strings.HasPrefix(want, "later: ") && diags.HasError():
			t.Errorf("%s: an error, want none: %s", id, got)
		}
	}
}

// TestServiceCredentialsOpenRidesOutage: Open's read of the service rides an outage for the
// provider's outage budget, as every read does; the bound on the work on the service's database
// (credentialsLoginTimeout, shortened here below the outage) does not cut it short. The API answers
// 503 for 1.5 s, then a READY service whose endpoint refuses connections: Open gets past the read
// and fails to make the login.
func TestServiceCredentialsOpenRidesOutage(t *testing.T) {
	bound := credentialsLoginTimeout
	credentialsLoginTimeout = 500 * time.Millisecond
	t.Cleanup(func() { credentialsLoginTimeout = bound })

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := closed.Addr().(*net.TCPAddr).Port
	_ = closed.Close()
	until := time.Now().Add(1500 * time.Millisecond)
	var refused, gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if time.Now().Before(until) {
			refused.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"code":"UNAVAILABLE","message":"down for maintenance"}`))
			return
		}
		gets.Add(1)
		_, _ = fmt.Fprintf(w, `{"service_id":"svc0000001","status":"READY","endpoint":{"host":"127.0.0.1","port":%d}}`, port)
	}))
	defer srv.Close()
	policy := api.RetryPolicy{MaxRetries: 2, WaitMin: 50 * time.Millisecond, WaitMax: 200 * time.Millisecond,
		MaxRetryAfter: time.Second, MaxElapsed: 30 * time.Second}
	client, err := api.New(api.Config{BaseURL: srv.URL + "/v1", AccessKey: "a", SecretKey: "s", ProjectID: "proj000001", Retry: &policy})
	if err != nil {
		t.Fatal(err)
	}
	r := &serviceCredentials{pd: &providerData{client: client}}
	var sch ephemeral.SchemaResponse
	r.Schema(t.Context(), ephemeral.SchemaRequest{}, &sch)
	raw := objectWith(t.Context(), sch.Schema.Type(), map[string]tftypes.Value{
		"service_id":     tftypes.NewValue(tftypes.String, "svc0000001"),
		"admin_password": tftypes.NewValue(tftypes.String, "Admin-pw-1"),
	})
	req := ephemeral.OpenRequest{Config: tfsdk.Config{Schema: sch.Schema, Raw: raw}}
	resp := ephemeral.OpenResponse{Result: tfsdk.EphemeralResultData{Schema: sch.Schema}}
	start := time.Now()
	r.Open(t.Context(), req, &resp)
	took := time.Since(start)

	var summaries []string
	for _, d := range resp.Diagnostics {
		summaries = append(summaries, d.Summary()+": "+d.Detail())
	}
	if refused.Load() == 0 || gets.Load() == 0 {
		t.Fatalf("%d refused and %d answered reads after %s: %q", refused.Load(), gets.Load(), took, summaries)
	}
	if len(summaries) != 1 || !strings.HasPrefix(summaries[0], "Could not create a login on service svc0000001") {
		t.Errorf("after %s: %q; want the read to ride the outage and the login to fail", took, summaries)
	}
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
