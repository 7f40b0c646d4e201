package emulator

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// readyReplicaSet adds an active replica set to a READY service (fake clock).
func (e *env) readyReplicaSet(serviceID string, body api.ReadReplicaSetCreate) string {
	e.t.Helper()
	cr, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, serviceID, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if cr.StatusCode() != http.StatusAccepted || cr.JSON202 == nil {
		e.t.Fatalf("create replica set: %d %s", cr.StatusCode(), cr.Body)
	}
	e.clk.Advance(time.Hour)
	return str(cr.JSON202.ID)
}

// TestGetServiceAnswersReplicaSetStandby: GET of the service path with a read replica set's id answers
// the standby's Service record as api-facts.md says, the list of services does not hold it, and it
// follows the set (its pooler, its size, its deletion).
func TestGetServiceAnswersReplicaSetStandby(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	primary := e.readyService(api.ServiceCreate{Name: "primary", Addons: addons(api.TimeSeries), RegionCode: strp("eu-west-1"), CPUMillis: strp("2000"), MemoryGbs: strp("8")})
	pid := str(primary.ServiceID)
	rsid := e.readyReplicaSet(pid, api.ReadReplicaSetCreate{Name: "reads", Nodes: 2, CPUMillis: 1000, MemoryGbs: 4})

	r, err := e.c.GetServiceWithResponse(e.ctx, testProject, rsid)
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != http.StatusOK || r.JSON200 == nil {
		t.Fatalf("GET service path with a replica set id: %d %s", r.StatusCode(), r.Body)
	}
	s := r.JSON200
	set, _ := e.srv.ReplicaSet(testProject, pid, rsid)
	ff := s.ForkedFrom
	if ff == nil || str(ff.ProjectID) != testProject || str(ff.ServiceID) != pid || ff.IsStandby == nil || !*ff.IsStandby {
		t.Errorf("forked_from = %+v, want {%s %s true}", ff, testProject, pid)
	}
	if str(s.ServiceID) != rsid || str(s.ProjectID) != testProject || str(s.Name) != "reads" {
		t.Errorf("id, project, name = %s %s %s", str(s.ServiceID), str(s.ProjectID), str(s.Name))
	}
	if str(s.ServiceType) != str(primary.ServiceType) || str(s.RegionCode) != "eu-west-1" {
		t.Errorf("type, region = %s %s, want the primary's %s eu-west-1", str(s.ServiceType), str(s.RegionCode), str(primary.ServiceType))
	}
	if sz := serviceSize(*s); sz != (size{1000, 4}) {
		t.Errorf("size = %s, want the set's 1000/4", sz)
	}
	if s.Endpoint == nil || str(s.Endpoint.Host) != str(set.Endpoint.Host) || *s.Endpoint.Port != *set.Endpoint.Port {
		t.Errorf("endpoint = %+v, want the set's %s", s.Endpoint, str(set.Endpoint.Host))
	}
	if status(s) != api.READY || s.Metadata == nil || str(s.Metadata.Environment) != "DEV" {
		t.Errorf("status, metadata = %s %+v", status(s), s.Metadata)
	}
	for _, key := range []string{`"connection_pooler"`, `"vpc_endpoint"`, `"initial_password"`} {
		if bytes.Contains(r.Body, []byte(key)) {
			t.Errorf("standby record has %s: %s", key, r.Body)
		}
	}

	// The list of services holds the primary only.
	l, err := e.c.ListServicesWithResponse(e.ctx, testProject)
	if err != nil || l.JSON200 == nil {
		t.Fatalf("list: %v", err)
	}
	if got := *l.JSON200; len(got) != 1 || str(got[0].ServiceID) != pid {
		t.Errorf("list of services = %s, want only %s", l.Body, pid)
	}

	// The pooler shows when the set's is on; the environment is the set's.
	if r, err := e.c.EnableReplicaSetPoolerWithResponse(e.ctx, testProject, pid, rsid); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("enable pooler: %v", err)
	}
	if r, err := e.c.SetReplicaSetEnvironmentWithResponse(e.ctx, testProject, pid, rsid, api.SetEnvironmentInput{Environment: api.PROD}); err != nil || r.StatusCode() != http.StatusOK {
		t.Fatalf("set environment: %v", err)
	}
	s, _ = e.getService(rsid)
	set, _ = e.srv.ReplicaSet(testProject, pid, rsid)
	if s.ConnectionPooler == nil || str(s.ConnectionPooler.Endpoint.Host) != str(set.ConnectionPooler.Endpoint.Host) || str(s.Metadata.Environment) != "PROD" {
		t.Errorf("after pooler on and PROD: pooler %+v, metadata %+v", s.ConnectionPooler, s.Metadata)
	}

	// A resize shows as CONFIGURING with the new size, then READY.
	if r, err := e.c.ResizeReplicaSetWithResponse(e.ctx, testProject, pid, rsid, api.ResizeInput{CPUMillis: "2000", MemoryGbs: "8"}); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %v", err)
	}
	if s := e.mustStatus(rsid, api.CONFIGURING); serviceSize(*s) != (size{2000, 8}) {
		t.Errorf("resizing standby size = %s", serviceSize(*s))
	}
	e.clk.Advance(time.Hour)
	e.mustStatus(rsid, api.READY)

	// Deleting the set: DELETING, then 404.
	if r, err := e.c.DeleteReplicaSetWithResponse(e.ctx, testProject, pid, rsid); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete replica set: %v", err)
	}
	e.mustStatus(rsid, api.DELETING)
	e.clk.Advance(time.Hour)
	if _, code := e.getService(rsid); code != http.StatusNotFound {
		t.Errorf("GET of a deleted replica set's id: %d, want 404", code)
	}
}

// TestStandbyStatusWhileCreating: a set being created shows as a CONFIGURING standby.
func TestStandbyStatusWhileCreating(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	pid := str(e.readyService(api.ServiceCreate{Name: "primary"}).ServiceID)
	cr, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, pid, api.ReadReplicaSetCreate{Name: "reads", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil || cr.JSON202 == nil {
		t.Fatalf("create replica set: %v", err)
	}
	e.mustStatus(str(cr.JSON202.ID), api.CONFIGURING)
	e.clk.Advance(time.Hour)
	e.mustStatus(str(cr.JSON202.ID), api.READY)
}

// TestServicePathRefusesReplicaSetIDs: every call on the service path other than GET of the record
// answers 404 for a replica set's id (standby.go says why not 409), naming the set's primary, and
// changes nothing.
func TestServicePathRefusesReplicaSetIDs(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	pid := str(e.readyService(api.ServiceCreate{Name: "primary"}).ServiceID)
	vpc, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "net", Cidr: "10.0.0.0/16", RegionCode: DefaultRegion})
	if err != nil || vpc.JSON201 == nil {
		t.Fatalf("create vpc: %v", err)
	}
	vid := str(vpc.JSON201.ID)
	rsid := e.readyReplicaSet(pid, api.ReadReplicaSetCreate{Name: "reads", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
	before, _ := e.srv.ReplicaSet(testProject, pid, rsid)
	path := "/projects/" + testProject + "/services/" + rsid
	calls := []struct{ method, path, body string }{
		{"DELETE", path, ""},
		{"POST", path + "/rename", `{"name":"x"}`},
		{"POST", path + "/resize", `{"cpu_millis":"2000","memory_gbs":"8"}`},
		{"POST", path + "/stop", ""},
		{"POST", path + "/start", ""},
		{"POST", path + "/updatePassword", `{"password":"secret-value-1"}`},
		{"POST", path + "/setEnvironment", `{"environment":"PROD"}`},
		{"POST", path + "/setHA", `{"replica_count":1}`},
		{"POST", path + "/enablePooler", ""},
		{"POST", path + "/disablePooler", ""},
		{"POST", path + "/forkService", `{"fork_strategy":"NOW"}`},
		{"POST", path + "/attachToVPC", `{"vpc_id":"` + vid + `"}`},
		{"POST", path + "/detachFromVPC", `{"vpc_id":"` + vid + `"}`},
		{"POST", path + "/replicaSets", `{"name":"r","nodes":1,"cpu_millis":1000,"memory_gbs":4}`},
		{"GET", path + "/replicaSets", ""},
	}
	for _, c := range calls {
		code, _, body := e.raw(c.method, c.path, c.body)
		expectError(t, c.method+" "+c.path, code, body, http.StatusNotFound, "NOT_FOUND", "is a read replica set of service "+pid)
		if d := errorOf(t, body).Details; d == nil || !bytes.Contains([]byte(*d), []byte("/services/"+pid+"/replicaSets/"+rsid)) {
			t.Errorf("%s %s: details %v do not give the replicaSets path", c.method, c.path, d)
		}
	}
	after, ok := e.srv.ReplicaSet(testProject, pid, rsid)
	if !ok || str(after.Name) != str(before.Name) || *after.CPUMillis != *before.CPUMillis || after.ConnectionPooler != nil ||
		str(after.Metadata.Environment) != "DEV" || str(after.Status) != "active" {
		t.Errorf("the replica set changed: %+v", after)
	}
	if svcs := e.srv.Services(testProject); len(svcs) != 1 {
		t.Errorf("services after the calls: %d, want 1 (no fork)", len(svcs))
	}
	e.mustStatus(rsid, api.READY) // GET still answers it

}

// TestListStandbysOption: with Options.ListStandbys the list of services also holds each replica set's
// standby record, after its primary, as GET answers it.
func TestListStandbysOption(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	e := newEnv(t, Options{Timing: FastTiming(), Now: clk.Now, ListStandbys: true})
	e.clk = clk
	pid := str(e.readyService(api.ServiceCreate{Name: "primary"}).ServiceID)
	rsid := e.readyReplicaSet(pid, api.ReadReplicaSetCreate{Name: "reads", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
	l, err := e.c.ListServicesWithResponse(e.ctx, testProject)
	if err != nil || l.JSON200 == nil {
		t.Fatalf("list: %v", err)
	}
	got := *l.JSON200
	if len(got) != 2 || str(got[0].ServiceID) != pid || str(got[1].ServiceID) != rsid {
		t.Fatalf("list = %s, want %s then the standby %s", l.Body, pid, rsid)
	}
	if ff := got[1].ForkedFrom; ff == nil || ff.IsStandby == nil || !*ff.IsStandby || str(ff.ServiceID) != pid {
		t.Errorf("listed standby forked_from = %+v", ff)
	}
	if ff := got[0].ForkedFrom; ff != nil {
		t.Errorf("primary forked_from = %+v", ff)
	}
}
