package pgbackend

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// One Manager for most of the package's tests, started on first use and closed by TestMain. These
// tests need the PostgreSQL server binaries: without them they fail (CI installs them); the pooler
// tests are skipped when pgbouncer is not installed.
var shared struct {
	once sync.Once
	m    *Manager
	err  error
}

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		killedHelper()
		return
	}
	code := m.Run()
	if shared.m != nil {
		_ = shared.m.Close()
	}
	os.Exit(code)
}

func manager(t testing.TB) *Manager {
	t.Helper()
	shared.once.Do(func() {
		shared.m, shared.err = Start(context.Background(), Options{})
	})
	if shared.err != nil {
		t.Fatalf("starting PostgreSQL (these tests need its server binaries; CI installs them with apt-get install postgresql): %v", shared.err)
	}
	return shared.m
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

// connect logs in as tsdbadmin to tsdb over TLS (sslmode=require), as a client of the real service.
func connect(ctx context.Context, host string, port int, password string) (*pgx.Conn, error) {
	return pgx.ConnectConfig(ctx, ConnConfig(host, port, AdminUser, password, Database))
}

func mustConnect(t testing.TB, host string, port int, password string) *pgx.Conn {
	t.Helper()
	conn, err := connect(t.Context(), host, port, password)
	if err != nil {
		t.Fatalf("login as tsdbadmin to %s:%d: %v", host, port, err)
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Fatalf("login to %s:%d: not over TLS", host, port)
	}
	return conn
}

// adminInstance makes an instance whose tsdbadmin password is "admin-pw" (removed when the test
// ends) and logs in to it as tsdbadmin.
func adminInstance(t testing.TB, m *Manager) (id string, in *Instance, admin *pgx.Conn) {
	t.Helper()
	id = newID()
	in, _, err := m.Create(t.Context(), id, CreateOptions{Password: "admin-pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Remove(id) })
	return id, in, mustConnect(t, in.Host(), in.Port(), "admin-pw")
}

func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func queryString(t testing.TB, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func queryBool(t testing.TB, conn *pgx.Conn, sql string, args ...any) bool {
	t.Helper()
	var v bool
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// sqlState is the SQLSTATE of a server error ("" for any other error).
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// eventually waits until cond holds (at most two minutes: the CI machine is shared and busy).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after two minutes", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
