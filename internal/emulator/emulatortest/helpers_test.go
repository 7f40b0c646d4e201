package emulatortest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

const (
	testKey     = "test-access-key"
	testSecret  = "test-secret-key"
	testProject = "proj000001"
)

// env is a Server with a generated client, and with newFakeEnv a clock the test moves.
type env struct {
	t   *testing.T
	srv *Server
	c   *api.ClientWithResponses
	ctx context.Context
	clk *fakeClock
}

// newEnv starts a Server with the test credentials, closed when the test ends, and a client for it.
func newEnv(t *testing.T, opts emulator.Options) *env {
	t.Helper()
	opts.AccessKey, opts.SecretKey = testKey, testSecret
	srv := NewServer(opts)
	t.Cleanup(srv.Close)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c, err := api.NewClientWithResponses(srv.URL,
		api.WithHTTPClient(&http.Client{Transport: tr, Timeout: 10 * time.Second}),
		api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.SetBasicAuth(testKey, testSecret)
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, srv: srv, c: c, ctx: t.Context()}
}

// fakeClock is Options.Now for a test that moves time itself.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// newFakeEnv is newEnv with FastTiming and a fake clock.
func newFakeEnv(t *testing.T) *env {
	t.Helper()
	clk := &fakeClock{}
	clk.ns.Store(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	e := newEnv(t, emulator.Options{Timing: emulator.FastTiming(), Now: clk.Now})
	e.clk = clk
	return e
}

// createService creates a service; the answer must be 202.
func (e *env) createService(body api.ServiceCreate) api.Service {
	e.t.Helper()
	r, err := e.c.CreateServiceWithResponse(e.ctx, testProject, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.JSON202 == nil {
		e.t.Fatalf("create service: %d %s", r.StatusCode(), r.Body)
	}
	return *r.JSON202
}

// readyService creates a service and moves the clock past its provisioning.
func (e *env) readyService(body api.ServiceCreate) api.Service {
	e.t.Helper()
	id := *e.createService(body).ServiceID
	e.clk.Advance(time.Hour)
	return *e.mustStatus(id, api.READY)
}

// getService gets a service through the API, with the answer's status code.
func (e *env) getService(id string) (*api.Service, int) {
	e.t.Helper()
	r, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return r.JSON200, r.StatusCode()
}

// mustStatus fails the test unless GET answers the service with status want.
func (e *env) mustStatus(id string, want api.ServiceStatus) *api.Service {
	e.t.Helper()
	s, code := e.getService(id)
	if code != http.StatusOK || status(s) != want {
		e.t.Fatalf("service %s: %d, status %s, want %s", id, code, status(s), want)
	}
	return s
}

func (e *env) createVPC(name, cidr, region string) api.VPC {
	e.t.Helper()
	r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: name, Cidr: cidr, RegionCode: region})
	if err != nil {
		e.t.Fatal(err)
	}
	if r.JSON201 == nil {
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
	if r.JSON201 == nil {
		e.t.Fatalf("create peering: %d %s", r.StatusCode(), r.Body)
	}
	return *r.JSON201
}

// expectError checks an error answer: its status, its code, that its message holds wantMsg, and that
// it has details.
func expectError(t *testing.T, what string, gotStatus int, body []byte, wantStatus int, wantCode, wantMsg string) {
	t.Helper()
	var e api.Error
	switch {
	case gotStatus != wantStatus:
		t.Errorf("%s: status %d, want %d; body %s", what, gotStatus, wantStatus, body)
	case json.Unmarshal(body, &e) != nil:
		t.Errorf("%s: not an Error body: %s", what, body)
	case e.Code != wantCode || !strings.Contains(e.Message, wantMsg) || e.Details == nil || *e.Details == "":
		t.Errorf("%s: error %+v, want code %s, a message with %q and details", what, e, wantCode, wantMsg)
	}
}

func status(s *api.Service) api.ServiceStatus {
	if s == nil {
		return ""
	}
	return deref(s.Status)
}

func rsStatus(rs *api.ReadReplicaSet) api.ReplicaSetStatus {
	if rs == nil {
		return ""
	}
	return deref(rs.Status)
}

// sizeOf is a service's size from its first resource (0, 0: none given).
func sizeOf(s api.Service) (cpuMillis, memoryGBs int) {
	if s.Resources == nil || len(*s.Resources) == 0 || (*s.Resources)[0].Spec == nil {
		return 0, 0
	}
	spec := (*s.Resources)[0].Spec
	return deref(spec.CPUMillis), deref(spec.MemoryGbs)
}

func str[T ~string](p *T) string { return string(deref(p)) }
