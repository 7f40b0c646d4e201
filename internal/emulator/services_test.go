package emulator

import (
	"bytes"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

var alnumID = regexp.MustCompile(`^[a-z0-9]{10}$`)

// TestServiceLifecycle walks a service through create, resize, setHA and delete in real time
// (pollTiming), polling through the generated client.
func TestServiceLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timing: pollTiming()})

	created := e.createService(api.ServiceCreate{Name: "db1", Addons: addons(), ReplicaCount: intp(1)})
	id := str(created.ServiceID)
	if !alnumID.MatchString(id) {
		t.Errorf("service id %q is not 10 lower-case letters and digits", id)
	}
	if status(&created) != api.QUEUED {
		t.Errorf("created status = %s, want QUEUED", status(&created))
	}
	pw := str(created.InitialPassword)
	if pw == "" {
		t.Error("create response lacks initial_password")
	}
	checkCreated(t, created, "db1", "POSTGRES", DefaultRegion, 1000, 4, "DEV")
	if got := *created.HaReplicas; *got.ReplicaCount != 1 || *got.SyncReplicaCount != 0 {
		t.Errorf("ha_replicas = %d/%d, want 1/0", *got.ReplicaCount, *got.SyncReplicaCount)
	}

	seen := e.pollService(id, func(s *api.Service, _ int) bool { return status(s) == api.READY })
	if seen[0] != "QUEUED" {
		seen = append([]string{"QUEUED"}, seen...) // the create answer showed QUEUED
	}
	if want := []string{"QUEUED", "CONFIGURING", "READY"}; !slices.Equal(seen, want) {
		t.Errorf("statuses seen %v, want %v", seen, want)
	}

	// initial_password is only in the create answer.
	resp, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON200.InitialPassword != nil || bytes.Contains(resp.Body, []byte("initial_password")) {
		t.Errorf("GET shows initial_password: %s", resp.Body)
	}
	list, err := e.c.ListServicesWithResponse(e.ctx, testProject)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(list.Body, []byte("initial_password")) {
		t.Errorf("list shows initial_password: %s", list.Body)
	}
	if got := e.srv.ServicePassword(testProject, id); got != pw {
		t.Errorf("ServicePassword = %q, want the initial password %q", got, pw)
	}

	// Resize: CONFIGURING with the new size, then READY.
	rz, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, id, api.ResizeInput{CPUMillis: "2000", MemoryGbs: "8"})
	if err != nil {
		t.Fatal(err)
	}
	if rz.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %d %s", rz.StatusCode(), rz.Body)
	}
	seen = e.pollService(id, func(s *api.Service, _ int) bool { return status(s) == api.READY })
	if want := []string{"CONFIGURING", "READY"}; !slices.Equal(seen, want) {
		t.Errorf("resize: statuses seen %v, want %v", seen, want)
	}
	s, _ := e.getService(id)
	if sz := serviceSize(*s); sz != (size{2000, 8}) {
		t.Errorf("size after resize = %v, want 2000/8", sz)
	}

	// setHA answers the service, CONFIGURING, with the change visible.
	ha, err := e.c.SetHAWithResponse(e.ctx, testProject, id, api.SetHAInput{ReplicaCount: intp(2), SyncReplicaCount: intp(1)})
	if err != nil {
		t.Fatal(err)
	}
	if ha.StatusCode() != http.StatusAccepted || ha.JSON202 == nil {
		t.Fatalf("setHA: %d %s", ha.StatusCode(), ha.Body)
	}
	if st := status(ha.JSON202); st != api.CONFIGURING {
		t.Errorf("setHA answer status = %s, want CONFIGURING", st)
	}
	if h := ha.JSON202.HaReplicas; *h.ReplicaCount != 2 || *h.SyncReplicaCount != 1 {
		t.Errorf("setHA answer ha_replicas = %d/%d, want 2/1", *h.ReplicaCount, *h.SyncReplicaCount)
	}
	seen = e.pollService(id, func(s *api.Service, _ int) bool { return status(s) == api.READY })
	if want := []string{"CONFIGURING", "READY"}; !slices.Equal(seen, want) {
		t.Errorf("setHA: statuses seen %v, want %v", seen, want)
	}

	// Delete: DELETING, then 404 and absent from the list.
	del, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	if del.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete: %d %s", del.StatusCode(), del.Body)
	}
	seen = e.pollService(id, func(_ *api.Service, code int) bool { return code == http.StatusNotFound })
	if want := []string{"DELETING", "DELETED", "404"}; !slices.Equal(seen, want) {
		t.Errorf("delete: statuses seen %v, want %v", seen, want)
	}
	list, err = e.c.ListServicesWithResponse(e.ctx, testProject)
	if err != nil {
		t.Fatal(err)
	}
	if list.JSON200 == nil || len(*list.JSON200) != 0 {
		t.Errorf("list after delete: %s", list.Body)
	}
}

// checkCreated checks the fields of a new service.
func checkCreated(t *testing.T, s api.Service, name, typ, region string, cpu, mem int, env string) {
	t.Helper()
	id := str(s.ServiceID)
	if got := str(s.Name); got != name {
		t.Errorf("name = %q, want %q", got, name)
	}
	if got := str(s.ServiceType); got != typ {
		t.Errorf("service_type = %q, want %q", got, typ)
	}
	if got := str(s.RegionCode); got != region {
		t.Errorf("region_code = %q, want %q", got, region)
	}
	if got := str(s.ProjectID); got != testProject {
		t.Errorf("project_id = %q", got)
	}
	if s.Resources == nil || len(*s.Resources) != 1 {
		t.Fatalf("resources = %+v, want one", s.Resources)
	}
	r := (*s.Resources)[0]
	if cpu == 0 && mem == 0 { // shared: no numbers
		if str(r.ID) == "" || r.Spec.CPUMillis != nil || r.Spec.MemoryGbs != nil || str(r.Spec.VolumeType) != "gp3" {
			t.Errorf("shared resource = %+v, want no cpu_millis/memory_gbs", r.Spec)
		}
	} else if str(r.ID) == "" || deref(r.Spec.CPUMillis) != cpu || deref(r.Spec.MemoryGbs) != mem || str(r.Spec.VolumeType) != "gp3" {
		t.Errorf("resource = id %q spec %v/%v %q, want %v/%v gp3", str(r.ID), deref(r.Spec.CPUMillis), deref(r.Spec.MemoryGbs), str(r.Spec.VolumeType), cpu, mem)
	}
	if got := str(s.Metadata.Environment); got != env {
		t.Errorf("environment = %q, want %q", got, env)
	}
	if s.Endpoint == nil || str(s.Endpoint.Host) != id+"."+testProject+".db.dbcloud.example" || *s.Endpoint.Port != DatabasePort {
		t.Errorf("endpoint = %+v", s.Endpoint)
	}
	if s.Created == nil || s.Created.Location() != time.UTC || time.Since(*s.Created) > time.Hour {
		t.Errorf("created = %v", s.Created)
	}
	if s.ConnectionPooler != nil || s.VpcEndpoint != nil {
		t.Error("a new service has no pooler and no VPC endpoint")
	}
	if s.ReadReplicaSets == nil || len(*s.ReadReplicaSets) != 0 {
		t.Errorf("read_replica_sets = %v, want []", s.ReadReplicaSets)
	}
}

func TestCreateServiceVariants(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timing: FastTiming()})
	prod := api.PROD
	tests := []struct {
		name     string
		in       api.ServiceCreate
		typ      string
		region   string
		cpu, mem int
		env      string
	}{
		{"plain", api.ServiceCreate{Addons: addons()}, "POSTGRES", DefaultRegion, 1000, 4, "DEV"},
		{"no addons field", api.ServiceCreate{}, "POSTGRES", DefaultRegion, 1000, 4, "DEV"},
		{"time-series", api.ServiceCreate{Addons: addons(api.TimeSeries)}, "TIMESCALEDB", DefaultRegion, 1000, 4, "DEV"},
		{"ai", api.ServiceCreate{Addons: addons(api.Ai)}, "VECTOR", DefaultRegion, 1000, 4, "DEV"},
		{"both", api.ServiceCreate{Addons: addons(api.Ai, api.TimeSeries)}, "TIMESCALEDB", DefaultRegion, 1000, 4, "DEV"},
		{"shared", api.ServiceCreate{CPUMillis: strp("shared"), MemoryGbs: strp("shared")}, "POSTGRES", DefaultRegion, 0, 0, "DEV"},
		{"small", api.ServiceCreate{CPUMillis: strp("500"), MemoryGbs: strp("2")}, "POSTGRES", DefaultRegion, 500, 2, "DEV"},
		{"largest", api.ServiceCreate{CPUMillis: strp("32000"), MemoryGbs: strp("128")}, "POSTGRES", DefaultRegion, 32000, 128, "DEV"},
		{"region and env", api.ServiceCreate{RegionCode: strp("eu-central-1"), EnvironmentTag: &prod}, "POSTGRES", "eu-central-1", 1000, 4, "PROD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Name = "svc-" + strings.ReplaceAll(tt.name, " ", "-")
			s := e.createService(tt.in)
			checkCreated(t, s, tt.in.Name, tt.typ, tt.region, tt.cpu, tt.mem, tt.env)
		})
	}
}

// TestAsyncChanges steps a fake clock through each asynchronous change, checking CONFIGURING, a
// 409 meanwhile, then READY with the change visible.
func TestAsyncChanges(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	timing := FastTiming()

	s := e.createService(api.ServiceCreate{Name: "db", RegionCode: strp("us-west-2")})
	id := *s.ServiceID
	e.mustStatus(id, api.QUEUED)
	e.clk.Advance(timing.ServiceQueued - time.Millisecond)
	e.mustStatus(id, api.QUEUED)
	e.clk.Advance(time.Millisecond)
	e.mustStatus(id, api.CONFIGURING)
	e.clk.Advance(timing.ServiceConfiguring - time.Millisecond)
	e.mustStatus(id, api.CONFIGURING)
	e.clk.Advance(time.Millisecond)
	e.mustStatus(id, api.READY)

	vpc, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "net", Cidr: "10.1.0.0/16", RegionCode: "us-west-2"})
	if err != nil || vpc.StatusCode() != http.StatusCreated {
		t.Fatalf("create vpc: %v %v", err, vpc.Body)
	}
	vpcID := *vpc.JSON201.ID

	changes := []struct {
		name   string
		do     func() (int, []byte)
		verify func(*api.Service) bool
		// onlyWhenDone: the record shows the change once the service is READY again, not while it is
		// CONFIGURING (vpc_endpoint is present "when attached").
		onlyWhenDone bool
	}{
		{"resize", func() (int, []byte) {
			r, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, id, api.ResizeInput{CPUMillis: "4000", MemoryGbs: "16"})
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}, func(s *api.Service) bool { return serviceSize(*s) == size{4000, 16} }, false},
		{"setHA", func() (int, []byte) {
			r, err := e.c.SetHAWithResponse(e.ctx, testProject, id, api.SetHAInput{ReplicaCount: intp(1)})
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}, func(s *api.Service) bool { return *s.HaReplicas.ReplicaCount == 1 }, false},
		{"attach", func() (int, []byte) {
			r, err := e.c.AttachServiceToVPCWithResponse(e.ctx, testProject, id, api.VPCAttachInput{VpcID: vpcID})
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}, func(s *api.Service) bool {
			v := s.VpcEndpoint
			return v != nil && str(v.VpcID) == vpcID && str(v.Host) == id+"."+testProject+".vpc.dbcloud.example" && *v.Port == DatabasePort
		}, true},
		{"detach", func() (int, []byte) {
			r, err := e.c.DetachServiceFromVPCWithResponse(e.ctx, testProject, id, api.VPCAttachInput{VpcID: vpcID})
			if err != nil {
				t.Fatal(err)
			}
			return r.StatusCode(), r.Body
		}, func(s *api.Service) bool { return s.VpcEndpoint == nil }, false},
	}
	for _, c := range changes {
		code, body := c.do()
		if code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", c.name, code, body)
		}
		s := e.mustStatus(id, api.CONFIGURING)
		if c.verify(s) == c.onlyWhenDone {
			t.Errorf("%s: during CONFIGURING the change is visible = %v, want %v: %+v", c.name, c.verify(s), !c.onlyWhenDone, s)
		}
		again, err := e.c.EnablePoolerWithResponse(e.ctx, testProject, id)
		if err != nil {
			t.Fatal(err)
		}
		expectError(t, c.name+": enablePooler while CONFIGURING", again.StatusCode(), again.Body, http.StatusConflict, "CONFLICT", "service "+id+" is CONFIGURING, not READY")
		e.clk.Advance(timing.ServiceConfiguring)
		s = e.mustStatus(id, api.READY)
		if !c.verify(s) {
			t.Errorf("%s: change not visible once READY: %+v", c.name, s)
		}
	}
}

// TestConflictWhileNotReady checks that every state-changing call on a QUEUED service answers 409,
// and that delete is still allowed.
func TestConflictWhileNotReady(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	ready := e.readyService(api.ServiceCreate{Name: "ready"})
	rsResp, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, *ready.ServiceID, api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil || rsResp.StatusCode() != http.StatusAccepted {
		t.Fatalf("create replica set: %v", err)
	}
	rsID := *rsResp.JSON202.ID
	e.clk.Advance(time.Hour)
	vpc, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "n", Cidr: "10.0.0.0/16", RegionCode: DefaultRegion})
	if err != nil {
		t.Fatal(err)
	}
	vpcID := *vpc.JSON201.ID
	// Make the service with the replica set not READY (resize), and create a QUEUED one.
	if r, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, *ready.ServiceID, api.ResizeInput{CPUMillis: "500", MemoryGbs: "2"}); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("resize: %v", err)
	}
	busy := *ready.ServiceID
	queued := *e.createService(api.ServiceCreate{Name: "queued"}).ServiceID

	ctx, c, p := e.ctx, e.c, testProject
	calls := map[string]func(id string) (response, error){
		"resize": func(id string) (response, error) {
			return c.ResizeServiceWithResponse(ctx, p, id, api.ResizeInput{CPUMillis: "1000", MemoryGbs: "4"})
		},
		"setHA": func(id string) (response, error) {
			return c.SetHAWithResponse(ctx, p, id, api.SetHAInput{ReplicaCount: intp(1)})
		},
		"enablePooler":  func(id string) (response, error) { return c.EnablePoolerWithResponse(ctx, p, id) },
		"disablePooler": func(id string) (response, error) { return c.DisablePoolerWithResponse(ctx, p, id) },
		"setEnvironment": func(id string) (response, error) {
			return c.SetEnvironmentWithResponse(ctx, p, id, api.SetEnvironmentInput{Environment: api.PROD})
		},
		"updatePassword": func(id string) (response, error) {
			return c.UpdatePasswordWithResponse(ctx, p, id, api.UpdatePasswordInput{Password: "x"})
		},
		"attach": func(id string) (response, error) {
			return c.AttachServiceToVPCWithResponse(ctx, p, id, api.VPCAttachInput{VpcID: vpcID})
		},
		"detach": func(id string) (response, error) {
			return c.DetachServiceFromVPCWithResponse(ctx, p, id, api.VPCAttachInput{VpcID: vpcID})
		},
		"fork": func(id string) (response, error) {
			return c.ForkServiceWithResponse(ctx, p, id, api.ForkServiceCreate{ForkStrategy: api.NOW})
		},
		"createReplicaSet": func(id string) (response, error) {
			return c.CreateReplicaSetWithResponse(ctx, p, id, api.ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
		},
		"resizeReplicaSet": func(id string) (response, error) {
			return c.ResizeReplicaSetWithResponse(ctx, p, id, rsID, api.ResizeInput{CPUMillis: "1000", MemoryGbs: "4"})
		},
		"deleteReplicaSet": func(id string) (response, error) { return c.DeleteReplicaSetWithResponse(ctx, p, id, rsID) },
		"enableReplicaSetPooler": func(id string) (response, error) {
			return c.EnableReplicaSetPoolerWithResponse(ctx, p, id, rsID)
		},
		"disableReplicaSetPooler": func(id string) (response, error) {
			return c.DisableReplicaSetPoolerWithResponse(ctx, p, id, rsID)
		},
		"setReplicaSetEnvironment": func(id string) (response, error) {
			return c.SetReplicaSetEnvironmentWithResponse(ctx, p, id, rsID, api.SetEnvironmentInput{Environment: api.PROD})
		},
	}
	do := func(name, id string) (int, []byte) {
		t.Helper()
		r, err := calls[name](id)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r.StatusCode(), r.GetBody()
	}
	for name := range calls {
		code, body := do(name, busy)
		expectError(t, name+" on CONFIGURING", code, body, http.StatusConflict, "CONFLICT", "service "+busy+" is CONFIGURING, not READY")
		if !strings.Contains(name, "ReplicaSet") || name == "createReplicaSet" {
			code, body = do(name, queued)
			expectError(t, name+" on QUEUED", code, body, http.StatusConflict, "CONFLICT", "service "+queued+" is QUEUED, not READY")
		}
	}
	if e.srv.ServicePassword(testProject, busy) == "x" {
		t.Error("updatePassword on a CONFIGURING service changed the password")
	}
	del, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, queued)
	if err != nil || del.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete of a QUEUED service: %v %d", err, del.StatusCode())
	}
}

// response is what the generated responses have in common.
type response interface {
	StatusCode() int
	GetBody() []byte
}

func TestDeleteService(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	s := e.readyService(api.ServiceCreate{Name: "db"})
	id := *s.ServiceID
	vpc, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "n", Cidr: "10.0.0.0/16", RegionCode: DefaultRegion})
	if err != nil {
		t.Fatal(err)
	}
	vpcID := *vpc.JSON201.ID
	if r, err := e.c.AttachServiceToVPCWithResponse(e.ctx, testProject, id, api.VPCAttachInput{VpcID: vpcID}); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("attach: %v", err)
	}
	e.clk.Advance(time.Hour)
	if _, err := e.c.CreateReplicaSetWithResponse(e.ctx, testProject, id, api.ReadReplicaSetCreate{Name: "r", Nodes: 2, CPUMillis: 500, MemoryGbs: 2}); err != nil {
		t.Fatal(err)
	}
	e.clk.Advance(time.Hour)

	for i := range 2 { // a second delete answers 202 again
		del, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, id)
		if err != nil {
			t.Fatal(err)
		}
		if del.StatusCode() != http.StatusAccepted {
			t.Fatalf("delete #%d: %d %s", i+1, del.StatusCode(), del.Body)
		}
		got := e.mustStatus(id, api.DELETING)
		if got.VpcEndpoint != nil {
			t.Error("the VPC attachment should be released at once")
		}
		if rs := *got.ReadReplicaSets; len(rs) != 1 || *rs[0].Status != api.ReplicaSetStatusDeleting {
			t.Errorf("replica sets of a DELETING service: %+v", rs)
		}
	}
	// The VPC is free already.
	if r, err := e.c.DeleteVPCWithResponse(e.ctx, testProject, vpcID); err != nil || r.StatusCode() != http.StatusNoContent {
		t.Fatalf("delete vpc after deleting its service: %v %d %s", err, r.StatusCode(), r.Body)
	}
	e.clk.Advance(FastTiming().ServiceDeleting)
	e.mustStatus(id, api.DELETED) // seen briefly
	e.clk.Advance(FastTiming().ServiceDeleted)
	if _, code := e.getService(id); code != http.StatusNotFound {
		t.Fatalf("get after deletion: %d, want 404", code)
	}
	r, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "get deleted", r.StatusCode(), r.Body, http.StatusNotFound, "NOT_FOUND", "service "+id+" not found")
	rs, err := e.c.ListReplicaSetsWithResponse(e.ctx, testProject, id)
	if err != nil || rs.StatusCode() != http.StatusNotFound {
		t.Errorf("replica sets of a deleted service: %v %d", err, rs.StatusCode())
	}
	del, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, id)
	if err != nil || del.StatusCode() != http.StatusNotFound {
		t.Errorf("delete of a deleted service: %v %d", err, del.StatusCode())
	}
}

func TestForkService(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	src := e.readyService(api.ServiceCreate{Name: "parent", Addons: addons(api.Ai), RegionCode: strp("eu-west-1"), CPUMillis: strp("2000"), MemoryGbs: strp("8"), ReplicaCount: intp(2)})
	id := *src.ServiceID

	fork := func(in api.ForkServiceCreate) *api.ForkServiceResponse {
		t.Helper()
		r, err := e.c.ForkServiceWithResponse(e.ctx, testProject, id, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := fork(api.ForkServiceCreate{ForkStrategy: api.LASTSNAPSHOT})
	if r.StatusCode() != http.StatusAccepted || r.JSON202 == nil {
		t.Fatalf("fork: %d %s", r.StatusCode(), r.Body)
	}
	f := *r.JSON202
	if *f.ServiceID == id || status(&f) != api.QUEUED || str(f.InitialPassword) == "" {
		t.Errorf("fork: id %s status %s password %q", *f.ServiceID, status(&f), str(f.InitialPassword))
	}
	checkCreatedFake(t, f, "parent-fork", "VECTOR", "eu-west-1", 2000, 8)
	if ff := f.ForkedFrom; ff == nil || str(ff.ProjectID) != testProject || str(ff.ServiceID) != id || ff.IsStandby == nil || *ff.IsStandby {
		t.Errorf("forked_from = %+v", ff)
	}
	if h := f.HaReplicas; *h.ReplicaCount != 0 || *h.SyncReplicaCount != 0 {
		t.Errorf("a fork starts with 0 HA replicas, got %d/%d", *h.ReplicaCount, *h.SyncReplicaCount)
	}
	// The fork is QUEUED: forking it is a conflict.
	fr, err := e.c.ForkServiceWithResponse(e.ctx, testProject, *f.ServiceID, api.ForkServiceCreate{ForkStrategy: api.NOW})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "fork of a QUEUED fork", fr.StatusCode(), fr.Body, http.StatusConflict, "CONFLICT", "QUEUED, not READY")
	e.clk.Advance(time.Hour)
	e.mustStatus(*f.ServiceID, api.READY)

	// Name and size given.
	r = fork(api.ForkServiceCreate{ForkStrategy: api.NOW, Name: strp("copy"), CPUMillis: strp("shared"), MemoryGbs: strp("shared")})
	if r.StatusCode() != http.StatusAccepted {
		t.Fatalf("fork with size: %d %s", r.StatusCode(), r.Body)
	}
	checkCreatedFake(t, *r.JSON202, "copy", "VECTOR", "eu-west-1", 0, 0)

	// PITR rules.
	now := e.clk.Now()
	future, past, beforeCreation := now.Add(time.Minute), now.Add(-time.Minute), src.Created.Add(-time.Minute)
	r = fork(api.ForkServiceCreate{ForkStrategy: api.PITR})
	expectError(t, "PITR without target_time", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "target_time is required")
	r = fork(api.ForkServiceCreate{ForkStrategy: api.PITR, TargetTime: &future})
	expectError(t, "PITR in the future", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "target_time is in the future")
	r = fork(api.ForkServiceCreate{ForkStrategy: api.PITR, TargetTime: &beforeCreation})
	expectError(t, "PITR before creation", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "before the service was created")
	r = fork(api.ForkServiceCreate{ForkStrategy: api.PITR, TargetTime: &past})
	if r.StatusCode() != http.StatusAccepted {
		t.Errorf("PITR in the past: %d %s", r.StatusCode(), r.Body)
	}
	r = fork(api.ForkServiceCreate{ForkStrategy: api.NOW, CPUMillis: strp("1000")})
	expectError(t, "fork with cpu only", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "must be given together")
	r = fork(api.ForkServiceCreate{ForkStrategy: api.NOW, CPUMillis: strp("1000"), MemoryGbs: strp("8")})
	expectError(t, "fork with a bad size", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "unsupported size 1000/8")
	r = fork(api.ForkServiceCreate{ForkStrategy: "YESTERDAY"})
	expectError(t, "fork with a bad strategy", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "fork_strategy")
}

// checkCreatedFake is checkCreated for services created under the fake clock.
func checkCreatedFake(t *testing.T, s api.Service, name, typ, region string, cpu, mem int) {
	t.Helper()
	c := *s.Created
	now := time.Now().UTC()
	s.Created = &now
	checkCreated(t, s, name, typ, region, cpu, mem, "DEV")
	if c.Year() != 2025 {
		t.Errorf("created = %v, want the fake clock's time", c)
	}
}

func TestPoolerEnvironmentPassword(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID

	en, err := e.c.EnablePoolerWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	if en.StatusCode() != http.StatusOK {
		t.Fatalf("enablePooler: %d %s", en.StatusCode(), en.Body)
	}
	s := e.mustStatus(id, api.READY) // synchronous: no CONFIGURING
	if p := s.ConnectionPooler; p == nil || str(p.Endpoint.Host) != id+"-pooler."+testProject+".db.dbcloud.example" || *p.Endpoint.Port != PoolerPort {
		t.Errorf("connection_pooler = %+v", p)
	}
	dis, err := e.c.DisablePoolerWithResponse(e.ctx, testProject, id)
	if err != nil || dis.StatusCode() != http.StatusOK {
		t.Fatalf("disablePooler: %v", err)
	}
	g, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	if g.JSON200.ConnectionPooler != nil || bytes.Contains(g.Body, []byte(`"connection_pooler"`)) {
		t.Errorf("after disablePooler: %s", g.Body)
	}
	for _, key := range []string{`"vpc_endpoint"`, `"vpcEndpoint"`, `"forked_from"`, `"paused"`, `null`} {
		if bytes.Contains(g.Body, []byte(key)) {
			t.Errorf("objects that do not apply must be absent, as on the live API; found %s in %s", key, g.Body)
		}
	}

	env, err := e.c.SetEnvironmentWithResponse(e.ctx, testProject, id, api.SetEnvironmentInput{Environment: api.PROD})
	if err != nil || env.StatusCode() != http.StatusOK {
		t.Fatalf("setEnvironment: %v", err)
	}
	if s := e.mustStatus(id, api.READY); str(s.Metadata.Environment) != "PROD" {
		t.Errorf("environment = %q, want PROD", str(s.Metadata.Environment))
	}

	pw, err := e.c.UpdatePasswordWithResponse(e.ctx, testProject, id, api.UpdatePasswordInput{Password: "n3w-pa55"})
	if err != nil || pw.StatusCode() != http.StatusNoContent {
		t.Fatalf("updatePassword: %v %d", err, pw.StatusCode())
	}
	if got := e.srv.ServicePassword(testProject, id); got != "n3w-pa55" {
		t.Errorf("password = %q", got)
	}
}

func TestSetHARules(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db", ReplicaCount: intp(1)}).ServiceID

	setHA := func(in api.SetHAInput) *api.SetHAResponse {
		t.Helper()
		r, err := e.c.SetHAWithResponse(e.ctx, testProject, id, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := setHA(api.SetHAInput{SyncReplicaCount: intp(2)}) // current replica_count is 1
	expectError(t, "sync above current replicas", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "sync_replica_count (2) must not exceed replica_count (1)")
	r = setHA(api.SetHAInput{ReplicaCount: intp(1), SyncReplicaCount: intp(3)})
	expectError(t, "sync above replicas", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "must not exceed")
	r = setHA(api.SetHAInput{})
	expectError(t, "empty setHA", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "")
	r = setHA(api.SetHAInput{ReplicaCount: intp(-1)})
	expectError(t, "negative", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "replica_count")

	r = setHA(api.SetHAInput{SyncReplicaCount: intp(1)}) // uses the current replica_count 1
	if r.StatusCode() != http.StatusAccepted {
		t.Fatalf("sync within current replicas: %d %s", r.StatusCode(), r.Body)
	}
	e.clk.Advance(time.Hour)
	r = setHA(api.SetHAInput{ReplicaCount: intp(0)}) // lowers sync with it
	if r.StatusCode() != http.StatusAccepted {
		t.Fatalf("lower replicas: %d %s", r.StatusCode(), r.Body)
	}
	if h := r.JSON202.HaReplicas; *h.ReplicaCount != 0 || *h.SyncReplicaCount != 0 {
		t.Errorf("ha_replicas = %d/%d, want 0/0", *h.ReplicaCount, *h.SyncReplicaCount)
	}
}

func TestAttachDetachRules(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	mk := func(region, cidr string) string {
		r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "n", Cidr: cidr, RegionCode: region})
		if err != nil || r.StatusCode() != http.StatusCreated {
			t.Fatalf("create vpc: %v", err)
		}
		return *r.JSON201.ID
	}
	vpc1, vpc2, far := mk(DefaultRegion, "10.0.0.0/16"), mk(DefaultRegion, "10.1.0.0/16"), mk("ap-southeast-1", "10.2.0.0/16")
	attach := func(vpc string) *api.AttachServiceToVPCResponse {
		r, err := e.c.AttachServiceToVPCWithResponse(e.ctx, testProject, id, api.VPCAttachInput{VpcID: vpc})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	detach := func(vpc string) *api.DetachServiceFromVPCResponse {
		r, err := e.c.DetachServiceFromVPCWithResponse(e.ctx, testProject, id, api.VPCAttachInput{VpcID: vpc})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := attach("9999999999")
	expectError(t, "attach to unknown vpc", r.StatusCode(), r.Body, http.StatusNotFound, "NOT_FOUND", "vpc 9999999999 not found")
	r = attach(far)
	expectError(t, "attach across regions", r.StatusCode(), r.Body, http.StatusBadRequest, "BAD_REQUEST", "region ap-southeast-1")
	d := detach(vpc1)
	expectError(t, "detach when not attached", d.StatusCode(), d.Body, http.StatusConflict, "CONFLICT", "not attached to vpc "+vpc1)
	if r = attach(vpc1); r.StatusCode() != http.StatusAccepted {
		t.Fatalf("attach: %d %s", r.StatusCode(), r.Body)
	}
	e.clk.Advance(time.Hour)
	r = attach(vpc2)
	expectError(t, "attach twice", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "already attached to vpc "+vpc1)
	r = attach(vpc1)
	expectError(t, "attach twice to the same", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "already attached")
	d = detach(vpc2)
	expectError(t, "detach from the wrong vpc", d.StatusCode(), d.Body, http.StatusConflict, "CONFLICT", "not attached to vpc "+vpc2)
	if d = detach(vpc1); d.StatusCode() != http.StatusAccepted {
		t.Fatalf("detach: %d %s", d.StatusCode(), d.Body)
	}
	e.clk.Advance(time.Hour)
	if s := e.mustStatus(id, api.READY); s.VpcEndpoint != nil {
		t.Errorf("vpcEndpoint after detach = %+v", s.VpcEndpoint)
	}
}
