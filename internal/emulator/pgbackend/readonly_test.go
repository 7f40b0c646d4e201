package pgbackend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
)

// loginAs logs in as user to tsdb over TLS.
func loginAsUser(ctx context.Context, in *Instance, user, password string) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, ConnConfig(in.Host(), in.Port(), user, password, Database))
}

// TestReadOnlyLogins: a role made read-only the vendor's way (ALTER ROLE ... SET
// tsdb_admin.read_only_role = true, by tsdbadmin) reads what it was granted and cannot write, also
// after it turns default_transaction_read_only and the flag's session value off; it cannot drop the
// flag from itself; the vendor's timescale_functions make a read-only role inheriting tsdbadmin;
// tsdbadmin is not a superuser; a session opened with tsdb_admin.read_only_connection = true cannot
// write; VALID UNTIL and DROP ROLE end logins.
func TestReadOnlyLogins(t *testing.T) {
	m := manager(t)
	ctx := t.Context()
	_, in, admin := adminInstance(t, m)
	if queryBool(t, admin, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user") {
		t.Error("tsdbadmin is a superuser")
	}
	mustExec(t, admin, "CREATE ROLE app NOLOGIN")
	mustExec(t, admin, "GRANT CREATE ON SCHEMA public TO app")
	mustExec(t, admin, "CREATE ROLE writer LOGIN PASSWORD 'w' IN ROLE app")
	mustExec(t, admin, "CREATE ROLE reader LOGIN PASSWORD 'r' IN ROLE app")
	mustExec(t, admin, "ALTER ROLE reader SET "+ReadOnlyRoleSetting+" = true")

	w, err := loginAsUser(ctx, in, "writer", "w")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close(ctx) }()
	mustExec(t, w, "SET ROLE app")
	mustExec(t, w, "CREATE TABLE things (v text)")
	mustExec(t, w, "INSERT INTO things VALUES ('one')")

	r, err := loginAsUser(ctx, in, "reader", "r")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(ctx) }()
	if v := queryString(t, r, "SELECT v FROM things"); v != "one" {
		t.Errorf("the read-only login read %q", v)
	}
	if _, err := r.Exec(ctx, "SET default_transaction_read_only = off"); sqlState(err) != "25006" {
		t.Errorf("SET default_transaction_read_only = off in a read-only session: %v, want SQLSTATE 25006", err)
	}
	if _, err := r.Exec(ctx, "SET "+ReadOnlyRoleSetting+" = false"); err == nil { // only tsdbadmin may set it
		t.Error("the read-only login set " + ReadOnlyRoleSetting)
	}
	for _, stmt := range []string{
		"INSERT INTO things VALUES ('two')",
		"UPDATE things SET v = 'x'",
		"DELETE FROM things",
		"TRUNCATE things",
		"CREATE TABLE other (v text)",
		"DROP TABLE things",
		"ALTER TABLE things DISABLE TRIGGER ALL",
		"SET ROLE app; INSERT INTO things VALUES ('three')",
	} {
		_, err := r.Exec(ctx, stmt)
		if sqlState(err) != "25006" {
			t.Errorf("read-only login: %s: %v, want SQLSTATE 25006", stmt, err)
		}
		_, _ = r.Exec(ctx, "RESET ROLE")
	}
	if _, err := r.Exec(ctx, "ALTER ROLE reader RESET "+ReadOnlyRoleSetting); err == nil {
		t.Error("the read-only login removed its own flag")
	}
	if _, err := r.Exec(ctx, "SET session_replication_role = replica"); err == nil {
		t.Error("the read-only login turned triggers off")
	}
	if n := queryString(t, w, "SELECT count(*)::text FROM things"); n != "1" {
		t.Errorf("%s rows after the refused writes, want 1", n)
	}
	// tsdbadmin and the writer still write.
	mustExec(t, admin, "CREATE TABLE admin_things AS SELECT 'admin' AS v")
	mustExec(t, admin, "INSERT INTO admin_things VALUES ('admin')")
	mustExec(t, w, "INSERT INTO things VALUES ('writer')")

	// The vendor's read-only role inheriting tsdbadmin.
	mustExec(t, admin, "SELECT timescale_functions.create_bare_readonly_role('analyst', 'a')")
	mustExec(t, admin, "SELECT timescale_functions.grant_tsdbadmin_to_role('analyst')")
	if _, err := admin.Exec(ctx, "SELECT timescale_functions.grant_tsdbadmin_to_role('writer')"); err == nil {
		t.Error("grant_tsdbadmin_to_role accepted a role that is not read-only")
	}
	a, err := loginAsUser(ctx, in, "analyst", "a")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Close(ctx) }()
	if v := queryString(t, a, "SELECT count(*)::text FROM admin_things"); v != "2" {
		t.Errorf("the analyst counted %s rows, want 2", v)
	}
	if _, err := a.Exec(ctx, "SET default_transaction_read_only = off"); sqlState(err) != "25006" {
		t.Errorf("SET default_transaction_read_only = off in a read-only session: %v, want SQLSTATE 25006", err)
	}
	if _, err := a.Exec(ctx, "ALTER ROLE analyst RESET ALL"); err != nil {
		t.Logf("ALTER ROLE analyst RESET ALL: %v", err)
	}
	// It inherits tsdbadmin, and writes nothing all the same.
	if _, err := a.Exec(ctx, "INSERT INTO admin_things VALUES ('analyst')"); sqlState(err) != "25006" {
		t.Errorf("the analyst wrote: %v", err)
	}
	if _, err := a.Exec(ctx, "SELECT timescale_functions.create_bare_readonly_role('x', 'x')"); sqlState(err) != "25006" && sqlState(err) != "42501" {
		t.Errorf("the analyst made a role: %v", err)
	}

	// A session opened with the vendor's option cannot write either, even as tsdbadmin.
	cfg := ConnConfig(in.Host(), in.Port(), AdminUser, "admin-pw", Database)
	cfg.RuntimeParams["options"] = "-c " + ReadOnlyOption + "=true"
	ro, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ro.Close(ctx) }()
	if v := queryString(t, ro, "SELECT count(*)::text FROM admin_things"); v != "2" {
		t.Errorf("the read-only session counted %s rows, want 2", v)
	}
	if _, err := ro.Exec(ctx, "SET default_transaction_read_only = off"); sqlState(err) != "25006" {
		t.Errorf("SET default_transaction_read_only = off in a read-only session: %v, want SQLSTATE 25006", err)
	}
	if _, err := ro.Exec(ctx, "INSERT INTO admin_things VALUES ('ro')"); sqlState(err) != "25006" {
		t.Errorf("a read-only session wrote: %v", err)
	}

	// Expiry and drop.
	mustExec(t, admin, "CREATE ROLE expired LOGIN PASSWORD 'e' VALID UNTIL '2000-01-01'")
	if c, err := loginAsUser(ctx, in, "expired", "e"); err == nil {
		_ = c.Close(ctx)
		t.Error("an expired role logged in")
	}
	mustExec(t, admin, "DROP ROLE analyst")
	if c, err := loginAsUser(ctx, in, "analyst", "a"); err == nil {
		_ = c.Close(ctx)
		t.Error("a dropped role logged in")
	}
}

// TestReadOnlySetupOnKeptData: an instance whose data predates the read-only emulation (kept with
// Options.DataDir) gets it when it starts again.
func TestReadOnlySetupOnKeptData(t *testing.T) {
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "pgdata")
	// Running as root, the servers run as another user: it must reach the directory.
	if err := os.Chmod(filepath.Dir(dataDir), 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(filepath.Dir(dataDir)), 0o711); err != nil {
		t.Fatal(err)
	}
	m, err := Start(ctx, Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Close() }()
	id := newID()
	in, _, err := m.Create(ctx, id, CreateOptions{Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	// As an older emulator left it: no timescale_functions.
	if err := in.admin(ctx, Database, "DROP SCHEMA timescale_functions CASCADE"); err != nil {
		t.Fatal(err)
	}
	if err := m.Stop(id); err != nil {
		t.Fatal(err)
	}
	m.unregister(id)
	in, _, err = m.Create(ctx, id, CreateOptions{Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	admin := mustConnect(t, in.Host(), in.Port(), "pw")
	if !queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'create_bare_readonly_role')") {
		t.Error("the restarted instance has no timescale_functions")
	}
	mustExec(t, admin, "SELECT timescale_functions.create_bare_readonly_role('ro', 'ro')")

	// As the emulator left it before the extension: a trigger on every table and event triggers
	// that refuse what the extension now refuses. They are removed when the instance starts again.
	if err := in.admin(ctx, Database,
		`CREATE TABLE timescale_functions.read_only_roles (roleid oid PRIMARY KEY)`,
		`CREATE FUNCTION timescale_functions.refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'old trigger'; END $$`,
		`CREATE FUNCTION timescale_functions.refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN END $$`,
		`CREATE EVENT TRIGGER tsdb_admin_read_only_ddl ON ddl_command_start EXECUTE FUNCTION timescale_functions.refuse_ddl()`,
		`CREATE TABLE public.kept (v text)`,
		`ALTER TABLE public.kept OWNER TO `+AdminUser,
		`CREATE TRIGGER tsdb_admin_read_only BEFORE INSERT ON public.kept FOR EACH STATEMENT EXECUTE FUNCTION timescale_functions.refuse_write()`,
	); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close(ctx)
	if err := m.Stop(id); err != nil {
		t.Fatal(err)
	}
	m.unregister(id)
	in, _, err = m.Create(ctx, id, CreateOptions{Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	admin = mustConnect(t, in.Host(), in.Port(), "pw")
	mustExec(t, admin, "INSERT INTO kept VALUES ('written')")
	if queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_event_trigger) OR EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'tsdb_admin_read_only')") {
		t.Error("the old read-only triggers are still there")
	}
}
