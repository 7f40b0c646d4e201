package pgbackend

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The three kinds of read-only session, as the pages name them.
const (
	pathReader  = "read-only login"
	pathAnalyst = "read-only login inheriting tsdbadmin"
	pathOption  = "read_only_connection session"
)

// allowedOutcome is what a row does in a read-only session.
type allowedOutcome int

const (
	did      allowedOutcome = iota // no error, and the effect is seen
	noEffect                       // no error (PostgreSQL's warning that it skipped the relation), and no effect
	refused                        // an error
)

func (o allowedOutcome) String() string { return [...]string{"done", "no effect", "refused"}[o] }

// effectKind is how a row's effect is seen from another session.
type effectKind int

const (
	effectNone      effectKind = iota
	effectRewrite              // rel's file node changed (the relation was rewritten)
	effectAnalyzed             // rel was analyzed once more (its analyze count)
	effectLock                 // another session cannot read rel while the row's transaction lasts
	effectAdvisory             // another session cannot take the advisory lock
	effectVictimEnd            // the victim's session ended
)

// allowedRow is one thing a read-only session may still do, or not, with what it does per path
// (pathReader, pathAnalyst, pathOption). In sql, {t} is the path's own table of app (which
// tsdbadmin is a member of), {o} its own table of the role other (which tsdbadmin is not a member
// of), {g} its own table of other on which app may UPDATE, {pid} the victim's backend: of the path's
// own login ("self"), of bystander (an ordinary login of no role), of peer (a read-only login of no
// role), of tsdbadmin or of the superuser (on the socket).
type allowedRow struct {
	name   string
	sql    string
	effect effectKind
	rel    string // the relation the effect is seen on
	victim string
	want   [3]allowedOutcome
}

// allowedRows are what the pages say a read-only session can still do.
var allowedRows = []allowedRow{
	{"ANALYZE a table of its roles", "ANALYZE {t}", effectAnalyzed, "{t}", "", [3]allowedOutcome{did, did, did}},
	{"ANALYZE another role's table", "ANALYZE {o}", effectAnalyzed, "{o}", "", [3]allowedOutcome{noEffect, did, did}},
	{"VACUUM (FULL) a table of its roles", "VACUUM (FULL) {t}", effectRewrite, "{t}", "", [3]allowedOutcome{did, did, did}},
	{"VACUUM (FULL) another role's table", "VACUUM (FULL) {o}", effectRewrite, "{o}", "", [3]allowedOutcome{noEffect, did, did}},
	{"VACUUM (FULL) pg_class", "VACUUM (FULL) pg_class", effectRewrite, "pg_class", "", [3]allowedOutcome{noEffect, did, did}},
	{"VACUUM (FULL) pg_proc", "VACUUM (FULL) pg_proc", effectRewrite, "pg_proc", "", [3]allowedOutcome{noEffect, did, did}},
	{"VACUUM (FULL) a shared catalog", "VACUUM (FULL) pg_authid", effectRewrite, "pg_authid", "", [3]allowedOutcome{noEffect, noEffect, noEffect}},
	{"CLUSTER a table of its roles", "CLUSTER {t} USING {t}_pkey", effectRewrite, "{t}", "", [3]allowedOutcome{did, did, did}},
	{"CLUSTER another role's table", "CLUSTER {o} USING {o}_pkey", effectRewrite, "{o}", "", [3]allowedOutcome{refused, refused, refused}},
	{"REINDEX TABLE a table of its roles", "REINDEX TABLE {t}", effectRewrite, "{t}_pkey", "", [3]allowedOutcome{did, did, did}},
	{"REINDEX TABLE another role's table", "REINDEX TABLE {o}", effectRewrite, "{o}_pkey", "", [3]allowedOutcome{refused, refused, refused}},
	{"REINDEX SCHEMA public", "REINDEX SCHEMA public", effectRewrite, "{o}_pkey", "", [3]allowedOutcome{refused, did, did}},
	{"REINDEX SYSTEM", "REINDEX SYSTEM tsdb", effectRewrite, "pg_class_oid_index", "", [3]allowedOutcome{refused, did, did}},
	{"REINDEX DATABASE", "REINDEX DATABASE tsdb", effectRewrite, "{o}_pkey", "", [3]allowedOutcome{refused, did, did}},
	{"LOCK a table of its roles IN ACCESS EXCLUSIVE MODE", "LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE", effectLock, "{t}", "", [3]allowedOutcome{did, did, did}},
	{"LOCK a table its roles may update IN ACCESS EXCLUSIVE MODE", "LOCK TABLE {g} IN ACCESS EXCLUSIVE MODE", effectLock, "{g}", "", [3]allowedOutcome{did, did, did}},
	{"LOCK another role's table IN ACCESS EXCLUSIVE MODE", "LOCK TABLE {o} IN ACCESS EXCLUSIVE MODE", effectLock, "{o}", "", [3]allowedOutcome{refused, refused, refused}},
	{"LOCK a catalog IN ACCESS EXCLUSIVE MODE", "LOCK TABLE pg_class IN ACCESS EXCLUSIVE MODE", effectLock, "pg_class", "", [3]allowedOutcome{refused, refused, refused}},
	{"SET a setting of its own session", "SET work_mem = '8MB'", effectNone, "", "", [3]allowedOutcome{did, did, did}},
	{"NOTIFY", "NOTIFY app_channel, 'from a read-only session'", effectNone, "", "", [3]allowedOutcome{did, did, did}},
	{"pg_logical_emit_message", "SELECT pg_logical_emit_message(false, 'ro', 'from a read-only session')", effectNone, "", "", [3]allowedOutcome{did, did, did}},
	{"advisory lock", "SELECT pg_advisory_lock(4242)", effectAdvisory, "", "", [3]allowedOutcome{did, did, did}},
	{"pg_terminate_backend of its own role's session", "SELECT pg_terminate_backend({pid}, 60000)", effectVictimEnd, "", "self", [3]allowedOutcome{did, did, did}},
	{"pg_terminate_backend of an ordinary login's session", "SELECT pg_terminate_backend({pid}, 60000)", effectVictimEnd, "", "bystander", [3]allowedOutcome{refused, did, did}},
	{"pg_terminate_backend of another read-only login's session", "SELECT pg_terminate_backend({pid}, 60000)", effectVictimEnd, "", "peer", [3]allowedOutcome{refused, did, did}},
	{"pg_terminate_backend of tsdbadmin's session", "SELECT pg_terminate_backend({pid}, 60000)", effectVictimEnd, "", AdminUser, [3]allowedOutcome{refused, did, did}},
	{"pg_terminate_backend of the superuser's session", "SELECT pg_terminate_backend({pid}, 60000)", effectVictimEnd, "", superuser, [3]allowedOutcome{refused, refused, refused}},
	{"pg_cancel_backend of its own role's session", "SELECT pg_cancel_backend({pid})", effectNone, "", "self", [3]allowedOutcome{did, did, did}},
	{"pg_cancel_backend of an ordinary login's session", "SELECT pg_cancel_backend({pid})", effectNone, "", "bystander", [3]allowedOutcome{refused, did, did}},
	{"pg_cancel_backend of the superuser's session", "SELECT pg_cancel_backend({pid})", effectNone, "", superuser, [3]allowedOutcome{refused, refused, refused}},
}

// allowedSession is a read-only path with its login and PostgreSQL's own read-only transaction of
// a role with the same privileges (reference).
type allowedSession struct {
	name, key       string // key names the path's tables
	user, password  string
	open, reference func() (*pgx.Conn, error)
	refUser, refPW  string
}

// TestReadOnlyStillAllowed: what a read-only session can still do, row by row (allowedRows) for
// each kind of read-only session, with its effect seen from another session: the read-only login
// on what its roles own; the two that inherit tsdbadmin (a read-only login with member_of
// tsdbadmin, a read_only_connection session) on every table of tsdb, the system catalogs included,
// since tsdbadmin owns the database, and on every session but the superuser's, since tsdbadmin is in
// pg_signal_backend. Each outcome (its SQLSTATE) is that of PostgreSQL's own read-only transaction of
// a role with the same privileges (the writer, tsdbadmin, with default_transaction_read_only): the
// extension keeps PostgreSQL's behaviour. Nothing is written, and no login reads a password verifier.
func TestReadOnlyStillAllowed(t *testing.T) {
	m := manager(t)
	ctx := t.Context()
	_, in, admin := adminInstance(t, m)
	for _, s := range []string{"CREATE ROLE app NOLOGIN", "GRANT CREATE ON SCHEMA public TO app", "GRANT app TO tsdbadmin",
		"CREATE ROLE other NOLOGIN", "GRANT CREATE ON SCHEMA public TO other", "GRANT other TO tsdbadmin",
		"CREATE ROLE reader LOGIN PASSWORD 'r' IN ROLE app", "ALTER ROLE reader SET " + ReadOnlyRoleSetting + " = true",
		"CREATE ROLE writer LOGIN PASSWORD 'w' IN ROLE app", "CREATE ROLE bystander LOGIN PASSWORD 'b'",
		"CREATE ROLE peer LOGIN PASSWORD 'p'", "ALTER ROLE peer SET " + ReadOnlyRoleSetting + " = true",
		"SELECT timescale_functions.create_bare_readonly_role('analyst', 'a')", "SELECT timescale_functions.grant_tsdbadmin_to_role('analyst')"} {
		mustExec(t, admin, s)
	}
	for _, key := range []string{"reader", "analyst", "option"} {
		for _, table := range [][2]string{{"app", "app"}, {"other", "other"}, {"other", "granted"}} {
			mustExec(t, admin, "SET ROLE "+table[0])
			mustExec(t, admin, fmt.Sprintf("CREATE TABLE %[1]s_%[2]s (id int PRIMARY KEY, v text); INSERT INTO %[1]s_%[2]s VALUES (1, 'one')", table[1], key))
			mustExec(t, admin, "RESET ROLE")
		}
		mustExec(t, admin, "SET ROLE other; GRANT SELECT, UPDATE ON granted_"+key+" TO app; RESET ROLE")
	}
	mustExec(t, admin, "REVOKE other FROM tsdbadmin")
	as := func(user, password, options string) func() (*pgx.Conn, error) {
		return func() (*pgx.Conn, error) {
			cfg := ConnConfig(in.Host(), in.Port(), user, password, Database)
			if options != "" {
				cfg.RuntimeParams["options"] = options
			}
			return pgx.ConnectConfig(ctx, cfg)
		}
	}
	plainRO := "-c default_transaction_read_only=on"
	sessions := []allowedSession{
		{pathReader, "reader", "reader", "r", as("reader", "r", ""), as("writer", "w", plainRO), "writer", "w"},
		{pathAnalyst, "analyst", "analyst", "a", as("analyst", "a", ""), as(AdminUser, "admin-pw", plainRO), AdminUser, "admin-pw"},
		{pathOption, "option", AdminUser, "admin-pw", as(AdminUser, "admin-pw", "-c "+ReadOnlyOption+"=true"), as(AdminUser, "admin-pw", plainRO), AdminUser, "admin-pw"},
	}
	for _, s := range sessions {
		for _, open := range []func() (*pgx.Conn, error){s.open, s.reference} { // both are read-only
			c, err := open()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, "INSERT INTO app_"+s.key+" VALUES (2, 'x')"); sqlState(err) != "25006" {
				t.Fatalf("%s: an INSERT in the session or its reference: %v, want 25006", s.name, err)
			}
			_ = c.Close(ctx)
		}
	}
	for i, s := range sessions {
		for _, row := range allowedRows {
			t.Run(s.name+"/"+row.name, func(t *testing.T) {
				got, code := tryAllowed(t, in, admin, s, row, false)
				if got != row.want[i] {
					t.Errorf("%s: %v (SQLSTATE %q), want %v", row.sql, got, code, row.want[i])
				}
				if _, ref := tryAllowed(t, in, admin, s, row, true); ref != code {
					t.Errorf("%s: SQLSTATE %q in the read-only session, %q in PostgreSQL's own read-only transaction", row.sql, code, ref)
				}
			})
		}
	}
	for _, key := range []string{"reader", "analyst", "option"} {
		if n := queryString(t, admin, "SELECT count(*)::text FROM app_"+key); n != "1" {
			t.Errorf("app_%s has %s rows, want 1", key, n)
		}
	}
	noVerifiers(t, in, m)
}

// tryAllowed runs a row in a fresh session of the path (or of its reference) and answers what it
// did and its SQLSTATE.
func tryAllowed(t *testing.T, in *Instance, admin *pgx.Conn, s allowedSession, row allowedRow, reference bool) (allowedOutcome, string) {
	t.Helper()
	ctx := t.Context()
	open, user, password := s.open, s.user, s.password
	if reference {
		open, user, password = s.reference, s.refUser, s.refPW
	}
	tables := strings.NewReplacer("{t}", "app_"+s.key, "{o}", "other_"+s.key, "{g}", "granted_"+s.key)
	sql, rel := tables.Replace(row.sql), tables.Replace(row.rel)
	var victim interface{ Ping(context.Context) error }
	if row.victim != "" {
		c := victimOf(t, in, row.victim, user, password)
		victim = c
		sql = strings.ReplaceAll(sql, "{pid}", strconv.Itoa(int(c.PgConn().PID())))
	}
	c, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.WithoutCancel(ctx)) }()
	before := relationState(t, admin, row.effect, rel)
	if row.effect == effectLock {
		sql = "BEGIN; " + sql
	}
	if _, err = c.Exec(ctx, sql); err != nil {
		return refused, sqlState(err)
	}
	seen := false
	switch row.effect {
	case effectRewrite, effectAnalyzed:
		seen = relationState(t, admin, row.effect, rel) != before
	case effectLock:
		_, lerr := admin.Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '100ms'; SELECT count(*) FROM "+rel)
		_, _ = admin.Exec(ctx, "ROLLBACK")
		seen = sqlState(lerr) == "55P03" // lock_not_available: readers wait while it is held
		mustExec(t, c, "COMMIT")
	case effectAdvisory:
		seen = !queryBool(t, admin, "SELECT pg_try_advisory_lock(4242)")
	case effectVictimEnd:
		seen = victim.Ping(ctx) != nil
	case effectNone:
		seen = true
	}
	if seen {
		return did, ""
	}
	return noEffect, ""
}

// relationState is what a row's effect changes: the relation's file node (a rewrite), or how many
// times it was analyzed (ANALYZE reports it at once).
func relationState(t *testing.T, admin *pgx.Conn, effect effectKind, rel string) string {
	switch effect {
	case effectRewrite:
		return queryString(t, admin, "SELECT pg_relation_filenode($1::regclass)::text", rel)
	case effectAnalyzed:
		return queryString(t, admin, "SELECT pg_stat_get_analyze_count($1::regclass)::text", rel)
	}
	return ""
}

// victimOf is a session for pg_terminate_backend: of the login user (self), of the bystander, of
// peer, of tsdbadmin, or of the superuser (on the socket).
func victimOf(t *testing.T, in *Instance, who, user, password string) *pgx.Conn {
	t.Helper()
	var c *pgx.Conn
	var err error
	switch who {
	case "self":
		c, err = loginAsUser(t.Context(), in, user, password)
	case "bystander":
		c, err = loginAsUser(t.Context(), in, "bystander", "b")
	case "peer":
		c, err = loginAsUser(t.Context(), in, "peer", "p")
	case AdminUser:
		c, err = loginAsUser(t.Context(), in, AdminUser, "admin-pw")
	case superuser:
		c, err = in.connectLocal(t.Context(), Database)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.WithoutCancel(t.Context())) })
	return c
}
