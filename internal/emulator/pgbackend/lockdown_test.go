package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// forbiddenPredefined are the predefined roles no role of the service may be a member of (every
// predefined role of PostgreSQL 15 that can be granted, but tsdbadmin's two).
var forbiddenPredefined = []string{
	"pg_execute_server_program", "pg_read_server_files", "pg_write_server_files", "pg_read_all_data",
	"pg_write_all_data", "pg_read_all_settings", "pg_monitor", "pg_stat_scan_tables", "pg_checkpoint",
}

// adminPreparation is everything tsdbadmin (and a login it makes with CREATEROLE) may try before
// the routes out are tried: every way of making a role of the service a member of a forbidden
// predefined role is refused (SQLSTATE 42501 from the lockdown; PostgreSQL's own refusal of ALTER
// GROUP on a reserved role, or of a circular grant); what it may do is done (a login "maker" with
// CREATEROLE and CREATEDB, membership in the pooler's auth role, tsdbadmin's own predefined roles
// given to app). It needs the role app (tsdbadmin a member of it).
func adminPreparation(t *testing.T, in *Instance, admin *pgx.Conn) {
	t.Helper()
	ctx := t.Context()
	for _, s := range []string{
		"CREATE ROLE maker LOGIN CREATEROLE CREATEDB PASSWORD 'm'",
		"GRANT " + poolerAuthUser + " TO " + AdminUser,
		"GRANT pg_read_all_stats, pg_signal_backend TO app",
		`CREATE FUNCTION public.grant_as_definer(r text, m text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
		   AS $$ BEGIN EXECUTE format('GRANT %I TO %I', r, m); END $$`,
	} {
		mustExec(t, admin, s)
	}
	maker := mustLogin(t, in, "maker", "m")
	for i, f := range forbiddenPredefined {
		for _, p := range []struct {
			conn *pgx.Conn
			stmt string
		}{
			{admin, "GRANT " + f + " TO tsdbadmin"},
			{admin, "GRANT " + f + " TO tsdbadmin WITH ADMIN OPTION"},
			{admin, "GRANT " + f + " TO app"},               // a role tsdbadmin is a member of
			{admin, "GRANT " + f + " TO pg_read_all_stats"}, // a predefined role tsdbadmin has
			{admin, "GRANT " + f + " TO maker"},
			{admin, fmt.Sprintf("CREATE ROLE prep_%d IN ROLE %s", i, f)},
			{admin, fmt.Sprintf("CREATE ROLE prep_admin_%d; GRANT %s TO prep_admin_%d", i, f, i)},
			{admin, "ALTER GROUP " + f + " ADD USER tsdbadmin"},
			{admin, "DO $$ BEGIN EXECUTE 'GRANT " + f + " TO tsdbadmin'; END $$"},
			{admin, "SELECT public.grant_as_definer('" + f + "', 'tsdbadmin')"},
			{maker, "GRANT " + f + " TO maker"},
			{maker, "GRANT " + f + " TO tsdbadmin"},
			{maker, fmt.Sprintf("CREATE ROLE prep_maker_%d IN ROLE %s", i, f)},
		} {
			if _, err := p.conn.Exec(ctx, p.stmt); sqlState(err) == "" {
				t.Errorf("preparation %s (as %s): %v, want it refused by the server", p.stmt, p.conn.Config().User, err)
			}
		}
	}
	for _, f := range forbiddenPredefined {
		if queryBool(t, admin, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE oid >= 16384 AND NOT rolsuper AND pg_has_role(oid, $1, 'MEMBER'))`, f) {
			t.Errorf("a role of the service is a member of %s after the preparation", f)
		}
	}
}

// lockdownPath is a way into the service: a session, with statements run first (SET ROLE ...).
type lockdownPath struct {
	name   string
	open   func() (*pgx.Conn, error)
	before []string
}

// lockdownPaths are every kind of session of the service: tsdbadmin (directly, through the pooler,
// after SET ROLE to a role it made or to the pooler's auth role), a login with CREATEROLE that it
// made, a read-only login inheriting tsdbadmin, a read_only_connection session, a read-only
// login, an ordinary login.
func lockdownPaths(ctx context.Context, m *Manager, id string, in *Instance) []lockdownPath {
	as := func(user, password, options string, port int) func() (*pgx.Conn, error) {
		return func() (*pgx.Conn, error) {
			cfg := ConnConfig(in.Host(), port, user, password, Database)
			if options != "" {
				cfg.RuntimeParams["options"] = options
			}
			return pgx.ConnectConfig(ctx, cfg)
		}
	}
	paths := []lockdownPath{
		{"tsdbadmin", as(AdminUser, "admin-pw", "", in.Port()), nil},
		{"tsdbadmin after SET ROLE to a role it made", as(AdminUser, "admin-pw", "", in.Port()), []string{"GRANT maker TO tsdbadmin", "SET ROLE maker"}},
		{"tsdbadmin after SET ROLE " + poolerAuthUser, as(AdminUser, "admin-pw", "", in.Port()), []string{"SET ROLE " + poolerAuthUser}},
		{"a login with CREATEROLE made by tsdbadmin", as("maker", "m", "", in.Port()), nil},
		{"read-only login inheriting tsdbadmin", as("analyst", "a", "", in.Port()), nil},
		{"read_only_connection session", as(AdminUser, "admin-pw", "-c "+ReadOnlyOption+"=true", in.Port()), nil},
		{"read-only login", as("reader", "r", "", in.Port()), nil},
		{"ordinary login", as("writer", "w", "", in.Port()), nil},
	}
	if port := m.PoolerPort(id); port != 0 {
		paths = append(paths,
			lockdownPath{"tsdbadmin through the pooler", as(AdminUser, "admin-pw", "", port), nil},
			lockdownPath{"read-only login inheriting tsdbadmin through the pooler", as("analyst", "a", "", port), nil})
	}
	return paths
}

// lockdownRoute is a way out: to run a program, read or write a server file, read a password
// verifier, or reach another service. verifier: a null answer counts as refused too.
type lockdownRoute struct {
	name, sql string
	verifier  bool
}

// lockdownRoutes are the routes out of instance in, toward the machine (marker: a file that a
// program or a server-side write would make) and toward the instance other.
func lockdownRoutes(in, other *Instance, marker string) []lockdownRoute {
	psqlTo := func(i *Instance) string {
		return fmt.Sprintf(`psql -h %s -p %d -U postgres -d tsdb -c "CREATE ROLE pwned SUPERUSER LOGIN"`, i.sock, i.Port())
	}
	conninfo := func(i *Instance) string {
		return fmt.Sprintf("host=%s port=%d user=postgres dbname=tsdb", i.sock, i.Port())
	}
	return []lockdownRoute{
		{"COPY TO PROGRAM", "COPY (SELECT 1) TO PROGRAM 'touch " + marker + "'", false},
		{"COPY TO PROGRAM psql, its own socket as the superuser", "COPY (SELECT 1) TO PROGRAM '" + psqlTo(in) + "'", false},
		{"COPY TO PROGRAM psql, another service's socket", "COPY (SELECT 1) TO PROGRAM '" + psqlTo(other) + "'", false},
		{"COPY FROM PROGRAM", "COPY things (v) FROM PROGRAM 'id'", false},
		{"COPY TO a server file", "COPY (SELECT 'x') TO '" + marker + "'", false},
		{"COPY FROM a server file", "COPY things (v) FROM 'PG_VERSION'", false},
		{"pg_read_file", "SELECT pg_read_file('PG_VERSION')", false},
		{"pg_read_binary_file", "SELECT pg_read_binary_file('global/pg_control')", false},
		{"pg_ls_dir", "SELECT pg_ls_dir('.')", false},
		{"pg_stat_file", "SELECT pg_stat_file('PG_VERSION')", false},
		{"pg_ls_logdir", "SELECT pg_ls_logdir()", false},
		{"pg_ls_waldir", "SELECT pg_ls_waldir()", false},
		{"pg_hba_file_rules", "SELECT count(*) FROM pg_hba_file_rules", false},
		{"pg_ident_file_mappings", "SELECT count(*) FROM pg_ident_file_mappings", false},
		{"pg_file_settings", "SELECT count(*) FROM pg_file_settings", false},
		{"pg_ls_tmpdir", "SELECT pg_ls_tmpdir()", false},
		{"pg_ls_archive_statusdir", "SELECT pg_ls_archive_statusdir()", false},
		{"pg_current_logfile", "SELECT pg_current_logfile()", false},
		{"lo_import of a server file", "SELECT lo_import('PG_VERSION')", false},
		{"lo_export to a server file", "SELECT lo_export(0, '" + marker + "')", false},
		{"pg_authid's verifier", "SELECT rolpassword FROM pg_authid WHERE rolname = 'writer'", true},
		{"pg_shadow's verifier", "SELECT passwd FROM pg_shadow WHERE usename = 'writer'", true},
		{"the pooler's auth function", "SELECT passwd FROM timescale_functions.pooler_auth('writer')", true},
		{"CREATE EXTENSION dblink", "CREATE EXTENSION dblink", false},
		{"CREATE EXTENSION postgres_fdw", "CREATE EXTENSION postgres_fdw", false},
		{"CREATE EXTENSION file_fdw", "CREATE EXTENSION file_fdw", false},
		{"CREATE EXTENSION adminpack", "CREATE EXTENSION adminpack", false},
		{"dblink to another service's socket", "SELECT dblink_connect('" + conninfo(other) + "')", false},
		{"a C function", "CREATE FUNCTION public.pwned() RETURNS text LANGUAGE c AS 'dblink', 'dblink_connect'", false},
		{"an internal function", "CREATE FUNCTION public.pwned(text) RETURNS text LANGUAGE internal AS 'pg_read_file_off_len_missing'", false},
		{"an untrusted language", "CREATE LANGUAGE pwned HANDLER plpgsql_call_handler", false},
		{"a foreign-data wrapper", "CREATE FOREIGN DATA WRAPPER pwned", false},
		{"a subscription to another service", "CREATE SUBSCRIPTION pwned CONNECTION '" + conninfo(other) + "' PUBLICATION p", false},
		{"a tablespace", "CREATE TABLESPACE pwned LOCATION '" + filepath.Dir(marker) + "'", false},
		{"an event trigger", "CREATE EVENT TRIGGER pwned ON ddl_command_start EXECUTE FUNCTION pg_catalog.pg_event_trigger_ddl_commands()", false},
		{"ALTER SYSTEM", "ALTER SYSTEM SET archive_command = 'touch " + marker + "'", false},
		{"LOAD a library", "LOAD 'dblink'", false},
		{"ALTER ROLE SET session_preload_libraries", "ALTER ROLE CURRENT_USER SET session_preload_libraries = 'dblink'", false},
		{"ALTER ROLE SUPERUSER", "ALTER ROLE CURRENT_USER SUPERUSER", false},
		{"CREATE ROLE REPLICATION", "CREATE ROLE pwned LOGIN REPLICATION PASSWORD 'p'", false},
		{"ALTER ROLE the superuser's password", "ALTER ROLE postgres PASSWORD 'p'", false},
	}
}

// TestLockdownRoutes: no session of the service, after every preparation tsdbadmin may make
// (adminPreparation), runs a program, reads or writes a server file, reads a password verifier or
// reaches another service of the same emulator: every route (lockdownRoutes) on every path
// (lockdownPaths) is refused, no file appears, and the other service is as it was. Nor does any
// connection reach the superuser: not over the socket without its password (or with the
// template's), not over TCP with it.
func TestLockdownRoutes(t *testing.T) {
	m := manager(t)
	ctx := t.Context()
	id, in, admin := adminInstance(t, m)
	_, other, otherAdmin := adminInstance(t, m)
	for _, s := range []string{
		"CREATE ROLE app NOLOGIN", "GRANT CREATE ON SCHEMA public TO app", "GRANT app TO tsdbadmin", "SET ROLE app",
		"CREATE TABLE things (id bigserial PRIMARY KEY, v text)", "RESET ROLE",
		"CREATE ROLE reader LOGIN PASSWORD 'r' IN ROLE app", "ALTER ROLE reader SET " + ReadOnlyRoleSetting + " = true",
		"CREATE ROLE writer LOGIN PASSWORD 'w' IN ROLE app",
		"SELECT timescale_functions.create_bare_readonly_role('analyst', 'a')", "SELECT timescale_functions.grant_tsdbadmin_to_role('analyst')",
	} {
		mustExec(t, admin, s)
	}
	adminPreparation(t, in, admin)
	if m.PgBouncer() {
		if _, err := m.EnablePooler(id, "admin-pw"); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(os.TempDir(), "dbcloud-lockdown-"+id)
	_ = os.Remove(marker)
	otherBefore := instanceObjects(t, otherAdmin)
	for _, p := range lockdownPaths(ctx, m, id, in) {
		for _, r := range lockdownRoutes(in, other, marker) {
			t.Run(p.name+"/"+r.name, func(t *testing.T) {
				c, err := p.open()
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = c.Close(context.WithoutCancel(ctx)) }()
				for _, s := range p.before {
					mustExec(t, c, s)
				}
				var got *string
				if r.verifier {
					if err = c.QueryRow(ctx, r.sql).Scan(&got); errors.Is(err, pgx.ErrNoRows) {
						err = nil
					}
				} else {
					_, err = c.Exec(ctx, r.sql)
				}
				switch {
				case err != nil && sqlState(err) == "":
					t.Fatalf("%s: %v, want a refusal by the server", r.sql, err)
				case err == nil && (!r.verifier || got != nil):
					t.Errorf("%s: allowed (answer %v), want it refused", r.sql, got != nil)
				}
			})
		}
	}
	if _, err := os.Stat(marker); err == nil {
		_ = os.Remove(marker)
		t.Errorf("%s was made by a route out", marker)
	}
	if after := instanceObjects(t, otherAdmin); after != otherBefore {
		t.Errorf("the other service changed:\nbefore %s\nafter  %s", otherBefore, after)
	}
	if queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pwned' OR rolsuper AND rolname <> 'postgres')") {
		t.Error("a route made a role pwned or a superuser")
	}
	noSuperuserLogin(t, in)
}

// instanceObjects lists an instance's roles and tables.
func instanceObjects(t *testing.T, admin *pgx.Conn) string {
	return queryString(t, admin, `SELECT (SELECT string_agg(rolname || ':' || rolsuper, ',' ORDER BY rolname) FROM pg_roles) || ' / ' ||
		coalesce((SELECT string_agg(schemaname || '.' || tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')), '')`)
}

// noSuperuserLogin: the superuser logs in over the instance's socket with the instance's password
// only, never over TCP, and tsdbadmin, which logs in on the socket without one, is no superuser.
func noSuperuserLogin(t *testing.T, in *Instance) {
	ctx := t.Context()
	socket := func(user, password string) error {
		cfg, err := pgx.ParseConfig("sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database = in.sock, uint16(in.Port()), user, password, Database
		cfg.Fallbacks = nil
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			_ = c.Close(ctx)
		}
		return err
	}
	for _, pw := range []string{"", in.m.templatePW, "wrong"} {
		if err := socket(superuser, pw); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
			t.Errorf("the superuser over the socket with password %q: %v, want password authentication failed", pw, err)
		}
	}
	if err := socket(superuser, in.superuserPassword()); err != nil {
		t.Errorf("the superuser over the socket with the instance's password: %v", err)
	}
	c, err := pgx.ConnectConfig(ctx, ConnConfig(in.Host(), in.Port(), superuser, in.superuserPassword(), Database))
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		_ = c.Close(ctx)
		t.Error("the superuser logged in over TCP")
	case !errors.As(err, &pgErr) || pgErr.Code != "28000":
		t.Errorf("the superuser over TCP: %v, want refused by pg_hba (28000)", err)
	}
	if err := socket(AdminUser, ""); err != nil {
		t.Errorf("tsdbadmin over the socket: %v (PgBouncer logs in there)", err)
	}
}

// TestLockdownOnKeptData: an instance kept from an older emulator is locked down when it starts
// again. As the older emulator left it: a pg_hba.conf in its data directory that trusts every local
// connection, a superuser without a password, and memberships tsdbadmin could give (itself
// pg_execute_server_program, app pg_read_all_data, pg_read_all_stats pg_write_server_files). Once
// restarted the memberships are gone, the superuser needs the instance's new password, COPY ...
// PROGRAM is refused, a function tsdbadmin left for the upgrade to call is not called, and its hot
// standby, kept too, streams from it again.
func TestLockdownOnKeptData(t *testing.T) {
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "pgdata")
	// Running as root, the servers run as another user: it must reach the directory.
	for _, d := range []string{filepath.Dir(dataDir), filepath.Dir(filepath.Dir(dataDir))} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Start(ctx, Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Close() }()
	id, rid := newID(), newID()
	in, _, err := m.Create(ctx, id, CreateOptions{Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Replica(ctx, id, rid); err != nil {
		t.Fatal(err)
	}
	admin := mustConnect(t, in.Host(), in.Port(), "pw")
	mustExec(t, admin, "CREATE ROLE app NOLOGIN")
	mustExec(t, admin, "CREATE TABLE kept (v text)")
	// A trap for the superuser's upgrade: a function of tsdbadmin's schema public that matches the
	// upgrade's format() call better than pg_catalog's, and would make tsdbadmin a superuser.
	mustExec(t, admin, `CREATE FUNCTION public.format(f text, a name, b name) RETURNS text LANGUAGE sql
		AS $$ SELECT 'ALTER ROLE tsdbadmin SUPERUSER' $$`)
	_ = admin.Close(ctx)
	for _, name := range []string{rid, id} {
		if err := m.Stop(name); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"GRANT pg_execute_server_program TO tsdbadmin", "GRANT pg_read_all_data TO app",
		"GRANT pg_write_server_files TO pg_read_all_stats", "ALTER ROLE " + superuser + " PASSWORD NULL"} {
		if err := m.singleUser(in, s, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.writeFile(filepath.Join(in.data, "pg_hba.conf"), []byte("local all all trust\nhost all all 127.0.0.1/32 trust\n")); err != nil {
		t.Fatal(err)
	}
	m.unregister(rid)
	m.unregister(id)

	if in, _, err = m.Create(ctx, id, CreateOptions{Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	standby, err := m.Replica(ctx, id, rid)
	if err != nil {
		t.Fatal(err)
	}
	admin = mustConnect(t, in.Host(), in.Port(), "pw")
	for _, f := range forbiddenPredefined {
		if queryBool(t, admin, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE oid >= 16384 AND NOT rolsuper AND pg_has_role(oid, $1, 'MEMBER'))`, f) {
			t.Errorf("a role of the kept instance is still a member of %s", f)
		}
	}
	if queryBool(t, admin, "SELECT rolsuper FROM pg_roles WHERE rolname = 'tsdbadmin'") {
		t.Error("the upgrade ran tsdbadmin's function as the superuser: tsdbadmin is a superuser")
	}
	if _, err := admin.Exec(ctx, "COPY (SELECT 1) TO PROGRAM 'true'"); sqlState(err) != "42501" {
		t.Errorf("COPY ... TO PROGRAM on the kept instance: %v, want refused (42501)", err)
	}
	noSuperuserLogin(t, in)
	mustExec(t, admin, "INSERT INTO kept VALUES ('after the restart')")
	reader := mustConnect(t, standby.Host(), standby.Port(), "pw")
	eventually(t, "the kept standby streams the primary's write", func() bool {
		var n int
		return reader.QueryRow(ctx, "SELECT count(*) FROM kept").Scan(&n) == nil && n == 1
	})
}

// TestSuperuserStatementsUnseen: what the emulator runs as the superuser (a new superuser password,
// for one) is not in pg_stat_activity, which tsdbadmin reads (pg_read_all_stats): not while it
// runs, nor as the last statement of an idle session.
func TestSuperuserStatementsUnseen(t *testing.T) {
	m := manager(t)
	_, in, admin := adminInstance(t, m)
	c, err := in.connectLocal(t.Context(), Database)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.WithoutCancel(t.Context())) }()
	mustExec(t, c, "SELECT 'superuser-statement-marker'")
	if n := queryString(t, admin, `SELECT count(*)::text FROM pg_stat_activity WHERE usename = 'postgres' AND query LIKE '%superuser-statement-marker%'`); n != "0" {
		t.Errorf("tsdbadmin sees the superuser's statement in pg_stat_activity (%s sessions)", n)
	}
}
