package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestReadOnlyEscapes: every way out of a read-only session that the live service closes is
// refused in the emulator too, for the three kinds of read-only session: a read-only login that is
// a member of an application role (which owns a table, a sequence and a SECURITY DEFINER function
// that writes), a read-only login that inherits tsdbadmin (the vendor's functions), and a session of
// tsdbadmin opened with tsdb_admin.read_only_connection = true; the two read-only logins also
// through the pooler (PgBouncer); all of it after every preparation tsdbadmin may make first
// (adminPreparation: the grants of predefined roles refused, a login with CREATEROLE made). After the attempts, nothing was written, no role, database or
// large object was made, no role was granted, and the sequence did not move; tsdbadmin and a login
// that is not read-only still write.
func TestReadOnlyEscapes(t *testing.T) {
	m := manager(t)
	ctx := t.Context()
	id, in, admin := adminInstance(t, m)
	mustExec(t, admin, "CREATE ROLE app NOLOGIN")
	mustExec(t, admin, "GRANT CREATE ON SCHEMA public TO app")
	mustExec(t, admin, "GRANT app TO tsdbadmin")
	mustExec(t, admin, "SET ROLE app")
	mustExec(t, admin, "CREATE TABLE things (id bigserial PRIMARY KEY, v text)")
	mustExec(t, admin, "INSERT INTO things (v) VALUES ('one')")
	mustExec(t, admin, `CREATE FUNCTION app_write() RETURNS void LANGUAGE sql SECURITY DEFINER AS $$ INSERT INTO things (v) VALUES ('definer') $$`)
	// A procedure that ends the transaction and writes in the next one (which does not start
	// read-only by itself).
	mustExec(t, admin, `CREATE PROCEDURE app_commit_write() LANGUAGE plpgsql AS $$ BEGIN COMMIT; INSERT INTO things (v) VALUES ('after commit'); END $$`)
	mustExec(t, admin, `CREATE PROCEDURE app_commit_nextval() LANGUAGE plpgsql AS $$ DECLARE n bigint; BEGIN COMMIT; n := nextval('things_id_seq'); END $$`)
	mustExec(t, admin, "RESET ROLE")
	mustExec(t, admin, "CREATE ROLE reader LOGIN PASSWORD 'r' IN ROLE app")
	mustExec(t, admin, "ALTER ROLE reader SET "+ReadOnlyRoleSetting+" = true")
	mustExec(t, admin, "SELECT timescale_functions.create_bare_readonly_role('analyst', 'a')")
	mustExec(t, admin, "SELECT timescale_functions.grant_tsdbadmin_to_role('analyst')")
	mustExec(t, admin, "CREATE ROLE fresh LOGIN PASSWORD 'f'") // a login a session could try to promote
	adminPreparation(t, in, admin)
	if !queryBool(t, admin, "SELECT pg_has_role('analyst', 'tsdbadmin', 'USAGE')") {
		t.Error("the read-only role made by grant_tsdbadmin_to_role does not inherit tsdbadmin")
	}
	seq := queryString(t, admin, "SELECT last_value::text FROM things_id_seq")

	optionConfig := func(host string, port int) *pgx.ConnConfig {
		cfg := ConnConfig(host, port, AdminUser, "admin-pw", Database)
		cfg.RuntimeParams["options"] = "-c " + ReadOnlyOption + "=true"
		return cfg
	}
	type session struct {
		name string
		hint string // the setting the error's hint names
		open func() (*pgx.Conn, error)
	}
	sessions := []session{
		{"read-only login", ReadOnlyRoleSetting, func() (*pgx.Conn, error) { return loginAsUser(ctx, in, "reader", "r") }},
		{"read-only login inheriting tsdbadmin", ReadOnlyRoleSetting, func() (*pgx.Conn, error) { return loginAsUser(ctx, in, "analyst", "a") }},
		{"read_only_connection session", ReadOnlyOption, func() (*pgx.Conn, error) {
			return pgx.ConnectConfig(ctx, optionConfig(in.Host(), in.Port()))
		}},
		// The client's own startup option cannot take the role's flag off.
		{"read-only login with read_only_role=off option", ReadOnlyRoleSetting, func() (*pgx.Conn, error) {
			cfg := ConnConfig(in.Host(), in.Port(), "analyst", "a", Database)
			cfg.RuntimeParams["options"] = "-c " + ReadOnlyRoleSetting + "=off -c default_transaction_read_only=off"
			return pgx.ConnectConfig(ctx, cfg)
		}},
	}
	poolerPort := 0
	if m.PgBouncer() {
		var err error
		if poolerPort, err = m.EnablePooler(id, "admin-pw"); err != nil {
			t.Fatal(err)
		}
		for _, u := range [][2]string{{"reader", "r"}, {"analyst", "a"}} {
			sessions = append(sessions, session{u[0] + " through the pooler", ReadOnlyRoleSetting, func() (*pgx.Conn, error) {
				return pgx.ConnectConfig(ctx, ConnConfig(in.Host(), poolerPort, u[0], u[1], Database))
			}})
		}
	}
	for si, s := range sessions {
		for ai, a := range readOnlyAttempts {
			t.Run(s.name+"/"+a.name, func(t *testing.T) {
				conn, err := s.open()
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
				for i, stmt := range a.stmts {
					// Names of their own per attempt: a role made by one attempt must not make
					// another fail for "already exists".
					stmt = strings.ReplaceAll(stmt, "escaped", fmt.Sprintf("escaped_%d_%d", si, ai))
					_, err := conn.Exec(ctx, stmt)
					if i == len(a.stmts)-1 && sqlState(err) != "25006" && (a.also == "" || sqlState(err) != a.also) {
						t.Errorf("%s in a read-only session (after %s): %v, want it refused with SQLSTATE 25006", stmt, strings.Join(a.stmts[:i], "; "), err)
					}
				}
			})
		}
		t.Run(s.name+"/COPY FROM", func(t *testing.T) {
			conn, err := s.open()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
			if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader("copied\n"), "COPY things (v) FROM STDIN"); err == nil {
				t.Error("COPY ... FROM succeeded in a read-only session")
			}
		})
		// The error's hint names the setting that makes the session read-only; every kind of
		// refusal is SQLSTATE 25006 (the session has the privileges: only read-only stops it).
		t.Run(s.name+"/hint", func(t *testing.T) {
			conn, err := s.open()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
			stmts := []string{"INSERT INTO things (v) VALUES ('x')", "SELECT nextval('things_id_seq')", "BEGIN READ WRITE"}
			if s.hint == ReadOnlyOption || strings.Contains(s.name, "analyst") || strings.Contains(s.name, "tsdbadmin") {
				stmts = append(stmts, "CREATE ROLE hinted LOGIN", "CREATE DATABASE hinted")
			}
			for _, stmt := range stmts {
				_, err = conn.Exec(ctx, stmt)
				var pgErr *pgconn.PgError
				if !errors.As(err, &pgErr) || pgErr.Code != "25006" || !strings.Contains(pgErr.Hint, s.hint) {
					t.Errorf("%s: %v (hint %q), want SQLSTATE 25006 with a hint naming %s", stmt, err, hintOf(err), s.hint)
				}
			}
		})
	}
	if poolerPort != 0 {
		// PgBouncer cannot pass the client's startup options on: it refuses a connection that has
		// them rather than open a session that can write.
		c, err := pgx.ConnectConfig(ctx, optionConfig(in.Host(), poolerPort))
		if err == nil {
			_, werr := c.Exec(ctx, "INSERT INTO things (v) VALUES ('pooled')")
			_ = c.Close(ctx)
			t.Errorf("the pooler accepted a connection with %s = true (a write through it: %v)", ReadOnlyOption, werr)
		} else if !strings.Contains(err.Error(), "unsupported startup parameter") {
			t.Errorf("the pooler refused a connection with %s = true: %v, want \"unsupported startup parameter\"", ReadOnlyOption, err)
		}
	}
	if psql, err := exec.LookPath("psql"); err == nil {
		// libpq's large-object functions use the protocol's fast-path function calls, which run no
		// statement: \lo_import must be refused all the same.
		for _, s := range [][3]string{{"reader", "r", ""}, {"analyst", "a", ""}, {AdminUser, "admin-pw", "-c " + ReadOnlyOption + "=true"}} {
			cmd := exec.CommandContext(ctx, psql, "-X", "-v", "ON_ERROR_STOP=1", "-c", `\lo_import `+psql)
			cmd.Env = append(os.Environ(), "PGHOST="+in.Host(), "PGPORT="+strconv.Itoa(in.Port()), "PGUSER="+s[0],
				"PGPASSWORD="+s[1], "PGDATABASE="+Database, "PGSSLMODE=require", "PGOPTIONS="+s[2])
			if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "read-only") {
				t.Errorf("%s: \\lo_import (fast-path calls) in a read-only session: %v: %s", s[0], err, out)
			}
		}
	}
	if n := queryString(t, admin, "SELECT count(*)::text FROM things"); n != "1" {
		t.Errorf("things has %s rows after the refused writes, want 1", n)
	}
	if queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname LIKE 'escaped%' OR rolname = 'hinted') OR EXISTS (SELECT 1 FROM pg_database WHERE datname LIKE 'escaped%' OR datname = 'hinted')") {
		t.Error("a read-only session made a role or a database")
	}
	if n := queryString(t, admin, "SELECT count(*)::text FROM pg_largeobject_metadata"); n != "0" {
		t.Errorf("%s large objects made by read-only sessions", n)
	}
	if v := queryString(t, admin, "SELECT last_value::text FROM things_id_seq"); v != seq {
		t.Errorf("the sequence moved from %s to %s", seq, v)
	}
	if n := queryString(t, admin, `SELECT count(*)::text FROM pg_auth_members
	    WHERE (roleid, member) IN (('tsdbadmin'::regrole, 'app'::regrole), ('app'::regrole, 'analyst'::regrole), ('tsdbadmin'::regrole, 'fresh'::regrole))`); n != "0" {
		t.Error("a read-only session granted a role")
	}

	// tsdbadmin and a login that is not read-only still write, also what the read-only sessions
	// could not; so does a session of tsdbadmin that asks for read_only_connection = false.
	writer := mustLogin(t, in, "fresh", "f")
	mustExec(t, admin, "GRANT app TO fresh")
	for _, c := range []*pgx.Conn{admin, writer} {
		mustExec(t, c, "INSERT INTO things (v) VALUES ('written')")
		mustExec(t, c, "SELECT nextval('things_id_seq')")
		mustExec(t, c, "SELECT lo_unlink(lo_create(0))")
		mustExec(t, c, "BEGIN READ WRITE")
		mustExec(t, c, "COMMIT")
		mustExec(t, c, "CREATE TEMP TABLE scratch (v text)")
	}
	mustExec(t, admin, "CREATE ROLE made_by_admin LOGIN PASSWORD 'm'")
	mustExec(t, admin, "DROP ROLE made_by_admin")
	cfg := ConnConfig(in.Host(), in.Port(), AdminUser, "admin-pw", Database)
	cfg.RuntimeParams["options"] = "-c " + ReadOnlyOption + "=false"
	rw, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rw.Close(ctx) }()
	mustExec(t, rw, "INSERT INTO things (v) VALUES ('written')")
	if _, err := rw.Exec(ctx, "SET "+ReadOnlyOption+" = on"); err == nil {
		t.Error("SET " + ReadOnlyOption + " was accepted after the connection started")
	}
}

// readOnlyAttempt is a way out of a read-only session: a list of statements, the last of which
// must be refused as in a read-only transaction, SQLSTATE 25006, or with the SQLSTATE named in also
// (the ones before may succeed: they are the escape's preparation). Each runs on a fresh session.
type readOnlyAttempt struct {
	name  string
	stmts []string
	also  string
}

// readOnlyAttempts are the ways out TestReadOnlyEscapes tries on every kind of read-only session.
var readOnlyAttempts = []readOnlyAttempt{
	{"INSERT", []string{"INSERT INTO things (v) VALUES ('x')"}, ""},
	{"UPDATE", []string{"UPDATE things SET v = 'x'"}, ""},
	{"DELETE", []string{"DELETE FROM things"}, ""},
	{"TRUNCATE", []string{"TRUNCATE things"}, ""},
	{"DO block", []string{"DO $$ BEGIN INSERT INTO things (v) VALUES ('x'); END $$"}, ""},
	{"SET read_only_connection off", []string{"SET " + ReadOnlyOption + " = off", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"SET read_only_connection off, CREATE DATABASE", []string{"SET " + ReadOnlyOption + " = off", "CREATE DATABASE escaped"}, ""},
	{"SET read_only_connection off, SET ROLE tsdbadmin, CREATE ROLE LOGIN", []string{"SET " + ReadOnlyOption + " = off", "SET ROLE tsdbadmin", "CREATE ROLE escaped LOGIN PASSWORD 'e'"}, ""},
	{"set_config read_only_connection", []string{"SELECT set_config('" + ReadOnlyOption + "', 'off', false)", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"SET read_only_role off", []string{"SET " + ReadOnlyRoleSetting + " = off", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"RESET ALL", []string{"RESET ALL", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"DISCARD ALL", []string{"DISCARD ALL", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"SET default_transaction_read_only off", []string{"SET default_transaction_read_only = off"}, ""},
	{"set_config default_transaction_read_only", []string{"SELECT set_config('default_transaction_read_only', 'off', false)", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"SET SESSION CHARACTERISTICS READ WRITE", []string{"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"}, ""},
	{"BEGIN READ WRITE", []string{"BEGIN READ WRITE"}, ""},
	{"START TRANSACTION READ WRITE", []string{"START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE"}, ""},
	{"SET TRANSACTION READ WRITE", []string{"BEGIN", "SET TRANSACTION READ WRITE"}, ""},
	{"SET transaction_read_only off", []string{"BEGIN", "SET LOCAL transaction_read_only = off"}, ""},
	// "transaction read-write mode must be set before any query" (25001): the session's
	// first statement made the transaction read-only.
	{"set_config transaction_read_only", []string{"BEGIN", "SELECT set_config('transaction_read_only', 'off', true)"}, "25001"},
	{"SET ROLE tsdbadmin, CREATE ROLE", []string{"SET ROLE tsdbadmin", "CREATE ROLE escaped LOGIN PASSWORD 'e'"}, ""},
	{"SET ROLE tsdbadmin, CREATE DATABASE", []string{"SET ROLE tsdbadmin", "CREATE DATABASE escaped"}, ""},
	{"SET ROLE tsdbadmin, INSERT", []string{"SET ROLE tsdbadmin", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"SET ROLE tsdbadmin, GRANT tsdbadmin to a new login", []string{"SET ROLE tsdbadmin", "CREATE ROLE escaped LOGIN PASSWORD 'e'", "GRANT tsdbadmin TO escaped"}, ""},
	{"SET ROLE tsdbadmin, GRANT tsdbadmin to a login", []string{"SET ROLE tsdbadmin", "GRANT tsdbadmin TO fresh"}, ""},
	{"SET ROLE app, INSERT", []string{"SET ROLE app", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"CREATE ROLE", []string{"CREATE ROLE escaped LOGIN PASSWORD 'e'"}, ""},
	{"CREATE DATABASE", []string{"CREATE DATABASE escaped"}, ""},
	{"GRANT tsdbadmin", []string{"GRANT tsdbadmin TO app"}, ""},
	{"GRANT app", []string{"GRANT app TO analyst"}, ""},
	{"GRANT on a table", []string{"GRANT INSERT ON things TO PUBLIC"}, ""},
	{"ALTER ROLE", []string{"ALTER ROLE CURRENT_USER RESET ALL", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"ALTER ROLE SET", []string{"ALTER ROLE CURRENT_USER SET " + ReadOnlyRoleSetting + " = false", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"ALTER ROLE another login", []string{"ALTER ROLE fresh PASSWORD 'g'"}, ""},
	{"ALTER DATABASE SET", []string{"ALTER DATABASE tsdb SET work_mem = '8MB'"}, ""},
	{"SET SESSION AUTHORIZATION", []string{"SET SESSION AUTHORIZATION tsdbadmin", "INSERT INTO things (v) VALUES ('x')"}, ""},
	{"CREATE EXTENSION", []string{"CREATE EXTENSION IF NOT EXISTS hstore"}, ""},
	{"CREATE TEMP TABLE", []string{"CREATE TEMP TABLE t (v text)"}, ""},
	{"SECURITY DEFINER function", []string{"SELECT app_write()"}, ""},
	{"procedure: COMMIT, then INSERT", []string{"CALL app_commit_write()"}, ""},
	{"procedure: COMMIT, then nextval in an expression", []string{"CALL app_commit_nextval()"}, ""},
	// Only tsdbadmin (and its members) may run the vendor's function (42501 for others).
	{"vendor's create_bare_readonly_role", []string{"SELECT timescale_functions.create_bare_readonly_role('escaped', 'e')"}, "42501"},
	{"large object lo_create", []string{"SELECT lo_create(0)"}, ""},
	{"large object lo_from_bytea", []string{"SELECT lo_from_bytea(0, 'x')"}, ""},
	{"nextval", []string{"SELECT nextval('things_id_seq')"}, ""},
	{"setval", []string{"SELECT setval('things_id_seq', 1000)"}, ""},
	{"session_replication_role", []string{"SET session_replication_role = replica", "INSERT INTO things (v) VALUES ('x')"}, ""},
}

// mustLogin logs in as user to tsdb.
func mustLogin(t *testing.T, in *Instance, user, password string) *pgx.Conn {
	t.Helper()
	c, err := loginAsUser(t.Context(), in, user, password)
	if err != nil {
		t.Fatalf("login as %s: %v", user, err)
	}
	t.Cleanup(func() { _ = c.Close(context.WithoutCancel(t.Context())) })
	return c
}

func hintOf(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Hint
	}
	return ""
}

// noVerifiers: no login (tsdbadmin, a read-only member of it, an ordinary login) reads a password
// verifier, through the pooler's auth function or pg_authid; the pooler still authenticates logins.
func noVerifiers(t *testing.T, in *Instance, m *Manager) {
	ctx := t.Context()
	for _, u := range [][2]string{{AdminUser, "admin-pw"}, {"analyst", "a"}, {"reader", "r"}, {"writer", "w"}} {
		c := mustLogin(t, in, u[0], u[1])
		for _, q := range []string{"SELECT passwd FROM timescale_functions.pooler_auth('writer')", "SELECT rolpassword FROM pg_authid WHERE rolname = 'writer'"} {
			var v *string
			if err := c.QueryRow(ctx, q).Scan(&v); sqlState(err) != "42501" {
				t.Errorf("%s: %s: %v (value read: %v), want refused with 42501", u[0], q, err, v != nil)
			}
		}
	}
	// tsdbadmin has CREATEROLE: it may make itself a member of the auth user and give it a password;
	// still no verifier, and no login as the auth user over TCP.
	admin := mustLogin(t, in, AdminUser, "admin-pw")
	for _, s := range []string{"GRANT " + poolerAuthUser + " TO " + AdminUser, "ALTER ROLE " + poolerAuthUser + " PASSWORD 'taken-over'"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v (CREATEROLE allows it: the test needs it to mean anything)", s, err)
		}
	}
	if _, err := admin.Exec(ctx, "SET ROLE "+poolerAuthUser); err != nil {
		t.Fatal(err)
	}
	var got *string
	err := admin.QueryRow(ctx, "SELECT passwd FROM timescale_functions.pooler_auth('writer')").Scan(&got)
	if got != nil { // a null answer (the function's row when none matches) or an error
		t.Errorf("tsdbadmin as a member of %s read a verifier through pooler_auth (%v)", poolerAuthUser, err)
	}
	if c, err := pgx.ConnectConfig(ctx, ConnConfig(in.Host(), in.Port(), poolerAuthUser, "taken-over", Database)); err == nil {
		_ = c.Close(ctx)
		t.Errorf("%s logged in over TCP with the password tsdbadmin gave it", poolerAuthUser)
	}
	for _, s := range []string{"RESET ROLE", "ALTER ROLE " + poolerAuthUser + " PASSWORD NULL", "REVOKE " + poolerAuthUser + " FROM " + AdminUser} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if !m.PgBouncer() {
		t.Log("no pgbouncer: the pooler's authentication is not tried")
		return
	}
	port, err := m.EnablePooler(in.name, "admin-pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range [][2]string{{AdminUser, "admin-pw"}, {"writer", "w"}, {"analyst", "a"}} {
		c, err := pgx.ConnectConfig(ctx, ConnConfig(in.Host(), port, u[0], u[1], Database))
		if err != nil {
			t.Errorf("%s through the pooler: %v", u[0], err)
			continue
		}
		_ = c.Close(ctx)
	}
	// Nor does anyone log in as the auth user (or a superuser), through the pooler or directly.
	for _, bad := range []struct {
		user, password string
		port           int
	}{{"writer", "wrong", port}, {poolerAuthUser, "", port}, {poolerAuthUser, "", in.Port()}, {superuser, "", port}} {
		if c, err := pgx.ConnectConfig(ctx, ConnConfig(in.Host(), bad.port, bad.user, bad.password, Database)); err == nil {
			_ = c.Close(ctx)
			t.Errorf("%s logged in with password %q on port %d", bad.user, bad.password, bad.port)
		}
	}
}
