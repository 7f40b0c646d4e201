package emulator

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// pollReplicaSet polls the list until done, returning the distinct statuses seen ("gone" once the
// set has left the list).
func (e *env) pollReplicaSet(serviceID, rsID string, done func(*api.ReadReplicaSet) bool) []string {
	e.t.Helper()
	var seen []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := e.c.ListReplicaSetsWithResponse(e.ctx, testProject, serviceID)
		if err != nil {
			e.t.Fatal(err)
		}
		if r.StatusCode() != http.StatusOK {
			e.t.Fatalf("list replica sets: %d %s", r.StatusCode(), r.Body)
		}
		var rs *api.ReadReplicaSet
		for i := range *r.JSON200 {
			if str((*r.JSON200)[i].ID) == rsID {
				rs = &(*r.JSON200)[i]
			}
		}
		st := "gone"
		if rs != nil {
			st = str(rs.Status)
		}
		if len(seen) == 0 || seen[len(seen)-1] != st {
			seen = append(seen, st)
		}
		if done(rs) {
			return seen
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("replica set %s: gave up polling; statuses seen: %v", rsID, seen)
		}
		time.Sleep(3 * time.Millisecond)
	}
}

func rsStatus(rs *api.ReadReplicaSet) api.ReplicaSetStatus {
	if rs == nil || rs.Status == nil {
		return ""
	}
	return *rs.Status
}

// TestReplicaSetLifecycle walks a replica set through creating -> active -> resizing -> active ->
// deleting -> gone in real time.
func TestReplicaSetLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timing: pollTiming()})
	sid := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID

	cr, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, sid, api.ReadReplicaSetCreate{Name: "reads", Nodes: 2, CPUMillis: 1000, MemoryGbs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if cr.StatusCode() != http.StatusAccepted || cr.JSON202 == nil {
		t.Fatalf("create replica set: %d %s", cr.StatusCode(), cr.Body)
	}
	rs := *cr.JSON202
	id := str(rs.ID)
	if !alnumID.MatchString(id) {
		t.Errorf("replica set id %q", id)
	}
	if rsStatus(&rs) != api.ReplicaSetStatusCreating || str(rs.Name) != "reads" || *rs.Nodes != 2 || *rs.CPUMillis != 1000 || *rs.MemoryGbs != 4 {
		t.Errorf("created replica set = %s", cr.Body)
	}
	if str(rs.Metadata.Environment) != "DEV" || rs.ConnectionPooler != nil || bytes.Contains(cr.Body, []byte(`"connection_pooler"`)) {
		t.Errorf("created replica set = %s", cr.Body)
	}
	if ep := rs.Endpoint; str(ep.Host) != id+"."+sid+"."+testProject+".replica.dbcloud.example" || *ep.Port != DatabasePort {
		t.Errorf("endpoint = %s:%d", str(ep.Host), *ep.Port)
	}

	seen := e.pollReplicaSet(sid, id, func(rs *api.ReadReplicaSet) bool { return rsStatus(rs) == api.ReplicaSetStatusActive })
	if want := []string{"creating", "active"}; !slices.Equal(seen, want) {
		t.Errorf("create: statuses seen %v, want %v", seen, want)
	}
	// Also shown inside the service, which stays READY.
	s := e.mustStatus(sid, api.READY)
	if got := *s.ReadReplicaSets; len(got) != 1 || str(got[0].ID) != id || rsStatus(&got[0]) != api.ReplicaSetStatusActive {
		t.Errorf("read_replica_sets = %+v", got)
	}

	rz, err := e.c.ResizeReplicaSetWithResponse(e.ctx, testProject, sid, id, api.ResizeInput{CPUMillis: "2000", MemoryGbs: "8"})
	if err != nil {
		t.Fatal(err)
	}
	if rz.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %d %s", rz.StatusCode(), rz.Body)
	}
	seen = e.pollReplicaSet(sid, id, func(rs *api.ReadReplicaSet) bool { return rsStatus(rs) == api.ReplicaSetStatusActive })
	if want := []string{"resizing", "active"}; !slices.Equal(seen, want) {
		t.Errorf("resize: statuses seen %v, want %v", seen, want)
	}
	got, ok := e.srv.ReplicaSet(testProject, sid, id)
	if !ok || *got.CPUMillis != 2000 || *got.MemoryGbs != 8 || *got.Nodes != 2 {
		t.Errorf("after resize: %+v", got)
	}

	// Synchronous changes.
	if r, err := e.c.EnableReplicaSetPoolerWithResponse(e.ctx, testProject, sid, id); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("enable pooler: %v", err)
	}
	got, _ = e.srv.ReplicaSet(testProject, sid, id)
	if p := got.ConnectionPooler; p == nil || str(p.Endpoint.Host) != id+"-pooler."+sid+"."+testProject+".replica.dbcloud.example" || *p.Endpoint.Port != PoolerPort {
		t.Errorf("pooler = %+v", p)
	}
	if r, err := e.c.DisableReplicaSetPoolerWithResponse(e.ctx, testProject, sid, id); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("disable pooler: %v", err)
	}
	if r, err := e.c.SetReplicaSetEnvironmentWithResponse(e.ctx, testProject, sid, id, api.SetEnvironmentInput{Environment: api.PROD}); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("set environment: %v", err)
	}
	got, _ = e.srv.ReplicaSet(testProject, sid, id)
	if got.ConnectionPooler != nil || str(got.Metadata.Environment) != "PROD" || rsStatus(&got) != api.ReplicaSetStatusActive {
		t.Errorf("after pooler off and PROD: %+v", got)
	}

	del, err := e.c.DeleteReplicaSetWithResponse(e.ctx, testProject, sid, id)
	if err != nil {
		t.Fatal(err)
	}
	if del.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete: %d %s", del.StatusCode(), del.Body)
	}
	seen = e.pollReplicaSet(sid, id, func(rs *api.ReadReplicaSet) bool { return rs == nil })
	if want := []string{"deleting", "gone"}; !slices.Equal(seen, want) {
		t.Errorf("delete: statuses seen %v, want %v", seen, want)
	}
	if s := e.mustStatus(sid, api.READY); len(*s.ReadReplicaSets) != 0 {
		t.Errorf("read_replica_sets after delete = %+v", *s.ReadReplicaSets)
	}
}

func TestReplicaSetRules(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	sid := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	create := func(in api.ReadReplicaSetCreate) *api.CreateReplicaSetResponse {
		t.Helper()
		r, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, sid, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := create(api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 1000, MemoryGbs: 8})
	expectError(t, "bad size", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "unsupported size 1000/8")
	r = create(api.ReadReplicaSetCreate{Name: "r", Nodes: 0, CPUMillis: 1000, MemoryGbs: 4})
	expectError(t, "no nodes", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "nodes")
	r = create(api.ReadReplicaSetCreate{Name: "", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
	expectError(t, "empty name", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "name")

	r = create(api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if r.StatusCode() != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.StatusCode(), r.Body)
	}
	id := *r.JSON202.ID

	// While creating: synchronous changes and resize are conflicts.
	en, err := e.c.EnableReplicaSetPoolerWithResponse(e.ctx, testProject, sid, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "pooler while creating", en.StatusCode(), en.Body, http.StatusConflict, "CONFLICT", "replica set "+id+" is creating, not active")
	env, err := e.c.SetReplicaSetEnvironmentWithResponse(e.ctx, testProject, sid, id, api.SetEnvironmentInput{Environment: api.PROD})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "environment while creating", env.StatusCode(), env.Body, http.StatusConflict, "CONFLICT", "is creating, not active")
	rz, err := e.c.ResizeReplicaSetWithResponse(e.ctx, testProject, sid, id, api.ResizeInput{CPUMillis: "1000", MemoryGbs: "4"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "resize while creating", rz.StatusCode(), rz.Body, http.StatusConflict, "CONFLICT", "is creating, not active")

	e.clk.Advance(FastTiming().ReplicaCreating)
	if got, _ := e.srv.ReplicaSet(testProject, sid, id); rsStatus(&got) != api.ReplicaSetStatusActive {
		t.Fatalf("status = %s, want active", rsStatus(&got))
	}
	rz, err = e.c.ResizeReplicaSetWithResponse(e.ctx, testProject, sid, id, api.ResizeInput{CPUMillis: "500", MemoryGbs: "4"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "resize to a bad size", rz.StatusCode(), rz.Body, http.StatusBadRequest, "BAD_REQUEST", "accepted sizes: 500/2")

	// Unknown ids.
	for _, unknown := range []struct{ sid, rsid, want string }{{sid, "nosuchset0", "replica set nosuchset0 not found"}, {"nosuchsvc0", id, "service nosuchsvc0 not found"}} {
		d, err := e.c.DeleteReplicaSetWithResponse(e.ctx, testProject, unknown.sid, unknown.rsid)
		if err != nil {
			t.Fatal(err)
		}
		expectError(t, "delete unknown", d.StatusCode(), d.Body, http.StatusNotFound, "NOT_FOUND", unknown.want)
		p, err := e.c.EnableReplicaSetPoolerWithResponse(e.ctx, testProject, unknown.sid, unknown.rsid)
		if err != nil {
			t.Fatal(err)
		}
		expectError(t, "pooler unknown", p.StatusCode(), p.Body, http.StatusNotFound, "NOT_FOUND", unknown.want)
	}
	l, err := e.c.ListReplicaSetsWithResponse(e.ctx, testProject, "nosuchsvc0")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "list of unknown service", l.StatusCode(), l.Body, http.StatusNotFound, "NOT_FOUND", "service nosuchsvc0 not found")

	// Deleting twice answers 202 both times; then gone.
	for range 2 {
		d, err := e.c.DeleteReplicaSetWithResponse(e.ctx, testProject, sid, id)
		if err != nil || d.StatusCode() != http.StatusAccepted {
			t.Fatalf("delete: %v %d", err, d.StatusCode())
		}
	}
	if got, _ := e.srv.ReplicaSet(testProject, sid, id); rsStatus(&got) != api.ReplicaSetStatusDeleting {
		t.Errorf("status = %s, want deleting", rsStatus(&got))
	}
	e.clk.Advance(FastTiming().ReplicaDeleting)
	if _, ok := e.srv.ReplicaSet(testProject, sid, id); ok {
		t.Error("replica set still there after deleting")
	}
}
