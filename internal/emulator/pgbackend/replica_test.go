package pgbackend

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// TestEmulatorReplicaSetReadOnly: a read replica set's endpoint is the cluster's, and its read-only
// role (ReadOnlyUser, the service's password) reads the primary's data and cannot write; a password
// change reaches it.
func TestEmulatorReplicaSetReadOnly(t *testing.T) {
	e := newAPIEnv(t)
	ctx := t.Context()
	c := cluster(t)

	var created api.Service
	e.call(http.MethodPost, "", api.ServiceCreate{Name: "ro"}, &created)
	id := deref(created.ServiceID)
	s := e.waitFor(id, "READY", func(s *api.Service, _ int) bool { return deref(s.Status) == api.READY })
	conn, err := login(ctx, s, deref(created.InitialPassword))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "CREATE TABLE notes (v text)")
	mustExec(t, conn, "INSERT INTO notes VALUES ('from the primary')")
	_ = conn.Close(ctx)

	var rs api.ReadReplicaSet
	e.call(http.MethodPost, "/"+id+"/replicaSets", api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2}, &rs)
	if deref(rs.Endpoint.Host) != c.Host() || deref(rs.Endpoint.Port) != c.Port() {
		t.Fatalf("replica endpoint = %s:%d, want the cluster's", deref(rs.Endpoint.Host), deref(rs.Endpoint.Port))
	}
	roLogin := func(password string) (*pgx.Conn, error) {
		cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable connect_timeout=5",
			deref(rs.Endpoint.Host), deref(rs.Endpoint.Port), ReadOnlyUser(id), id))
		if err != nil {
			return nil, err
		}
		cfg.Password = password
		return pgx.ConnectConfig(ctx, cfg)
	}
	ro, err := roLogin(deref(created.InitialPassword))
	if err != nil {
		t.Fatalf("read-only login: %v", err)
	}
	var v string
	if err := ro.QueryRow(ctx, "SELECT v FROM notes").Scan(&v); err != nil || v != "from the primary" {
		t.Errorf("replica read: %q %v", v, err)
	}
	if _, err := ro.Exec(ctx, "INSERT INTO notes VALUES ('no')"); err == nil {
		t.Error("the replica's role could write")
	}
	_ = ro.Close(ctx)

	e.call(http.MethodPost, "/"+id+"/updatePassword", api.UpdatePasswordInput{Password: "rotated-pw"}, nil)
	if ro, err := roLogin("rotated-pw"); err != nil {
		t.Errorf("read-only login with the new password: %v", err)
	} else {
		_ = ro.Close(ctx)
	}
	e.call(http.MethodDelete, "/"+id, nil, nil)
	e.waitFor(id, "gone", func(_ *api.Service, code int) bool { return code == http.StatusNotFound })
}

// TestRestoreWithPostgres: a restored service gets its database (empty) back with its password.
func TestRestoreWithPostgres(t *testing.T) {
	c := cluster(t)
	srv := emulator.NewServer(emulator.Options{})
	defer srv.Close()
	// Build the snapshot through an in-memory emulator's API.
	env := &apiEnv{t: t, url: srv.URL + "/projects/" + project + "/services"}
	var created api.Service
	env.call(http.MethodPost, "", api.ServiceCreate{Name: "restored"}, &created)
	snap := srv.Snapshot()

	b := NewBackend(c)
	withDB := emulator.NewServer(emulator.Options{Database: b})
	defer func() {
		withDB.Close()
		_ = b.Close(time.Minute)
	}()
	if err := withDB.Restore(snap); err != nil {
		t.Fatal(err)
	}
	id := deref(created.ServiceID)
	got, ok := withDB.Service(project, id)
	if !ok || deref(got.Endpoint.Port) != c.Port() {
		t.Fatalf("restored service: %v %+v", ok, got.Endpoint)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !b.Ready(id, deref(created.InitialPassword)) {
		if time.Now().After(deadline) {
			t.Fatal("the restored service's database never accepted its password")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := b.OnDelete(id); err != nil {
		t.Error(err)
	}
}
