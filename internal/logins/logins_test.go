package logins

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

// TestCreateAndDrop makes logins on a real PostgreSQL instance (the emulator's backend, as a
// service has it): a read-only member of an application role with a statement timeout, a read-only
// login inheriting tsdbadmin, and what refuses them (a wrong admin password, a missing role); then
// drops them, twice.
func TestCreateAndDrop(t *testing.T) {
	ctx := t.Context()
	in := startInstance(t, "logins0001")
	admin := adminSession(t, in)
	for _, s := range []string{"CREATE ROLE app NOLOGIN", "GRANT app TO tsdbadmin", "CREATE TABLE items (v text)", "INSERT INTO items VALUES ('one')", "GRANT SELECT, INSERT ON items TO app"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	newTarget := func(password string) *Target {
		tg, err := NewTarget(in.Host(), in.Port(), "", true)
		if err != nil {
			t.Fatal(err)
		}
		tg.AdminPassword = password
		if err := tg.NewLogin(); err != nil {
			t.Fatal(err)
		}
		return tg
	}
	login := func(tg *Target) (*pgx.Conn, error) {
		return pgx.ConnectConfig(ctx, pgbackend.ConnConfig(in.Host(), in.Port(), tg.Login, tg.LoginPassword, Database))
	}

	reader := newTarget("admin-pw")
	before := time.Now()
	expires, err := reader.Create(ctx, Spec{TTL: 10 * time.Minute, ReadOnly: true, MemberOf: []string{"app"}, StatementTimeout: 45 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := expires.Sub(before); d < 9*time.Minute || d > 11*time.Minute {
		t.Errorf("expires in %s, want 10m", d)
	}
	if !strings.HasPrefix(reader.Login, UserPrefix) || len(reader.LoginPassword) != 40 {
		t.Errorf("login %q with a password of %d characters", reader.Login, len(reader.LoginPassword))
	}
	c, err := login(reader)
	if err != nil {
		t.Fatalf("the login does not log in: %v", err)
	}
	var v, timeout string
	if err := c.QueryRow(ctx, "SELECT v, current_setting('statement_timeout') FROM items").Scan(&v, &timeout); err != nil || v != "one" || timeout != "45s" {
		t.Errorf("read %q with statement_timeout %q: %v", v, timeout, err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO items VALUES ('two')"); sqlState(err) != "25006" {
		t.Errorf("the read-only login wrote: %v", err)
	}
	_ = c.Close(ctx)

	analyst := newTarget("admin-pw")
	if _, err := analyst.Create(ctx, Spec{TTL: time.Minute, ReadOnly: true, MemberOf: []string{AdminRole}}); err != nil {
		t.Fatalf("a read-only login inheriting tsdbadmin: %v", err)
	}

	if _, err := newTarget("wrong").Create(ctx, Spec{TTL: time.Minute}); !errors.Is(err, ErrAdminPasswordRefused) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong admin password: %v", err)
	}
	if _, err := newTarget("admin-pw").Create(ctx, Spec{TTL: time.Minute, MemberOf: []string{"nobody"}}); !errors.Is(err, ErrRoleMissing) {
		t.Errorf("a missing role: %v", err)
	}

	for _, tg := range []*Target{reader, analyst, reader} { // dropping twice is no error
		if err := tg.Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", tg.Login, err)
		}
	}
	var left int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\\_login\\_%'").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d logins left after the drops: %v", left, err)
	}
	if c, err := login(reader); err == nil {
		_ = c.Close(ctx)
		t.Error("a dropped login logs in")
	}

	// Another CA than the server's: refused, also on loopback.
	other, err := NewTarget(in.Host(), in.Port(), selfSignedPEM(t), true)
	if err != nil {
		t.Fatal(err)
	}
	other.AdminPassword = "admin-pw"
	if err := other.NewLogin(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Create(ctx, Spec{TTL: time.Minute}); err == nil || !strings.Contains(err.Error(), "could not be verified") {
		t.Errorf("a server certificate of another CA: %v", err)
	}
}

// TestTargetTLS: which endpoints are verified, and how.
func TestTargetTLS(t *testing.T) {
	lo, err := NewTarget("127.0.0.1", 5432, "", true)
	if err != nil || !lo.TLS.InsecureSkipVerify {
		t.Errorf("loopback: %+v, %v", lo, err)
	}
	remote, err := NewTarget("db.example.com", 5432, "", false)
	if err != nil || remote.TLS.InsecureSkipVerify || remote.TLS.ServerName != "db.example.com" || remote.TLS.RootCAs != nil {
		t.Errorf("remote: %+v, %v", remote, err)
	}
	withCA, err := NewTarget("127.0.0.1", 5432, selfSignedPEM(t), true)
	if err != nil || withCA.TLS.InsecureSkipVerify || withCA.TLS.RootCAs == nil {
		t.Errorf("with a CA: %+v, %v", withCA, err)
	}
	if _, err := NewTarget("db.example.com", 5432, "not a certificate", false); err == nil {
		t.Error("a ca_certificate without a certificate was accepted")
	}
	tg := &Target{AdminPassword: "s3cret", LoginPassword: "l0gin"}
	if got := tg.Mask("a s3cret and l0gin"); strings.Contains(got, "s3cret") || strings.Contains(got, "l0gin") {
		t.Errorf("Mask: %q", got)
	}
	s, err := WithUser("postgresql://tsdbadmin@h:1/tsdb?sslmode=require", "tf_login_x", "p@ss:/?#w")
	u, _ := url.Parse(s)
	if pw, _ := u.User.Password(); err != nil || pw != "p@ss:/?#w" || u.User.Username() != "tf_login_x" || u.RawQuery != "sslmode=require" {
		t.Errorf("WithUser: %q, %v", s, err)
	}
}

// The server gets a SCRAM verifier, salted anew each time, never the password (TestCreateAndDrop
// logs in with the password, which proves the verifier right).
func TestSCRAMVerifier(t *testing.T) {
	a, err := SCRAMVerifier("pencil")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SCRAMVerifier("pencil")
	form := regexp.MustCompile(`^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$`)
	if !form.MatchString(a) || a == b || strings.Contains(a, "pencil") {
		t.Errorf("verifiers %q and %q", a, b)
	}
}

func selfSignedPEM(t *testing.T) string {
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
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// TestDropLeftovers: logins made with a key carry the marker; DropLeftovers drops those of the key
// that keep does not claim (also a read-only member of tsdbadmin, and one whose VALID UNTIL has
// passed, found as expired), and leaves those of another key, those kept, the target's own and roles
// without the marker.
func TestDropLeftovers(t *testing.T) {
	ctx := t.Context()
	in := startInstance(t, "logins0002")
	made := func(spec Spec) *Target {
		t.Helper()
		tg, err := NewTarget(in.Host(), in.Port(), "", true)
		if err != nil {
			t.Fatal(err)
		}
		tg.AdminPassword = "admin-pw"
		if err := tg.NewLogin(); err != nil {
			t.Fatal(err)
		}
		if tg.Expires, err = tg.Create(ctx, spec); err != nil {
			t.Fatal(err)
		}
		return tg
	}
	left := made(Spec{TTL: time.Hour, Key: "aaaa"})
	leftReader := made(Spec{TTL: time.Hour, ReadOnly: true, MemberOf: []string{AdminRole}, Key: "aaaa"})
	kept := made(Spec{TTL: time.Hour, Key: "aaaa"})
	other := made(Spec{TTL: time.Hour, Key: "bbbb"})
	unmarked := made(Spec{TTL: time.Hour})
	self := made(Spec{TTL: time.Hour, Key: "aaaa"})
	expired := made(Spec{TTL: time.Hour, Key: "aaaa"})
	admin := adminSession(t, in)
	if _, err := admin.Exec(ctx, "ALTER ROLE "+expired.Login+" VALID UNTIL '2000-01-01 00:00:00+00'"); err != nil {
		t.Fatal(err)
	}

	found, err := self.DropLeftovers(ctx, "aaaa", func(login string) bool { return login == kept.Login })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Leftover{}
	for _, l := range found {
		if l.Err != nil {
			t.Errorf("%s: %v", l.Login, l.Err)
		}
		got[l.Login] = l
	}
	want := map[string]Leftover{
		left.Login:       {Login: left.Login, Expires: left.Expires.UTC().Format(time.RFC3339)},
		leftReader.Login: {Login: leftReader.Login, Expires: leftReader.Expires.UTC().Format(time.RFC3339)},
		expired.Login:    {Login: expired.Login, Expires: expired.Expires.UTC().Format(time.RFC3339), Expired: true},
	}
	if !maps.Equal(got, want) {
		t.Errorf("found %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		tg   *Target
		want bool
	}{{left, false}, {leftReader, false}, {expired, false}, {kept, true}, {other, true}, {unmarked, true}, {self, true}} {
		var exists bool
		if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", c.tg.Login).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists != c.want {
			t.Errorf("%s: exists %v, want %v", c.tg.Login, exists, c.want)
		}
	}
}

// TestAdminCallsOnlySystemFunctions: an ordinary login that may create in schema public (as the
// connecting guide's application role may) plants functions there that match the calls of the
// provider's admin session (make, drop, look for leftovers) better than the system's; none of them
// runs as tsdbadmin: the login does not become a member of tsdbadmin.
func TestAdminCallsOnlySystemFunctions(t *testing.T) {
	ctx := t.Context()
	in := startInstance(t, "logins0003")
	admin := adminSession(t, in)
	for _, s := range []string{"CREATE ROLE app NOLOGIN", "GRANT USAGE, CREATE ON SCHEMA public TO app", "CREATE ROLE planter LOGIN PASSWORD 'p' IN ROLE app"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	planter, err := pgx.ConnectConfig(ctx, pgbackend.ConnConfig(in.Host(), in.Port(), "planter", "p", Database))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = planter.Close(context.WithoutCancel(ctx)) }()
	// Each takes text where the system's function takes name or another type, and a literal of the
	// caller (unknown) prefers text; run by tsdbadmin, each would make planter a member of it.
	grab := `BEGIN EXECUTE 'GRANT tsdbadmin TO planter'; RETURN %s; END`
	for _, f := range []string{
		"public.shobj_description(o oid, c text) RETURNS text LANGUAGE plpgsql AS $f$ " + fmt.Sprintf(grab, "pg_catalog.shobj_description(o, c::name)") + " $f$",
		"public.date_trunc(f text, v timestamptz, z text) RETURNS timestamptz LANGUAGE plpgsql AS $f$ " + fmt.Sprintf(grab, "pg_catalog.date_trunc(f, v, z)") + " $f$",
		"public.make_interval(secs text) RETURNS interval LANGUAGE plpgsql AS $f$ " + fmt.Sprintf(grab, "pg_catalog.make_interval(secs => secs::float8)") + " $f$",
	} {
		if _, err := planter.Exec(ctx, "SET ROLE app; CREATE FUNCTION "+f+"; RESET ROLE"); err != nil {
			t.Fatalf("planting %s: %v", f, err)
		}
	}
	tg, err := NewTarget(in.Host(), in.Port(), "", true)
	if err != nil {
		t.Fatal(err)
	}
	tg.AdminPassword = "admin-pw"
	if err := tg.NewLogin(); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Create(ctx, Spec{TTL: time.Minute, MemberOf: []string{"app"}, Key: "cccc"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.DropLeftovers(ctx, "cccc", func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if err := tg.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	var member bool
	if err := admin.QueryRow(ctx, "SELECT pg_has_role('planter', 'tsdbadmin', 'MEMBER')").Scan(&member); err != nil || member {
		t.Errorf("planter is a member of tsdbadmin after the admin session's calls (%v): it ran planter's function", err)
	}
}

// startInstance starts PostgreSQL as the emulator's backend runs a service's, with one instance named
// name whose tsdbadmin password is "admin-pw"; both stop when the test ends.
func startInstance(t *testing.T, name string) *pgbackend.Instance {
	t.Helper()
	m, err := pgbackend.Start(t.Context(), pgbackend.Options{})
	if err != nil {
		t.Fatalf("starting PostgreSQL (needs its server binaries): %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	in, _, err := m.Create(t.Context(), name, pgbackend.CreateOptions{Password: "admin-pw"})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// adminSession is a session of tsdbadmin on in's database, closed when the test ends.
func adminSession(t *testing.T, in *pgbackend.Instance) *pgx.Conn {
	t.Helper()
	admin, err := pgx.ConnectConfig(t.Context(), pgbackend.ConnConfig(in.Host(), in.Port(), AdminRole, "admin-pw", Database))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(context.Background()) })
	return admin
}
