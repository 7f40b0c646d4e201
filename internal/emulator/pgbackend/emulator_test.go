package pgbackend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

var (
	_ emulator.DatabaseBackend   = (*Backend)(nil)
	_ emulator.ReplicaSetBackend = (*Backend)(nil)
	_ emulator.PoolerBackend     = (*Backend)(nil)
)

// apiEnv is an emulator with this package's backend behind it, driven over HTTP.
type apiEnv struct {
	t   testing.TB
	url string
	b   *Backend
}

const project = "proj000001"

func newAPIEnv(t testing.TB) *apiEnv {
	t.Helper()
	return newAPIEnvWith(t, manager(t))
}

// newAPIEnvWith serves an emulator (fast timing) with m's backend behind it. When the test ends,
// the emulator closes and the backend's queued operations finish; m is not closed.
func newAPIEnvWith(t testing.TB, m *Manager) *apiEnv {
	t.Helper()
	b := NewBackend(m)
	srv := emulator.NewServer(emulator.Options{Timing: emulator.FastTiming(), Database: b, Logf: t.Logf})
	t.Cleanup(func() {
		srv.Close()
		if err := b.Close(time.Minute); err != nil {
			t.Error(err)
		}
	})
	return &apiEnv{t: t, url: srv.URL + "/projects/" + project + "/services", b: b}
}

func (e *apiEnv) call(method, path string, in, out any) int {
	e.t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.SetBasicAuth("k", "s")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound {
		e.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

// waitFor polls the service until cond holds.
func (e *apiEnv) waitFor(id, what string, cond func(s *api.Service, code int) bool) *api.Service {
	e.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var s api.Service
		code := e.call(http.MethodGet, "/"+id, nil, &s)
		if cond(&s, code) {
			return &s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("service %s: not %s after two minutes (status %v, code %d)", id, what, deref(s.Status), code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// create creates a service through the API and waits for READY; it answers the READY record and
// the initial password.
func (e *apiEnv) create(name string, addons ...api.Addon) (*api.Service, string) {
	e.t.Helper()
	in := api.ServiceCreate{Name: name}
	if addons != nil {
		in.Addons = &addons
	}
	var created api.Service
	e.call(http.MethodPost, "", in, &created)
	id := deref(created.ServiceID)
	s := e.waitFor(id, "READY", func(s *api.Service, _ int) bool { return deref(s.Status) == api.READY })
	return s, deref(created.InitialPassword)
}

func (e *apiEnv) waitStatus(id string, status api.ServiceStatus) *api.Service {
	e.t.Helper()
	return e.waitFor(id, string(status), func(s *api.Service, _ int) bool { return deref(s.Status) == status })
}

func (e *apiEnv) delete(id string) {
	e.t.Helper()
	e.call(http.MethodDelete, "/"+id, nil, nil)
	e.waitFor(id, "gone", func(_ *api.Service, code int) bool { return code == http.StatusNotFound })
}

// login logs in to a service's endpoint as the real service's clients do (tsdbadmin, tsdb, TLS).
func login(t testing.TB, ep *api.Endpoint, password string) *pgx.Conn {
	t.Helper()
	return mustConnect(t, deref(ep.Host), deref(ep.Port), password)
}

// loginErr tries a login and closes the connection.
func loginErr(t testing.TB, ep *api.Endpoint, password string) error {
	t.Helper()
	conn, err := connect(t.Context(), deref(ep.Host), deref(ep.Port), password)
	if err == nil {
		_ = conn.Close(t.Context())
	}
	return err
}

// TestServicesAreSeparateInstances: each service is its own PostgreSQL instance on its own port;
// a role created in one does not exist in another; logins need TLS.
func TestServicesAreSeparateInstances(t *testing.T) {
	e := newAPIEnv(t)
	a, apw := e.create("a")
	b, bpw := e.create("b")
	if deref(a.Endpoint.Host) != "127.0.0.1" || deref(a.Endpoint.Port) == deref(b.Endpoint.Port) {
		t.Fatalf("endpoints %s:%d and %s:%d, want two ports on 127.0.0.1",
			deref(a.Endpoint.Host), deref(a.Endpoint.Port), deref(b.Endpoint.Host), deref(b.Endpoint.Port))
	}
	ca, cb := login(t, a.Endpoint, apw), login(t, b.Endpoint, bpw)
	if user := queryString(t, ca, "SELECT current_user || '@' || current_database()"); user != "tsdbadmin@tsdb" {
		t.Errorf("logged in as %s", user)
	}
	if v := queryString(t, ca, "SHOW listen_addresses"); v != "127.0.0.1" {
		t.Errorf("listen_addresses = %q, want loopback only", v)
	}
	if !queryBool(t, ca, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") {
		t.Error("pg_stat_ssl: the session is not TLS")
	}
	mustExec(t, ca, "CREATE ROLE app_reader LOGIN PASSWORD 'x'")
	if queryBool(t, cb, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app_reader')") {
		t.Error("a role created in service a exists in service b")
	}
	if !queryBool(t, ca, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app_reader')") {
		t.Error("the role does not exist in service a")
	}
	if err := loginErr(t, a.Endpoint, bpw); err == nil {
		t.Error("service b's password logs in to service a")
	}
	// Without TLS: refused.
	cfg := ConnConfig(deref(a.Endpoint.Host), deref(a.Endpoint.Port), AdminUser, apw, Database)
	cfg.TLSConfig = nil
	if conn, err := pgx.ConnectConfig(t.Context(), cfg); err == nil {
		_ = conn.Close(t.Context())
		t.Error("a login without TLS worked")
	}
	e.delete(deref(a.ServiceID))
	e.delete(deref(b.ServiceID))
}

// TestForkIsAPhysicalCopy: a fork has the source's rows, roles and extensions; its writes do not
// reach the source; its password is its own.
func TestForkIsAPhysicalCopy(t *testing.T) {
	e := newAPIEnv(t)
	src, pw := e.create("src")
	id := deref(src.ServiceID)
	c := login(t, src.Endpoint, pw)
	mustExec(t, c, "CREATE EXTENSION citext")
	mustExec(t, c, "CREATE ROLE app_writer LOGIN PASSWORD 'w'")
	mustExec(t, c, "CREATE TABLE notes (v citext)")
	mustExec(t, c, "INSERT INTO notes VALUES ('Written Before The Fork')")

	var forked api.Service
	e.call(http.MethodPost, "/"+id+"/forkService", api.ForkServiceCreate{ForkStrategy: api.NOW}, &forked)
	f := e.waitStatus(deref(forked.ServiceID), api.READY)
	if deref(f.Endpoint.Port) == deref(src.Endpoint.Port) {
		t.Fatal("the fork has its source's port")
	}
	fc := login(t, f.Endpoint, deref(forked.InitialPassword))
	if v := queryString(t, fc, "SELECT v::text FROM notes WHERE v = 'written before the fork'"); v != "Written Before The Fork" {
		t.Errorf("row in the fork: %q", v)
	}
	if !queryBool(t, fc, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'app_writer')") {
		t.Error("the source's role is not in the fork")
	}
	if !queryBool(t, fc, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citext')") {
		t.Error("the source's extension is not in the fork")
	}
	if err := loginErr(t, f.Endpoint, pw); err == nil {
		t.Error("the source's password logs in to the fork")
	}
	mustExec(t, fc, "INSERT INTO notes VALUES ('only in the fork')")
	mustExec(t, fc, "CREATE ROLE fork_only")
	if queryBool(t, c, "SELECT EXISTS (SELECT 1 FROM notes WHERE v = 'only in the fork')") {
		t.Error("a write to the fork reached the source")
	}
	if queryBool(t, c, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fork_only')") {
		t.Error("a role created in the fork exists in the source")
	}
	e.delete(deref(f.ServiceID))
	e.delete(id)
}

// TestReplicaSetIsAHotStandby: a replica set's endpoint is a streaming standby: the primary's
// credentials, its rows (also those written later), writes refused with SQLSTATE 25006, and the
// vendor CLI's read-only connection option accepted.
func TestReplicaSetIsAHotStandby(t *testing.T) {
	e := newAPIEnv(t)
	s, pw := e.create("primary")
	id := deref(s.ServiceID)
	c := login(t, s.Endpoint, pw)
	mustExec(t, c, "CREATE TABLE notes (v text)")
	mustExec(t, c, "INSERT INTO notes VALUES ('before the replica')")

	var rs api.ReadReplicaSet
	e.call(http.MethodPost, "/"+id+"/replicaSets", api.ReadReplicaSetCreate{Name: "ro", Nodes: 2, CPUMillis: 500, MemoryGbs: 2}, &rs)
	rsID := deref(rs.ID)
	var active api.ReadReplicaSet
	eventually(t, "replica set active", func() bool {
		var list []api.ReadReplicaSet
		e.call(http.MethodGet, "/"+id+"/replicaSets", nil, &list)
		for _, r := range list {
			if deref(r.ID) == rsID && deref(r.Status) == api.ReplicaSetStatusActive {
				active = r
				return true
			}
		}
		return false
	})
	if deref(active.Endpoint.Port) == deref(s.Endpoint.Port) {
		t.Fatal("the replica set has the primary's port")
	}
	rc := login(t, active.Endpoint, pw)
	if !queryBool(t, rc, "SELECT pg_is_in_recovery()") {
		t.Error("the replica is not in recovery (not a standby)")
	}
	if v := queryString(t, rc, "SELECT v FROM notes"); v != "before the replica" {
		t.Errorf("row on the replica: %q", v)
	}
	mustExec(t, c, "INSERT INTO notes VALUES ('streamed')")
	eventually(t, "the primary's new row on the replica", func() bool {
		return queryBool(t, rc, "SELECT EXISTS (SELECT 1 FROM notes WHERE v = 'streamed')")
	})
	_, err := rc.Exec(t.Context(), "INSERT INTO notes VALUES ('no')")
	if code := sqlState(err); code != "25006" {
		t.Errorf("write on the replica: %v (SQLSTATE %q), want 25006", err, code)
	}
	// The vendor's CLI adds options=-c tsdb_admin.read_only_connection=true.
	cfg := ConnConfig(deref(active.Endpoint.Host), deref(active.Endpoint.Port), AdminUser, pw, Database)
	cfg.RuntimeParams["options"] = "-c " + ReadOnlyOption + "=true"
	oc, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("login with the read-only connection option: %v", err)
	}
	defer func() { _ = oc.Close(t.Context()) }()
	if !queryBool(t, oc, "SELECT current_setting('"+ReadOnlyOption+"')::boolean") {
		t.Errorf("%s is off", ReadOnlyOption)
	}
	// A new password on the primary reaches the replica (streamed with the catalog).
	e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: "rotated-pw"}, nil)
	eventually(t, "the new password on the replica", func() bool { return loginErr(t, active.Endpoint, "rotated-pw") == nil })

	e.call(http.MethodDelete, "/"+id+"/replicaSets/"+rsID, nil, nil)
	eventually(t, "the replica's instance removed", func() bool { return manager(t).Instance(rsID) == nil })
	if err := loginErr(t, active.Endpoint, "rotated-pw"); err == nil {
		t.Error("a deleted replica set still accepts logins")
	}
	e.delete(id)
}

// TestPoolerIsPgBouncer: enablePooler starts a PgBouncer (TLS, tsdbadmin) in front of the service,
// disablePooler stops it.
func TestPoolerIsPgBouncer(t *testing.T) {
	m := manager(t)
	if !m.PgBouncer() {
		t.Skip("pgbouncer is not installed (apt-get install pgbouncer)")
	}
	e := newAPIEnv(t)
	s, pw := e.create("pooled")
	id := deref(s.ServiceID)
	c := login(t, s.Endpoint, pw)
	mustExec(t, c, "CREATE TABLE notes (v text)")
	mustExec(t, c, "INSERT INTO notes VALUES ('through the pooler')")

	e.call(http.MethodPost, "/"+id+"/enablePooler", nil, nil)
	s = e.waitStatus(id, api.READY)
	if s.ConnectionPooler == nil || s.ConnectionPooler.Endpoint == nil {
		t.Fatal("no connection_pooler after enablePooler")
	}
	pe := s.ConnectionPooler.Endpoint
	if deref(pe.Host) != "127.0.0.1" || deref(pe.Port) == deref(s.Endpoint.Port) || deref(pe.Port) != m.PoolerPort(id) {
		t.Fatalf("pooler endpoint %s:%d (service port %d, PgBouncer's %d)", deref(pe.Host), deref(pe.Port), deref(s.Endpoint.Port), m.PoolerPort(id))
	}
	pc := login(t, pe, pw)
	if v := queryString(t, pc, "SELECT v FROM notes"); v != "through the pooler" {
		t.Errorf("row through the pooler: %q", v)
	}
	// PgBouncer reaches the instance over its unix socket: the server sees no client address,
	// while a direct login comes from 127.0.0.1.
	if queryBool(t, pc, "SELECT inet_client_addr() IS NOT NULL") {
		t.Error("the pooler's session comes over TCP: not through PgBouncer")
	}
	if !queryBool(t, c, "SELECT inet_client_addr() = '127.0.0.1'") {
		t.Error("a direct session does not come from 127.0.0.1")
	}
	if err := loginErr(t, pe, "wrong"); err == nil {
		t.Error("the pooler accepted a wrong password")
	}
	// Every login role of the database, as on the live service; not an expired one, nor a wrong
	// password.
	mustExec(t, c, "CREATE ROLE pooled_login LOGIN PASSWORD 'login-pw'")
	mustExec(t, c, "GRANT SELECT ON notes TO pooled_login")
	mustExec(t, c, "CREATE ROLE expired_login LOGIN PASSWORD 'expired-pw' VALID UNTIL '2000-01-01'")
	asRole := func(user, password string) (*pgx.Conn, error) {
		return pgx.ConnectConfig(t.Context(), ConnConfig(deref(pe.Host), deref(pe.Port), user, password, Database))
	}
	if lc, err := asRole("pooled_login", "login-pw"); err != nil {
		t.Errorf("a login role through the pooler: %v", err)
	} else {
		if v := queryString(t, lc, "SELECT current_user || ': ' || v FROM notes"); v != "pooled_login: through the pooler" {
			t.Errorf("the login read %q through the pooler", v)
		}
		_ = lc.Close(t.Context())
	}
	for _, bad := range [][2]string{{"pooled_login", "wrong"}, {"expired_login", "expired-pw"}, {"postgres", ""}} {
		if lc, err := asRole(bad[0], bad[1]); err == nil {
			_ = lc.Close(t.Context())
			t.Errorf("the pooler let %s in with password %q", bad[0], bad[1])
		}
	}
	// A password change is in force at PgBouncer when the call answers (PgBouncer re-reads its
	// auth_file in its own time after a SIGHUP), every time.
	for i := 1; i <= 5; i++ {
		next := fmt.Sprintf("pooled-pw-%d", i+1)
		e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: next}, nil)
		if err := loginErr(t, pe, next); err != nil {
			t.Errorf("pooler login with the new password (change %d): %v", i, err)
		}
	}
	e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: "pooled-pw-2"}, nil)
	if err := loginErr(t, pe, pw); err == nil {
		t.Error("the pooler still accepts the old password")
	}
	e.call(http.MethodPost, "/"+id+"/disablePooler", nil, nil)
	if err := loginErr(t, pe, "pooled-pw-2"); err == nil {
		t.Error("the pooler still answers after disablePooler")
	}
	if m.PoolerPort(id) != 0 {
		t.Error("PgBouncer still runs after disablePooler")
	}
	e.delete(id)
}

// TestReplicaSetPoolerTakesNewPassword: a replica set's PgBouncer takes the primary's new password
// before updatePassword answers, every time (rotations in a row, each logged in with at once).
func TestReplicaSetPoolerTakesNewPassword(t *testing.T) {
	if !manager(t).PgBouncer() {
		t.Skip("pgbouncer is not installed (apt-get install pgbouncer)")
	}
	e := newAPIEnv(t)
	s, pw := e.create("rs-pooled")
	id := deref(s.ServiceID)
	var rs api.ReadReplicaSet
	e.call(http.MethodPost, "/"+id+"/replicaSets", api.ReadReplicaSetCreate{Name: "ro", Nodes: 1, CPUMillis: 500, MemoryGbs: 2}, &rs)
	rsID := deref(rs.ID)
	replicaSet := func() (got api.ReadReplicaSet) {
		var list []api.ReadReplicaSet
		e.call(http.MethodGet, "/"+id+"/replicaSets", nil, &list)
		for _, r := range list {
			if deref(r.ID) == rsID {
				got = r
			}
		}
		return got
	}
	eventually(t, "replica set active", func() bool { return deref(replicaSet().Status) == api.ReplicaSetStatusActive })
	e.call(http.MethodPost, "/"+id+"/replicaSets/"+rsID+"/enablePooler", nil, nil)
	got := replicaSet()
	if got.ConnectionPooler == nil || got.ConnectionPooler.Endpoint == nil {
		t.Fatal("no connection_pooler on the replica set after enablePooler")
	}
	pe := got.ConnectionPooler.Endpoint
	if err := loginErr(t, pe, pw); err != nil {
		t.Fatalf("login through the replica set's pooler: %v", err)
	}
	for i := 1; i <= 3; i++ {
		next := fmt.Sprintf("rs-pooled-pw-%d", i)
		e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: next}, nil)
		if err := loginErr(t, pe, next); err != nil {
			t.Errorf("replica set's pooler, new password (change %d): %v", i, err)
		}
	}
	e.call(http.MethodDelete, "/"+id+"/replicaSets/"+rsID, nil, nil)
	eventually(t, "the replica set removed", func() bool { return manager(t).Instance(rsID) == nil })
	e.delete(id)
}

// TestLifecycleActsOnTheInstance: updatePassword, stop (connections refused), start (same data
// back) and delete (instance and data gone).
func TestLifecycleActsOnTheInstance(t *testing.T) {
	m := manager(t)
	e := newAPIEnv(t)
	s, pw := e.create("life")
	id := deref(s.ServiceID)
	c := login(t, s.Endpoint, pw)
	mustExec(t, c, "CREATE TABLE notes (v text)")
	mustExec(t, c, "INSERT INTO notes VALUES ('kept across stop and start')")
	_ = c.Close(t.Context())

	// updatePassword: the old password stops working, the new one works.
	const newPW = "a new 'password' \\ with quotes"
	e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: newPW}, nil)
	if err := loginErr(t, s.Endpoint, pw); err == nil {
		t.Fatal("the old password still works after updatePassword")
	}
	if err := loginErr(t, s.Endpoint, newPW); err != nil {
		t.Fatalf("login with the new password: %v", err)
	}

	// Stop: PAUSED, the instance is stopped and refuses connections.
	e.call(http.MethodPost, "/"+id+"/stop", nil, nil)
	e.waitStatus(id, api.PAUSED)
	if m.Instance(id).Running() {
		t.Error("the instance of a PAUSED service runs")
	}
	if err := loginErr(t, s.Endpoint, newPW); err == nil {
		t.Error("a PAUSED service accepted a login")
	}
	// Start: READY once logins work, with the data.
	e.call(http.MethodPost, "/"+id+"/start", nil, nil)
	s = e.waitStatus(id, api.READY)
	c = login(t, s.Endpoint, newPW)
	if v := queryString(t, c, "SELECT v FROM notes"); v != "kept across stop and start" {
		t.Errorf("row after start: %q", v)
	}
	_ = c.Close(t.Context())

	// Delete: the instance and its data directory are gone.
	dir := m.Instance(id).dir
	e.delete(id)
	if m.Instance(id) != nil {
		t.Error("the instance of a deleted service is still registered")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory of a deleted service: %v", err)
	}
	if err := loginErr(t, s.Endpoint, newPW); err == nil {
		t.Error("a deleted service accepts a login")
	}
}

// TestRestartKeepsData: with a data directory (the emulator's -state), a new Manager and emulator
// restored from the snapshot serve the same data, password, replica set and pooler.
func TestRestartKeepsData(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "state.json.pgdata")
	// Running as root, the servers run as another user: it must reach the directory.
	for _, d := range []string{filepath.Dir(dataDir), filepath.Dir(filepath.Dir(dataDir))} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	m1, err := Start(t.Context(), Options{DataDir: dataDir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	b1 := NewBackend(m1)
	srv1 := emulator.NewServer(emulator.Options{Timing: emulator.FastTiming(), Database: b1, Logf: t.Logf})
	e1 := &apiEnv{t: t, url: srv1.URL + "/projects/" + project + "/services", b: b1}
	s, pw := e1.create("kept")
	id := deref(s.ServiceID)
	c := login(t, s.Endpoint, pw)
	mustExec(t, c, "CREATE TABLE notes (v text)")
	mustExec(t, c, "INSERT INTO notes VALUES ('survives a restart')")
	mustExec(t, c, "CREATE ROLE kept_role")
	_ = c.Close(t.Context())
	e1.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: "kept-pw"}, nil)
	snap := srv1.Snapshot()
	srv1.Close()
	if err := b1.Close(time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := m1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := loginErr(t, s.Endpoint, "kept-pw"); err == nil {
		t.Fatal("the instance still runs after Close")
	}

	m2, err := Start(t.Context(), Options{DataDir: dataDir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	b2 := NewBackend(m2)
	srv2 := emulator.NewServer(emulator.Options{Timing: emulator.FastTiming(), Database: b2, Logf: t.Logf})
	t.Cleanup(func() {
		srv2.Close()
		_ = b2.Close(time.Minute)
		_ = m2.Close()
	})
	if err := srv2.Restore(snap); err != nil {
		t.Fatal(err)
	}
	e2 := &apiEnv{t: t, url: srv2.URL + "/projects/" + project + "/services", b: b2}
	eventually(t, "the restored instance accepts its password", func() bool { return e2.b.Ready(id, "kept-pw") })
	s2 := e2.waitStatus(id, api.READY)
	c2 := login(t, s2.Endpoint, "kept-pw")
	if v := queryString(t, c2, "SELECT v FROM notes"); v != "survives a restart" {
		t.Errorf("row after the restart: %q", v)
	}
	if !queryBool(t, c2, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'kept_role')") {
		t.Error("role lost in the restart")
	}
	_ = c2.Close(t.Context())
	e2.delete(id)
	if entries, _ := os.ReadDir(dataDir); len(entries) != 0 {
		t.Errorf("data directory after delete: %v", entries)
	}
}
