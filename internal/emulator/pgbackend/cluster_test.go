package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// One cluster for the package's tests, started on first use and closed by TestMain. These tests
// need the PostgreSQL server binaries: without them they fail (they are never skipped).
var shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		_ = shared.c.Close()
	}
	os.Exit(code)
}

func cluster(t testing.TB) *Cluster {
	t.Helper()
	shared.once.Do(func() {
		shared.c, shared.err = Start(context.WithoutCancel(t.Context()), Options{})
	})
	if shared.err != nil {
		t.Fatalf("starting PostgreSQL (these tests need its server binaries; CI installs them with apt-get install postgresql): %v", shared.err)
	}
	return shared.c
}

var idSeq struct {
	sync.Mutex
	n int
}

// newID returns a fresh service-style id (10 lower-case letters and digits).
func newID() string {
	idSeq.Lock()
	defer idSeq.Unlock()
	idSeq.n++
	return fmt.Sprintf("t%03d%06d", idSeq.n, time.Now().UnixNano()%1_000_000)
}

// create makes a service and removes it at the end of the test.
func create(t *testing.T, c *Cluster, password string) string {
	t.Helper()
	id := newID()
	s, err := c.CreateService(t.Context(), id, password, ServiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "127.0.0.1" || s.Port != c.Port() || s.User != id || s.Database != id {
		t.Errorf("service = %+v", s)
	}
	t.Cleanup(func() { _ = c.Drop(context.WithoutCancel(t.Context()), id) })
	return id
}

func mustConnect(t *testing.T, c *Cluster, user, password, db string) *pgx.Conn {
	t.Helper()
	conn, err := c.connect(t.Context(), user, password, db)
	if err != nil {
		t.Fatalf("login as %s to %s: %v", user, db, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn
}

// refused checks that a login fails with an authentication (or authorization) error.
func refused(t *testing.T, c *Cluster, user, password, db, why string) {
	t.Helper()
	conn, err := c.connect(t.Context(), user, password, db)
	if err == nil {
		_ = conn.Close(t.Context())
		t.Fatalf("login as %s to %s with %s worked", user, db, why)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Fatalf("login as %s to %s with %s: %v, want a server error", user, db, why, err)
	}
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestStartupTime(t *testing.T) {
	c := cluster(t)
	total, initdb := c.StartupTime()
	t.Logf("cluster start-up: %v (initdb %v, server start %v) on %s:%d (timescaledb: %v)",
		total.Round(time.Millisecond), initdb.Round(time.Millisecond), (total - initdb).Round(time.Millisecond),
		c.Host(), c.Port(), c.TimescaleDB())
}

func TestCreateLogin(t *testing.T) {
	c := cluster(t)
	id := create(t, c, "pw-'quoted'\\-1")
	if !c.Ready(t.Context(), id, "pw-'quoted'\\-1") {
		t.Fatal("Ready with the password = false")
	}
	if c.Ready(t.Context(), id, "wrong") {
		t.Fatal("Ready with a wrong password = true")
	}
	conn := mustConnect(t, c, id, "pw-'quoted'\\-1", id)
	mustExec(t, conn, "CREATE TABLE t (v text)")
	mustExec(t, conn, "INSERT INTO t VALUES ($1)", "hello")

	// Another service's role cannot connect to this database.
	other := create(t, c, "other-pw")
	refused(t, c, other, "other-pw", id, "another service's role")
}

func TestCreateTimescaleNote(t *testing.T) {
	c := cluster(t)
	id := newID()
	s, err := c.CreateService(t.Context(), id, "pw", ServiceOptions{TimescaleDB: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Drop(context.WithoutCancel(t.Context()), id) })
	if c.TimescaleDB() != (s.Note == "") {
		t.Errorf("timescaledb available %v, note %q", c.TimescaleDB(), s.Note)
	}
}

func TestBadIDs(t *testing.T) {
	c := cluster(t)
	for _, id := range []string{"", "postgres", "template1", "pg_x", `a"b`, "A1", "abc_ro", strings.Repeat("a", 61)} {
		if _, err := c.CreateService(t.Context(), id, "pw", ServiceOptions{}); err == nil {
			t.Errorf("CreateService(%q) worked", id)
		}
	}
}

func TestPasswordChange(t *testing.T) {
	c := cluster(t)
	id := create(t, c, "old-password")
	if err := c.SetPassword(t.Context(), id, "new'password"); err != nil {
		t.Fatal(err)
	}
	refused(t, c, id, "old-password", id, "the old password")
	mustConnect(t, c, id, "new'password", id)
	if c.Ready(t.Context(), id, "old-password") || !c.Ready(t.Context(), id, "new'password") {
		t.Error("Ready does not follow the password change")
	}
}

func TestFork(t *testing.T) {
	c := cluster(t)
	src := create(t, c, "src-pw")
	conn := mustConnect(t, c, src, "src-pw", src)
	mustExec(t, conn, "CREATE TABLE notes (v text)")
	mustExec(t, conn, "INSERT INTO notes VALUES ('before the fork')")

	fork := newID()
	s, err := c.Fork(t.Context(), src, fork, "fork-pw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Drop(context.WithoutCancel(t.Context()), fork) })
	if s.User != fork || s.Database != fork {
		t.Errorf("fork = %+v", s)
	}
	fconn := mustConnect(t, c, fork, "fork-pw", fork)
	var v string
	if err := fconn.QueryRow(t.Context(), "SELECT v FROM notes").Scan(&v); err != nil || v != "before the fork" {
		t.Fatalf("row in the fork: %q, %v", v, err)
	}
	// The fork's role owns the copy: it can write to it.
	mustExec(t, fconn, "INSERT INTO notes VALUES ('in the fork')")
	refused(t, c, fork, "src-pw", fork, "the source's password")

	// The source is usable again, still owned by its role, and does not see the fork's writes.
	sconn := mustConnect(t, c, src, "src-pw", src)
	var n int
	if err := sconn.QueryRow(t.Context(), "SELECT count(*) FROM notes").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows in the source: %d, %v", n, err)
	}
	mustExec(t, sconn, "INSERT INTO notes VALUES ('after the fork')")
	var owner string
	if err := sconn.QueryRow(t.Context(), "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()").Scan(&owner); err != nil || owner != src {
		t.Fatalf("owner of the source database: %q, %v", owner, err)
	}
}

func TestPauseResume(t *testing.T) {
	c := cluster(t)
	id := create(t, c, "pw")
	conn := mustConnect(t, c, id, "pw", id)
	if err := c.SetLogin(t.Context(), id, false); err != nil {
		t.Fatal(err)
	}
	refused(t, c, id, "pw", id, "the service paused")
	if err := conn.Ping(t.Context()); err == nil {
		t.Error("a session opened before the pause still works")
	}
	if err := c.SetLogin(t.Context(), id, true); err != nil {
		t.Fatal(err)
	}
	mustConnect(t, c, id, "pw", id)
}

func TestDrop(t *testing.T) {
	c := cluster(t)
	id := create(t, c, "pw")
	conn := mustConnect(t, c, id, "pw", id)
	mustExec(t, conn, "CREATE TABLE t (v int)")
	if err := c.Drop(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.DatabaseExists(t.Context(), id); err != nil || ok {
		t.Fatalf("database exists after Drop: %v, %v", ok, err)
	}
	refused(t, c, id, "pw", id, "the service dropped")
	if err := c.Drop(t.Context(), id); err != nil {
		t.Errorf("second Drop: %v", err)
	}
}

func TestReadOnlyRole(t *testing.T) {
	c := cluster(t)
	id := create(t, c, "pw")
	conn := mustConnect(t, c, id, "pw", id)
	mustExec(t, conn, "CREATE TABLE t (v int)")
	mustExec(t, conn, "INSERT INTO t VALUES (1)")

	s, err := c.ReadOnlyRole(t.Context(), id, "ro-pw")
	if err != nil {
		t.Fatal(err)
	}
	if s.User != ReadOnlyUser(id) || s.Database != id {
		t.Errorf("read-only = %+v", s)
	}
	ro := mustConnect(t, c, s.User, "ro-pw", id)
	var n int
	if err := ro.QueryRow(t.Context(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("read: %d, %v", n, err)
	}
	for _, sql := range []string{
		"INSERT INTO t VALUES (2)",
		"SET default_transaction_read_only = off; INSERT INTO t VALUES (2)", // not a way around it
		"CREATE TABLE u (v int)",
	} {
		if _, err := ro.Exec(t.Context(), sql); err == nil {
			t.Errorf("%s: worked on the read-only role", sql)
		}
	}
	// Pausing and password changes apply to the read-only role too.
	if err := c.SetPassword(t.Context(), id, "pw2"); err != nil {
		t.Fatal(err)
	}
	refused(t, c, s.User, "ro-pw", id, "the old password")
	if err := c.SetLogin(t.Context(), id, false); err != nil {
		t.Fatal(err)
	}
	refused(t, c, s.User, "pw2", id, "the service paused")
}

func TestFindBinDir(t *testing.T) {
	if _, err := FindBinDir(t.TempDir()); err == nil {
		t.Error("FindBinDir(an empty directory) worked")
	}
	t.Setenv(EnvBinDir, t.TempDir())
	if _, err := FindBinDir(""); err == nil || !strings.Contains(err.Error(), EnvBinDir) {
		t.Errorf("FindBinDir with a bad $%s: %v", EnvBinDir, err)
	}
}

func TestCloseRemovesEverything(t *testing.T) {
	c, err := Start(t.Context(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir, port := c.dir, c.Port()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster directory still there: %v", err)
	}
	if conn, err := c.connect(t.Context(), superuser, c.superPW, "postgres"); err == nil {
		_ = conn.Close(t.Context())
		t.Errorf("server on port %d still answers", port)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// BenchmarkStart measures a cluster's start-up: initdb, server start, first admin login.
func BenchmarkStart(b *testing.B) {
	for range b.N {
		c, err := Start(b.Context(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = c.Close()
		b.StartTimer()
	}
}
