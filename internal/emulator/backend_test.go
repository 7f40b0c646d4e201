package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// fakeDB records the calls of the emulator into its DatabaseBackend.
type fakeDB struct {
	mu        sync.Mutex
	calls     []string
	passwords map[string]string
	ready     bool // Ready answers true only once this is set
	dropping  bool // Deleted answers false while this is set
	fail      error
}

func (f *fakeDB) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeDB) setPassword(id, pw string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.passwords == nil {
		f.passwords = map[string]string{}
	}
	f.passwords[id] = pw
}

func (f *fakeDB) OnCreate(id, pw string, addons []string) (string, int, error) {
	f.record("create %s addons=%v", id, addons)
	f.setPassword(id, pw)
	return "127.0.0.1", 15432, nil
}

func (f *fakeDB) OnFork(src, id, pw string) (string, int, error) {
	f.record("fork %s %s", src, id)
	f.setPassword(id, pw)
	return "127.0.0.1", 15432, nil
}

func (f *fakeDB) OnPassword(id, pw string) error {
	f.record("password %s", id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.passwords[id] = pw
	return nil
}

func (f *fakeDB) OnStop(id string) error   { f.record("stop %s", id); return nil }
func (f *fakeDB) OnStart(id string) error  { f.record("start %s", id); return nil }
func (f *fakeDB) OnDelete(id string) error { f.record("delete %s", id); return nil }
func (f *fakeDB) Deleted(string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.dropping
}

func (f *fakeDB) Ready(id, pw string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready && f.passwords[id] == pw
}

func (f *fakeDB) setReady(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ready = v
}

func (f *fakeDB) setFail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail = err
}

func (f *fakeDB) history() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func TestDatabaseBackendHooks(t *testing.T) {
	db := &fakeDB{}
	clk := newFakeClock()
	e := newEnv(t, Options{Timing: FastTiming(), Now: clk.Now, Database: db})
	e.clk = clk

	// Create: the endpoint is the backend's; READY waits for Ready.
	s := e.createService(api.ServiceCreate{Name: "db", Addons: addons(api.TimeSeries)})
	id := *s.ServiceID
	if s.Endpoint == nil || str(s.Endpoint.Host) != "127.0.0.1" || *s.Endpoint.Port != 15432 {
		t.Errorf("endpoint = %+v", s.Endpoint)
	}
	clk.Advance(time.Hour)
	e.mustStatus(id, api.CONFIGURING)
	db.setReady(true)
	e.mustStatus(id, api.READY)

	// updatePassword goes to the backend; a backend failure is a 500 and keeps the old password.
	resp, err := e.c.UpdatePasswordWithResponse(e.ctx, testProject, id, api.UpdatePasswordInput{Password: "new-pw"})
	if err != nil || resp.StatusCode() != http.StatusNoContent {
		t.Fatalf("updatePassword: %v %v", resp.StatusCode(), err)
	}
	db.setFail(errors.New("boom"))
	resp, err = e.c.UpdatePasswordWithResponse(e.ctx, testProject, id, api.UpdatePasswordInput{Password: "newer-pw"})
	if err != nil || resp.StatusCode() != http.StatusInternalServerError {
		t.Fatalf("updatePassword with a failing backend: %v %v", resp.StatusCode(), err)
	}
	db.setFail(nil)
	if pw := e.srv.ServicePassword(testProject, id); pw != "new-pw" {
		t.Errorf("password = %q after the failed change", pw)
	}

	// Fork: the backend copies the source.
	fr, err := e.c.ForkServiceWithResponse(e.ctx, testProject, id, api.ForkServiceCreate{ForkStrategy: api.NOW})
	if err != nil || fr.JSON202 == nil {
		t.Fatalf("fork: %v %s", err, fr.Body)
	}
	forkID := *fr.JSON202.ServiceID
	clk.Advance(time.Hour)
	e.mustStatus(forkID, api.READY)

	// Stop and start (the stop and start handlers call these).
	e.srv.mu.Lock()
	rec := e.srv.findService(testProject, id)
	errStop, errStart := e.srv.dbStop(rec), e.srv.dbStart(rec)
	e.srv.mu.Unlock()
	if errStop != nil || errStart != nil {
		t.Fatalf("stop/start: %v %v", errStop, errStart)
	}

	// Delete: answered at once; the service is gone only once the backend's drop is over.
	db.mu.Lock()
	db.dropping = true
	db.mu.Unlock()
	del, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, forkID)
	if err != nil || del.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete: %v %v", del.StatusCode(), err)
	}
	clk.Advance(time.Hour)
	e.mustStatus(forkID, api.DELETING)
	db.mu.Lock()
	db.dropping = false
	db.mu.Unlock()
	if got, err := e.c.GetServiceWithResponse(e.ctx, testProject, forkID); err != nil || got.StatusCode() != http.StatusNotFound {
		t.Fatalf("after the drop: %v %v, want 404", got.StatusCode(), err)
	}
	want := []string{
		"create " + id + " addons=[time-series]",
		"password " + id,
		"password " + id,
		"fork " + id + " " + forkID,
		"stop " + id,
		"start " + id,
		"delete " + forkID,
	}
	if got := db.history(); !slices.Equal(got, want) {
		t.Errorf("calls:\n got %q\nwant %q", got, want)
	}
}

// replicaFakeDB is a fakeDB whose replica sets get a standby that is ready or fails (failed).
type replicaFakeDB struct {
	fakeDB
	failed bool
}

func (f *replicaFakeDB) OnReplicaSet(_, id string) (string, int, error) {
	return "127.0.0.1", 16432, nil
}
func (f *replicaFakeDB) OnReplicaSetDelete(_, _ string) error { return nil }
func (f *replicaFakeDB) ReplicaSetReady(string) bool          { return !f.failed }
func (f *replicaFakeDB) ReplicaSetFailed(string) bool         { return f.failed }

// A replica set whose standby cannot be made ends in status error (terminal, as on the live API),
// instead of staying creating until the client's timeout; one that can turns active.
func TestReplicaSetBackendFailureIsStatusError(t *testing.T) {
	for _, failed := range []bool{false, true} {
		db := &replicaFakeDB{failed: failed}
		db.setReady(true)
		clk := newFakeClock()
		e := newEnv(t, Options{Timing: FastTiming(), Now: clk.Now, Database: db})
		e.clk = clk
		s := e.readyService(api.ServiceCreate{Name: fmt.Sprintf("primary-%v", failed)})
		r, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, *s.ServiceID, api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
		if err != nil || r.JSON202 == nil {
			t.Fatalf("create replica set: %v %s", err, r.Body)
		}
		clk.Advance(time.Hour)
		got, ok := e.srv.ReplicaSet(testProject, *s.ServiceID, *r.JSON202.ID)
		if !ok {
			t.Fatal("the replica set is gone")
		}
		want := api.ReplicaSetStatusActive
		if failed {
			want = api.ReplicaSetStatusError
		}
		if st := deref(got.Status); st != want {
			t.Errorf("standby failed = %v: status %s, want %s", failed, st, want)
		}
	}
}
