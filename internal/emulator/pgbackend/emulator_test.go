package pgbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

var (
	_ emulator.DatabaseBackend   = (*Backend)(nil)
	_ emulator.ReplicaSetBackend = (*Backend)(nil)
)

// apiEnv is an emulator with this package's backend behind it, driven over HTTP.
type apiEnv struct {
	t   *testing.T
	url string
}

const project = "proj000001"

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	b := NewBackend(cluster(t))
	srv := emulator.NewServer(emulator.Options{Timing: emulator.FastTiming(), Database: b, Logf: t.Logf})
	t.Cleanup(func() {
		srv.Close()
		if err := b.Close(time.Minute); err != nil {
			t.Error(err)
		}
	})
	return &apiEnv{t: t, url: srv.URL + "/projects/" + project + "/services"}
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
	deadline := time.Now().Add(60 * time.Second)
	for {
		var s api.Service
		code := e.call(http.MethodGet, "/"+id, nil, &s)
		if cond(&s, code) {
			return &s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("service %s: not %s after 60s (status %v, code %d)", id, what, deref(s.Status), code)
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

// login connects to a service's endpoint as the API describes it: user and database are the
// service id, the password is the one given.
func login(ctx context.Context, s *api.Service, password string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=5",
		deref(s.Endpoint.Host), deref(s.Endpoint.Port), deref(s.ServiceID), deref(s.ServiceID)))
	if err != nil {
		return nil, err
	}
	cfg.Password = password
	return pgx.ConnectConfig(ctx, cfg)
}

// TestEmulatorWithPostgres drives the emulator's API with a real database behind it: the endpoint
// accepts the initial password, updatePassword replaces it, a fork holds the data written before
// it, and delete drops the database.
func TestEmulatorWithPostgres(t *testing.T) {
	e := newAPIEnv(t)
	ctx := t.Context()
	c := cluster(t)

	var created api.Service
	e.call(http.MethodPost, "", api.ServiceCreate{Name: "pg"}, &created)
	id := deref(created.ServiceID)
	pw := deref(created.InitialPassword)
	if deref(created.Endpoint.Host) != c.Host() || deref(created.Endpoint.Port) != c.Port() {
		t.Fatalf("endpoint = %s:%d, want the cluster's %s:%d", deref(created.Endpoint.Host), deref(created.Endpoint.Port), c.Host(), c.Port())
	}
	s := e.waitFor(id, "READY", func(s *api.Service, _ int) bool { return deref(s.Status) == api.READY })

	conn, err := login(ctx, s, pw)
	if err != nil {
		t.Fatalf("login with initial_password: %v", err)
	}
	mustExec(t, conn, "CREATE TABLE notes (v text)")
	mustExec(t, conn, "INSERT INTO notes VALUES ('written before the fork')")
	_ = conn.Close(ctx)

	// updatePassword: the old password stops working, the new one works.
	e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: "a new 'password'"}, nil)
	if conn, err := login(ctx, s, pw); err == nil {
		_ = conn.Close(ctx)
		t.Fatal("the old password still works after updatePassword")
	}
	conn, err = login(ctx, s, "a new 'password'")
	if err != nil {
		t.Fatalf("login with the new password: %v", err)
	}
	_ = conn.Close(ctx)

	// Fork: the row is in the copy, reachable with the fork's own initial_password.
	var forked api.Service
	e.call(http.MethodPost, "/"+id+"/forkService", api.ForkServiceCreate{ForkStrategy: api.NOW}, &forked)
	forkID := deref(forked.ServiceID)
	fs := e.waitFor(forkID, "READY", func(s *api.Service, _ int) bool { return deref(s.Status) == api.READY })
	fconn, err := login(ctx, fs, deref(forked.InitialPassword))
	if err != nil {
		t.Fatalf("login to the fork: %v", err)
	}
	var v string
	if err := fconn.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil || v != "written before the fork" {
		t.Fatalf("row in the fork: %q, %v", v, err)
	}
	_ = fconn.Close(ctx)

	// Delete: once the service is gone, so is its database.
	for _, sid := range []string{forkID, id} {
		e.call(http.MethodDelete, "/"+sid, nil, nil)
		e.waitFor(sid, "gone", func(_ *api.Service, code int) bool { return code == http.StatusNotFound })
		if ok, err := c.DatabaseExists(ctx, sid); err != nil || ok {
			t.Errorf("database of deleted service %s: exists %v, %v", sid, ok, err)
		}
	}
}
