package emulatortest

import (
	"net/http"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func TestDirectServiceAccess(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	created := e.createService(api.ServiceCreate{Name: "db"})
	id := *created.ServiceID

	s, ok := e.srv.Service(testProject, id)
	if !ok || status(&s) != api.QUEUED || s.InitialPassword != nil {
		t.Fatalf("Service = %+v, %v", s, ok)
	}
	if _, ok := e.srv.Service("otherproj0", id); ok {
		t.Error("Service found in another project")
	}
	if _, ok := e.srv.Service(testProject, "nosuchsvc0"); ok {
		t.Error("unknown service found")
	}
	if pw := e.srv.ServicePassword(testProject, id); pw != *created.InitialPassword {
		t.Errorf("ServicePassword = %q", pw)
	}
	if pw := e.srv.ServicePassword(testProject, "nosuchsvc0"); pw != "" {
		t.Errorf("ServicePassword of unknown = %q", pw)
	}
	// Direct reads advance the clock-driven life cycle too.
	e.clk.Advance(time.Hour)
	if s, _ := e.srv.Service(testProject, id); status(&s) != api.READY {
		t.Errorf("status = %s, want READY", status(&s))
	}

	// Resize behind the client's back.
	if !e.srv.UpdateService(testProject, id, func(s *api.Service) {
		(*s.Resources)[0].Spec.CPUMillis = ptr(4000)
		(*s.Resources)[0].Spec.MemoryGbs = ptr(16)
		s.ServiceID = ptr("hijacked") // ignored
	}) {
		t.Fatal("UpdateService returned false")
	}
	got := e.mustStatus(id, api.READY)
	if cpu, mem := sizeOf(*got); cpu != 4000 || mem != 16 || *got.ServiceID != id {
		t.Errorf("after UpdateService: %+v", got)
	}
	// Editing the returned copy does not change the state.
	s, _ = e.srv.Service(testProject, id)
	s.Name = ptr("changed")
	if s2, _ := e.srv.Service(testProject, id); *s2.Name != "db" {
		t.Error("Service returned shared state")
	}

	// A status set directly sticks, even over pending transitions.
	if r, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, id, api.ResizeInput{CPUMillis: "500", MemoryGbs: "2"}); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %v", err)
	}
	e.srv.UpdateService(testProject, id, func(s *api.Service) { s.Status = ptr(api.UNSTABLE) })
	e.clk.Advance(time.Hour)
	e.mustStatus(id, api.UNSTABLE)
	r, err := e.c.EnablePoolerWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "pooler while UNSTABLE", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "is UNSTABLE, not READY")
	// But an edit that leaves the status alone keeps them.
	e.srv.UpdateService(testProject, id, func(s *api.Service) { s.Status = ptr(api.READY) })
	if rr, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, id, api.ResizeInput{CPUMillis: "1000", MemoryGbs: "4"}); err != nil || rr.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %v", err)
	}
	e.srv.UpdateService(testProject, id, func(s *api.Service) { s.Name = ptr("renamed") })
	e.clk.Advance(time.Hour)
	if s := e.mustStatus(id, api.READY); *s.Name != "renamed" {
		t.Errorf("name = %q", *s.Name)
	}

	if e.srv.UpdateService(testProject, "nosuchsvc0", func(*api.Service) {}) {
		t.Error("UpdateService of unknown returned true")
	}
	if !e.srv.RemoveService(testProject, id) {
		t.Fatal("RemoveService returned false")
	}
	if _, code := e.getService(id); code != http.StatusNotFound {
		t.Errorf("GET after RemoveService: %d", code)
	}
	if e.srv.RemoveService(testProject, id) {
		t.Error("RemoveService twice returned true")
	}
}

func TestDirectReplicaSetAccess(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	sid := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	r, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, sid, api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("create: %v", err)
	}
	id := *r.JSON202.ID
	if rs, ok := e.srv.ReplicaSet(testProject, sid, id); !ok || rsStatus(&rs) != api.ReplicaSetStatusCreating {
		t.Fatalf("ReplicaSet = %+v %v", rs, ok)
	}
	// Fail it behind the back: the status sticks.
	e.srv.UpdateReplicaSet(testProject, sid, id, func(rs *api.ReadReplicaSet) {
		rs.Status = ptr(api.ReplicaSetStatusError)
		rs.Nodes = ptr(5)
	})
	e.clk.Advance(time.Hour)
	rs, _ := e.srv.ReplicaSet(testProject, sid, id)
	if rsStatus(&rs) != api.ReplicaSetStatusError || *rs.Nodes != 5 {
		t.Errorf("after UpdateReplicaSet: %+v", rs)
	}
	s := e.mustStatus(sid, api.READY)
	if got := (*s.ReadReplicaSets)[0]; rsStatus(&got) != api.ReplicaSetStatusError {
		t.Errorf("service shows replica set %+v", got)
	}
	if e.srv.UpdateReplicaSet(testProject, sid, "nosuchset0", func(*api.ReadReplicaSet) {}) {
		t.Error("UpdateReplicaSet of unknown returned true")
	}
	if !e.srv.RemoveReplicaSet(testProject, sid, id) {
		t.Fatal("RemoveReplicaSet returned false")
	}
	if _, ok := e.srv.ReplicaSet(testProject, sid, id); ok {
		t.Error("replica set still there")
	}
	if e.srv.RemoveReplicaSet(testProject, sid, id) || e.srv.RemoveReplicaSet(testProject, "nosuchsvc0", id) {
		t.Error("RemoveReplicaSet of unknown returned true")
	}
}

func TestDirectVPCAndPeeringAccess(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	vpcID := str(e.createVPC("net", "10.0.0.0/16", "us-east-1").ID)
	if v, ok := e.srv.VPC(testProject, vpcID); !ok || str(v.Name) != "net" {
		t.Fatalf("VPC = %+v %v", v, ok)
	}
	e.srv.UpdateVPC(testProject, vpcID, func(v *api.VPC) { v.Name = ptr("renamed-behind") })
	g, err := e.c.GetVPCWithResponse(e.ctx, testProject, vpcID)
	if err != nil || str(g.JSON200.Name) != "renamed-behind" {
		t.Fatalf("get vpc: %v %s", err, g.Body)
	}

	pid := str(e.createPeering(vpcID, "vpc-1").ID)
	if !e.srv.FailPeering(testProject, vpcID, pid, "peer rejected the request") {
		t.Fatal("FailPeering returned false")
	}
	e.clk.Advance(time.Hour) // no transition overrides the failure
	gp, err := e.c.GetPeeringWithResponse(e.ctx, testProject, vpcID, pid)
	if err != nil || str(gp.JSON200.Status) != "failed" || str(gp.JSON200.ErrorMessage) != "peer rejected the request" {
		t.Fatalf("get peering: %v %s", err, gp.Body)
	}
	e.srv.UpdatePeering(testProject, vpcID, pid, func(p *api.Peering) {
		p.Status = ptr("active")
		p.ErrorMessage = nil
		p.ProvisionedID = ptr("pcx-0123456789abcdef0")
	})
	if p, _ := e.srv.Peering(testProject, vpcID, pid); str(p.Status) != "active" || p.ErrorMessage != nil {
		t.Errorf("after UpdatePeering: %+v", p)
	}
	if e.srv.FailPeering(testProject, vpcID, "1", "x") || e.srv.UpdatePeering(testProject, "1", pid, func(*api.Peering) {}) {
		t.Error("unknown peering found")
	}
	if !e.srv.RemovePeering(testProject, vpcID, pid) {
		t.Fatal("RemovePeering returned false")
	}
	if _, ok := e.srv.Peering(testProject, vpcID, pid); ok {
		t.Error("peering still there")
	}
	if !e.srv.RemoveVPC(testProject, vpcID) {
		t.Fatal("RemoveVPC returned false")
	}
	if _, ok := e.srv.VPC(testProject, vpcID); ok {
		t.Error("vpc still there")
	}
	if e.srv.RemoveVPC(testProject, vpcID) || e.srv.UpdateVPC(testProject, vpcID, func(*api.VPC) {}) || e.srv.RemovePeering(testProject, vpcID, pid) {
		t.Error("removed VPC found")
	}
}

func TestDirectStatusHelpers(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID

	// Stuck CONFIGURING: stays until told otherwise, and refuses changes.
	if !e.srv.SetServiceStatus(testProject, id, api.CONFIGURING) {
		t.Fatal("SetServiceStatus returned false")
	}
	e.clk.Advance(24 * time.Hour)
	e.mustStatus(id, api.CONFIGURING)
	r, err := e.c.EnablePoolerWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "pooler while stuck", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "is CONFIGURING, not READY")

	// UNSTABLE for a while, then READY.
	if !e.srv.SetServiceStatusFor(testProject, id, api.UNSTABLE, 3*time.Second, api.READY) {
		t.Fatal("SetServiceStatusFor returned false")
	}
	e.clk.Advance(3*time.Second - time.Millisecond)
	e.mustStatus(id, api.UNSTABLE)
	e.clk.Advance(time.Millisecond)
	e.mustStatus(id, api.READY)

	// UNSTABLE forever.
	e.srv.SetServiceStatus(testProject, id, api.UNSTABLE)
	e.clk.Advance(24 * time.Hour)
	e.mustStatus(id, api.UNSTABLE)

	// Paused behind the client's back; start resumes it.
	e.srv.SetServiceStatus(testProject, id, api.READY)
	if !e.srv.PauseService(testProject, id) {
		t.Fatal("PauseService returned false")
	}
	e.mustStatus(id, api.PAUSED)
	if sr, err := e.c.StartServiceWithResponse(e.ctx, testProject, id); err != nil || sr.StatusCode() != http.StatusAccepted {
		t.Fatalf("start: %v", err)
	}
	e.clk.Advance(time.Hour)
	e.mustStatus(id, api.READY)

	// A replica set in error, for good.
	cr, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, id, api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil || cr.JSON202 == nil {
		t.Fatalf("create replica set: %v", err)
	}
	rid := *cr.JSON202.ID
	if !e.srv.SetReplicaSetStatus(testProject, id, rid, api.ReplicaSetStatusError) {
		t.Fatal("SetReplicaSetStatus returned false")
	}
	e.clk.Advance(time.Hour)
	if rs, _ := e.srv.ReplicaSet(testProject, id, rid); rsStatus(&rs) != api.ReplicaSetStatusError {
		t.Errorf("replica set status = %s, want error", rsStatus(&rs))
	}

	// Unknown ids.
	if e.srv.SetServiceStatus(testProject, "nosuchsvc0", api.PAUSED) || e.srv.PauseService(testProject, "nosuchsvc0") ||
		e.srv.SetServiceStatusFor(testProject, "nosuchsvc0", api.UNSTABLE, time.Second, api.READY) ||
		e.srv.SetReplicaSetStatus(testProject, id, "nosuchrs00", api.ReplicaSetStatusError) ||
		e.srv.ServiceLogLine(testProject, "nosuchsvc0", "LOG", "x") {
		t.Error("a direct call on an unknown id returned true")
	}
}
