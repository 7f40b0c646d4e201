package pgbackend

import (
	"testing"
	"time"
)

// TestCreateLogin: a new instance accepts tsdbadmin's password over TLS, and nothing else.
func TestCreateLogin(t *testing.T) {
	m := manager(t)
	id := newID()
	began := time.Now()
	in, note, err := m.Create(t.Context(), id, CreateOptions{Password: "pw-'quoted'\\-1", TimeSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Remove(id) })
	t.Logf("created in %v; note: %s", time.Since(began), note)
	c := mustConnect(t, in.Host(), in.Port(), "pw-'quoted'\\-1")
	if v := queryString(t, c, "SELECT current_user || '@' || current_database()"); v != "tsdbadmin@tsdb" {
		t.Errorf("logged in as %s", v)
	}
	if !m.Ready(t.Context(), id, "pw-'quoted'\\-1") || m.Ready(t.Context(), id, "wrong") {
		t.Error("Ready does not check the password")
	}
	if m.Extension("timescaledb") != (note == "") {
		t.Errorf("note %q with timescaledb installed: %v", note, m.Extension("timescaledb"))
	}
}
