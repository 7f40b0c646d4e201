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

var decimalID = regexp.MustCompile(`^[1-9][0-9]{9}$`)

func (e *env) createVPC(name, cidr, region string) api.VPC {
	e.t.Helper()
	r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: name, Cidr: cidr, RegionCode: region})
	if err != nil {
		e.t.Fatal(err)
	}
	if r.StatusCode() != http.StatusCreated || r.JSON201 == nil {
		e.t.Fatalf("create vpc: %d %s", r.StatusCode(), r.Body)
	}
	return *r.JSON201
}

func (e *env) createPeering(vpcID, peerVPC string) api.Peering {
	e.t.Helper()
	r, err := e.c.CreatePeeringWithResponse(e.ctx, testProject, vpcID, api.PeeringCreate{PeerAccountID: "123456789012", PeerRegionCode: "us-east-1", PeerVpcID: peerVPC})
	if err != nil {
		e.t.Fatal(err)
	}
	if r.StatusCode() != http.StatusCreated || r.JSON201 == nil {
		e.t.Fatalf("create peering: %d %s", r.StatusCode(), r.Body)
	}
	return *r.JSON201
}

func TestVPCLifecycle(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	v := e.createVPC("net", "10.0.0.0/16", "eu-west-1")
	id := str(v.ID)
	if !decimalID.MatchString(id) || str(v.Name) != "net" || str(v.Cidr) != "10.0.0.0/16" || str(v.RegionCode) != "eu-west-1" {
		t.Errorf("created vpc = %+v", v)
	}
	g, err := e.c.GetVPCWithResponse(e.ctx, testProject, id)
	if err != nil || g.StatusCode() != http.StatusOK || str(g.JSON200.Name) != "net" {
		t.Fatalf("get vpc: %v %s", err, g.Body)
	}
	other := e.createVPC("other", "192.168.0.0/24", "eu-west-1")
	l, err := e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil || l.StatusCode() != http.StatusOK || len(*l.JSON200) != 2 || str((*l.JSON200)[0].ID) != id || str((*l.JSON200)[1].ID) != str(other.ID) {
		t.Fatalf("list vpcs: %v %s", err, l.Body)
	}
	rn, err := e.c.RenameVPCWithResponse(e.ctx, testProject, id, api.VPCRename{Name: "renamed"})
	if err != nil || rn.StatusCode() != http.StatusOK || len(rn.Body) != 0 || rn.HTTPResponse.Header.Get("Content-Type") != "" {
		t.Fatalf("rename: want 200 without a body, as on the live API: %v %s", err, rn.Body)
	}
	if v, ok := e.srv.VPC(testProject, id); !ok || str(v.Name) != "renamed" {
		t.Fatalf("rename not carried out: %+v", v)
	}

	// In use by a service and by a peering.
	s1 := *e.readyService(api.ServiceCreate{Name: "a", RegionCode: strp("eu-west-1")}).ServiceID
	s2 := *e.readyService(api.ServiceCreate{Name: "b", RegionCode: strp("eu-west-1")}).ServiceID
	for _, s := range []string{s1, s2} {
		if r, err := e.c.AttachServiceToVPCWithResponse(e.ctx, testProject, s, api.VPCAttachInput{VpcID: id}); err != nil || r.StatusCode() != http.StatusAccepted {
			t.Fatalf("attach: %v", err)
		}
	}
	e.clk.Advance(time.Hour)
	del := func() *api.DeleteVPCResponse {
		t.Helper()
		r, err := e.c.DeleteVPCWithResponse(e.ctx, testProject, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	attached := []string{s1, s2}
	slices.Sort(attached)
	r := del()
	expectError(t, "delete with attached services", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT",
		"vpc "+id+" is in use: attached services ["+strings.Join(attached, ", ")+"]")
	if d := *errorOf(t, r.Body).Details; !strings.Contains(d, s1) || !strings.Contains(d, s2) {
		t.Errorf("details do not name the services: %q", d)
	}

	p := e.createPeering(id, "vpc-0abc")
	pid := str(p.ID)
	r = del()
	expectError(t, "delete with services and peerings", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "; peerings ["+pid+"]")

	for _, s := range []string{s1, s2} {
		if r, err := e.c.DetachServiceFromVPCWithResponse(e.ctx, testProject, s, api.VPCAttachInput{VpcID: id}); err != nil || r.StatusCode() != http.StatusAccepted {
			t.Fatalf("detach: %v", err)
		}
	}
	r = del()
	expectError(t, "delete with a peering", r.StatusCode(), r.Body, http.StatusConflict, "CONFLICT", "vpc "+id+" is in use: peerings ["+pid+"]")
	if d := *errorOf(t, r.Body).Details; !strings.Contains(d, pid) {
		t.Errorf("details do not name the peering: %q", d)
	}

	if dp, err := e.c.DeletePeeringWithResponse(e.ctx, testProject, id, pid); err != nil || dp.StatusCode() != http.StatusNoContent {
		t.Fatalf("delete peering: %v", err)
	}
	if r = del(); r.StatusCode() != http.StatusNoContent || len(r.Body) != 0 {
		t.Fatalf("delete vpc: %d %s", r.StatusCode(), r.Body)
	}
	g, err = e.c.GetVPCWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "get deleted vpc", g.StatusCode(), g.Body, http.StatusNotFound, "NOT_FOUND", "vpc "+id+" not found")
	r = del()
	expectError(t, "delete deleted vpc", r.StatusCode(), r.Body, http.StatusNotFound, "NOT_FOUND", "not found")
	rn, err = e.c.RenameVPCWithResponse(e.ctx, testProject, id, api.VPCRename{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "rename deleted vpc", rn.StatusCode(), rn.Body, http.StatusNotFound, "NOT_FOUND", "not found")
}

func TestVPCValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	tests := []struct {
		cidr, region string
		wantStatus   int
		wantMsg      string
	}{
		{"10.0.0.0/16", "us-east-1", http.StatusCreated, ""},
		{"172.16.0.0/28", "us-west-2", http.StatusCreated, ""},
		{"192.168.10.0/24", "ap-southeast-1", http.StatusCreated, ""},
		{"10.0.0.0/8", "us-east-1", http.StatusBadRequest, "prefix length /8 is outside /16 to /28"},
		{"10.0.0.0/29", "us-east-1", http.StatusBadRequest, "outside /16 to /28"},
		{"10.0.0.1/16", "us-east-1", http.StatusBadRequest, "not a network address (did you mean 10.0.0.0/16?)"},
		{"10.0.0.0", "us-east-1", http.StatusBadRequest, "not an IPv4 CIDR block"},
		{"banana", "us-east-1", http.StatusBadRequest, "not an IPv4 CIDR block"},
		{"fd00::/16", "us-east-1", http.StatusBadRequest, "not an IPv4 CIDR block"},
		{"10.0.0.0/16", "mars-north-1", http.StatusBadRequest, `unknown region_code "mars-north-1"`},
	}
	for _, tt := range tests {
		t.Run(tt.cidr+" "+tt.region, func(t *testing.T) {
			r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "n", Cidr: tt.cidr, RegionCode: tt.region})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantStatus == http.StatusCreated {
				if r.StatusCode() != http.StatusCreated {
					t.Errorf("status %d: %s", r.StatusCode(), r.Body)
				}
				return
			}
			expectError(t, "create vpc", r.StatusCode(), r.Body, tt.wantStatus, "BAD_REQUEST", tt.wantMsg)
		})
	}
}

// TestPeeringLifecycle walks a peering through pending -> provisioned -> active, and a failing one
// through pending -> failed, in real time.
func TestPeeringLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timing: pollTiming()})
	vpcID := str(e.createVPC("net", "10.0.0.0/16", "us-east-1").ID)

	p := e.createPeering(vpcID, "vpc-0123456789abcdef0")
	id := str(p.ID)
	if !decimalID.MatchString(id) || str(p.Status) != "pending" || p.ProvisionedID == nil || *p.ProvisionedID != "" || p.ErrorMessage != nil {
		t.Errorf("created peering = %+v", p)
	}
	if str(p.PeerAccountID) != "123456789012" || str(p.PeerRegionCode) != "us-east-1" || str(p.PeerVpcID) != "vpc-0123456789abcdef0" {
		t.Errorf("created peering = %+v", p)
	}

	pcx := regexp.MustCompile(`^pcx-[0-9a-f]{17}$`)
	phase := func(p *api.Peering) string {
		switch {
		case p.ErrorMessage != nil:
			return str(p.Status) + " with error"
		case str(p.ProvisionedID) == "":
			return str(p.Status) + " unprovisioned"
		case pcx.MatchString(*p.ProvisionedID):
			return str(p.Status) + " provisioned"
		}
		return "bad provisioned_id " + *p.ProvisionedID
	}
	poll := func(id string, final string) []string {
		var seen []string
		deadline := time.Now().Add(5 * time.Second)
		for {
			r, err := e.c.GetPeeringWithResponse(e.ctx, testProject, vpcID, id)
			if err != nil || r.StatusCode() != http.StatusOK {
				t.Fatalf("get peering: %v %d", err, r.StatusCode())
			}
			ph := phase(r.JSON200)
			if len(seen) == 0 || seen[len(seen)-1] != ph {
				seen = append(seen, ph)
			}
			if ph == final {
				return seen
			}
			if time.Now().After(deadline) {
				t.Fatalf("peering %s: gave up; seen %v", id, seen)
			}
			time.Sleep(3 * time.Millisecond)
		}
	}
	if seen, want := poll(id, "active provisioned"), []string{"pending unprovisioned", "pending provisioned", "active provisioned"}; !slices.Equal(seen, want) {
		t.Errorf("peering phases %v, want %v", seen, want)
	}
	failing := str(e.createPeering(vpcID, "vpc-fail-nope").ID)
	if seen, want := poll(failing, "failed with error"), []string{"pending unprovisioned", "failed with error"}; !slices.Equal(seen, want) {
		t.Errorf("failing peering phases %v, want %v", seen, want)
	}
	g, err := e.c.GetPeeringWithResponse(e.ctx, testProject, vpcID, failing)
	if err != nil {
		t.Fatal(err)
	}
	if msg := str(g.JSON200.ErrorMessage); !strings.HasPrefix(msg, "peer VPC not found in account 123456789012") {
		t.Errorf("error_message = %q", msg)
	}

	l, err := e.c.ListPeeringsWithResponse(e.ctx, testProject, vpcID)
	if err != nil || l.StatusCode() != http.StatusOK || len(*l.JSON200) != 2 {
		t.Fatalf("list peerings: %v %s", err, l.Body)
	}
	if n := bytes.Count(l.Body, []byte(`"error_message"`)); n != 1 {
		t.Errorf("error_message should be absent unless the peering failed: %s", l.Body)
	}
	for _, pid := range []string{id, failing} {
		d, err := e.c.DeletePeeringWithResponse(e.ctx, testProject, vpcID, pid)
		if err != nil || d.StatusCode() != http.StatusNoContent {
			t.Fatalf("delete peering: %v %d", err, d.StatusCode())
		}
	}
	g, err = e.c.GetPeeringWithResponse(e.ctx, testProject, vpcID, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "get deleted peering", g.StatusCode(), g.Body, http.StatusNotFound, "NOT_FOUND", "peering "+id+" not found")
	d, err := e.c.DeletePeeringWithResponse(e.ctx, testProject, vpcID, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "delete deleted peering", d.StatusCode(), d.Body, http.StatusNotFound, "NOT_FOUND", "not found")

	c, err := e.c.CreatePeeringWithResponse(e.ctx, testProject, "1111111111", api.PeeringCreate{PeerAccountID: "1", PeerRegionCode: "us-east-1", PeerVpcID: "vpc-1"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "peering on unknown vpc", c.StatusCode(), c.Body, http.StatusNotFound, "NOT_FOUND", "vpc 1111111111 not found")
	ll, err := e.c.ListPeeringsWithResponse(e.ctx, testProject, "1111111111")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "peerings of unknown vpc", ll.StatusCode(), ll.Body, http.StatusNotFound, "NOT_FOUND", "not found")
	c, err = e.c.CreatePeeringWithResponse(e.ctx, testProject, vpcID, api.PeeringCreate{PeerAccountID: "1", PeerRegionCode: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "peering without peer_vpc_id", c.StatusCode(), c.Body, http.StatusBadRequest, "BAD_REQUEST", "peer_vpc_id")
}

// TestPeeringFakeClock checks the peering deadlines exactly.
func TestPeeringFakeClock(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	timing := FastTiming()
	vpcID := str(e.createVPC("net", "10.0.0.0/16", "us-east-1").ID)
	id := str(e.createPeering(vpcID, "vpc-1").ID)
	get := func() api.Peering {
		p, ok := e.srv.Peering(testProject, vpcID, id)
		if !ok {
			t.Fatal("peering missing")
		}
		return p
	}
	e.clk.Advance(timing.PeeringProvisioning - time.Millisecond)
	if p := get(); str(p.ProvisionedID) != "" || str(p.Status) != "pending" {
		t.Errorf("before provisioning: %+v", p)
	}
	e.clk.Advance(time.Millisecond)
	if p := get(); str(p.ProvisionedID) == "" || str(p.Status) != "pending" {
		t.Errorf("provisioned: %+v", p)
	}
	e.clk.Advance(timing.PeeringAccepting)
	if p := get(); str(p.Status) != "active" {
		t.Errorf("accepted: %+v", p)
	}
}

func TestAnalytics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	props := map[string]any{"user": "u1", "n": float64(3)}
	id, err := e.c.IdentifyWithResponse(e.ctx, api.IdentifyInput{Properties: &props})
	if err != nil || id.StatusCode() != http.StatusOK || str(id.JSON200.Status) != "success" {
		t.Fatalf("identify: %v %s", err, id.Body)
	}
	for _, ev := range []string{"apply", "destroy"} {
		tr, err := e.c.TrackWithResponse(e.ctx, api.TrackInput{Event: ev, Properties: &props})
		if err != nil || tr.StatusCode() != http.StatusOK || str(tr.JSON200.Status) != "success" {
			t.Fatalf("track: %v %s", err, tr.Body)
		}
	}
	tr, err := e.c.TrackWithResponse(e.ctx, api.TrackInput{})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "track without event", tr.StatusCode(), tr.Body, http.StatusBadRequest, "BAD_REQUEST", "event")

	evs := e.srv.AnalyticsEvents()
	if len(evs) != 2 || evs[0].Event != "apply" || evs[1].Event != "destroy" || (*evs[0].Properties)["user"] != "u1" {
		t.Errorf("events = %+v", evs)
	}
	if n := e.srv.IdentifyCalls(); n != 1 {
		t.Errorf("identify calls = %d", n)
	}
	if ids := e.srv.Identifies(); len(ids) != 1 || (*ids[0].Properties)["n"] != float64(3) {
		t.Errorf("identifies = %+v", ids)
	}
}
