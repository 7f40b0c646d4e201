package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func TestScriptedFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind       FaultKind
		wantStatus int
		wantCode   string
	}{
		{FaultRateLimit, 429, "RATE_LIMITED"},
		{FaultServerError, 500, "INTERNAL_ERROR"},
		{FaultUnavailable, 503, "SERVICE_UNAVAILABLE"},
		{FaultBadGateway, 502, "BAD_GATEWAY"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, Options{Faults: Faults{RetryAfter: 1500 * time.Millisecond}})
			e.srv.InjectFault("createService", tt.kind, 2)
			for i := range 2 {
				r, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "x"})
				if err != nil {
					t.Fatal(err)
				}
				expectError(t, "faulty create", r.StatusCode(), r.Body, tt.wantStatus, tt.wantCode, "")
				ra := r.HTTPResponse.Header.Get("Retry-After")
				switch {
				case tt.kind == FaultRateLimit && (ra != "2" || r.Headers4XX.RetryAfter == nil || *r.Headers4XX.RetryAfter != 2):
					t.Errorf("429 #%d: Retry-After %q, want 2 (1.5s rounded up)", i+1, ra)
				case tt.kind == FaultServerError && ra != "":
					t.Errorf("500 with Retry-After %q", ra)
				}
			}
			// Other operations are not affected, nor is the third create.
			if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 200 || len(*l.JSON200) != 0 {
				t.Fatalf("list: %v; nothing should have been created", err)
			}
			e.createService(api.ServiceCreate{Name: "x"})
			var statuses []int
			for _, r := range e.srv.Requests() {
				statuses = append(statuses, r.Status)
			}
			if want := []int{tt.wantStatus, tt.wantStatus, 200, 202}; !slices.Equal(statuses, want) {
				t.Errorf("logged statuses %v, want %v", statuses, want)
			}
		})
	}
}

func TestRetryAfterRounding(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", time.Millisecond: "1", time.Second: "1", 1001 * time.Millisecond: "2", 30 * time.Second: "30"} {
		if got := retryAfterHeader(d); got != want {
			t.Errorf("retryAfterHeader(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestFaultAnyOperation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.srv.InjectFault("", FaultServerError, 1)
	e.srv.InjectFault("listVPCs", FaultUnavailable, 1)
	r, err := e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != 500 { // the first injected fault matching wins
		t.Errorf("first: %d, want 500", r.StatusCode())
	}
	r, err = e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != 503 {
		t.Errorf("second: %d, want 503", r.StatusCode())
	}
	r, err = e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil || r.StatusCode() != 200 {
		t.Errorf("third: %v %d, want 200", err, r.StatusCode())
	}
	// Refused requests do not consume faults.
	e.srv.InjectFault("", FaultServerError, 1)
	bad := newClient(t, e.srv.URL, "x", "y")
	if r, err = bad.ListVPCsWithResponse(e.ctx, testProject); err != nil || r.StatusCode() != 401 {
		t.Fatalf("unauthenticated: %v %d", err, r.StatusCode())
	}
	if r, err = e.c.ListVPCsWithResponse(e.ctx, testProject); err != nil || r.StatusCode() != 500 {
		t.Errorf("fault after a 401: %v %d, want 500", err, r.StatusCode())
	}
}

func TestCommitThenFail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.srv.InjectFault("createVPC", FaultCommitThenFail, 1)
	r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "n", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "commit then fail", r.StatusCode(), r.Body, 500, "INTERNAL_ERROR", "")
	l, err := e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil || len(*l.JSON200) != 1 {
		t.Fatalf("the VPC should exist despite the 500: %v %s", err, l.Body)
	}
}

func TestDroppedConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})

	e.srv.InjectFault("createService", FaultDrop, 1)
	if _, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "dropped"}); err == nil {
		t.Error("drop: want a client error")
	}
	if n := len(e.srv.Services(testProject)); n != 0 {
		t.Errorf("drop: %d services, want 0 (not carried out)", n)
	}

	e.srv.InjectFault("createService", FaultCommitThenDrop, 1)
	if _, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "committed"}); err == nil {
		t.Error("commit then drop: want a client error")
	}
	svcs := e.srv.Services(testProject)
	if len(svcs) != 1 || str(svcs[0].Name) != "committed" {
		t.Errorf("commit then drop: services %+v, want the committed one", svcs)
	}

	var statuses []int
	for _, r := range e.srv.Requests() {
		statuses = append(statuses, r.Status)
	}
	if want := []int{0, 0}; !slices.Equal(statuses, want) {
		t.Errorf("logged statuses %v, want %v", statuses, want)
	}
	// The client recovers on a new connection.
	e.createService(api.ServiceCreate{Name: "after"})
}

// TestProbabilisticFaults checks rates, the Retry-After header and determinism for a fixed seed.
func TestProbabilisticFaults(t *testing.T) {
	t.Parallel()
	run := func(f Faults) []int {
		e := newEnv(t, Options{Faults: f})
		var out []int
		for range 60 {
			r, err := e.c.ListServicesWithResponse(e.ctx, testProject)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.StatusCode())
			if r.StatusCode() == 429 && r.HTTPResponse.Header.Get("Retry-After") != "3" {
				t.Errorf("429 with Retry-After %q, want 3", r.HTTPResponse.Header.Get("Retry-After"))
			}
		}
		return out
	}
	f := Faults{RateLimit: 0.3, ServerError: 0.2, Unavailable: 0.2, RetryAfter: 3 * time.Second, Seed: 42}
	a, b := run(f), run(f)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	count := map[int]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range []int{200, 429, 500, 503} {
		if count[s] == 0 {
			t.Errorf("no %d in %v", s, a)
		}
	}
	f.Seed = 7
	if c := run(f); slices.Equal(a, c) {
		t.Error("different seeds gave the same faults")
	}
}

func TestProbabilisticCommitThenFail(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Faults: Faults{CommitThenFail: 1, Seed: 1}})
	// GETs are never committed-then-failed.
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 200 {
		t.Fatalf("list: %v", err)
	}
	r, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != 500 {
		t.Errorf("create: %d, want 500", r.StatusCode())
	}
	if n := len(e.srv.Services(testProject)); n != 1 {
		t.Errorf("%d services, want 1 (carried out)", n)
	}

	e.srv.SetFaults(Faults{CommitThenFail: 1, DropConnection: true})
	if _, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "y"}); err == nil {
		t.Error("commit then drop: want a client error")
	}
	if n := len(e.srv.Services(testProject)); n != 2 {
		t.Errorf("%d services, want 2", n)
	}
	e.srv.SetFaults(Faults{})
	e.createService(api.ServiceCreate{Name: "z"})
}

func TestLatency(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Faults: Faults{Latency: 30 * time.Millisecond}})
	start := time.Now()
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 200 {
		t.Fatalf("list: %v", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("request took %v, want at least 30ms", d)
	}
	e.srv.SetFaults(Faults{})
	start = time.Now()
	if _, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 25*time.Millisecond {
		t.Logf("request without latency took %v", d)
	}
}

func TestFaultKindString(t *testing.T) {
	for k := FaultRateLimit; k <= FaultDrop; k++ {
		if s := k.String(); s == "" || s[0] == 'F' {
			t.Errorf("FaultKind(%d).String() = %q", k, s)
		}
	}
	if s := FaultKind(99).String(); s != "FaultKind(99)" {
		t.Errorf("unknown kind: %q", s)
	}
}

func TestInjectFaultNonPositiveCount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.srv.InjectFault("", FaultServerError, 0)
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != http.StatusOK {
		t.Errorf("count 0 should inject nothing: %v", err)
	}
}

// The rate-limit mode admits RequestsPerSecond requests per second (a bucket of Burst), answers the
// others 429 with the time until the next token as Retry-After, and a rejected request takes no token.
func TestRateLimitMode(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	e.srv.SetModes(Modes{RequestsPerSecond: 2, Burst: 2})
	list := func() (int, string) {
		status, h, _ := e.raw("GET", "/projects/"+testProject+"/services", "")
		return status, h.Get("Retry-After")
	}
	for i := range 2 {
		if s, _ := list(); s != 200 {
			t.Fatalf("request %d of the burst: %d", i+1, s)
		}
	}
	s, ra := list()
	if s != 429 || ra != "1" {
		t.Fatalf("over the limit: %d with Retry-After %q, want 429 and 1", s, ra)
	}
	e.clk.Advance(400 * time.Millisecond) // 0.8 token
	if s, _ := list(); s != 429 {
		t.Fatalf("after 400ms: %d, want 429", s)
	}
	e.clk.Advance(100 * time.Millisecond) // 1 token: rejected requests took none
	if s, _ := list(); s != 200 {
		t.Fatalf("after 500ms: %d, want 200", s)
	}
	e.clk.Advance(10 * time.Second) // the bucket holds Burst at most
	for i, want := range []int{200, 200, 429} {
		if s, _ := list(); s != want {
			t.Errorf("request %d after a long pause: %d, want %d", i+1, s, want)
		}
	}
	var limited int
	for _, r := range e.srv.Requests() {
		if r.Status == 429 {
			limited++
		}
	}
	if limited != 3 {
		t.Errorf("%d answers of 429 in the log, want 3", limited)
	}
	e.srv.SetModes(Modes{})
	for range 5 {
		if s, _ := list(); s != 200 {
			t.Fatalf("with the limit off: %d", s)
		}
	}
}

// GetErrorRate answers a fraction of the GETs 500 (nothing done), and never a write.
func TestGetErrorRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Faults: Faults{Seed: 7}})
	e.srv.SetModes(Modes{GetErrorRate: 0.3})
	const n = 200
	failed := 0
	for range n {
		status, _, body := e.raw("GET", "/projects/"+testProject+"/vpcs", "")
		switch status {
		case 200:
		case 500:
			failed++
			expectError(t, "GET", status, body, 500, "INTERNAL_ERROR", "")
		default:
			t.Fatalf("GET answered %d", status)
		}
	}
	if failed < n/10 || failed > n/2 {
		t.Errorf("%d of %d GETs failed, want about 30%%", failed, n)
	}
	for i := range 20 {
		status, _, _ := e.raw("POST", "/projects/"+testProject+"/vpcs", fmt.Sprintf(`{"name":"n%d","cidr":"10.%d.0.0/16","region_code":"us-east-1"}`, i, i))
		if status != 201 {
			t.Fatalf("POST answered %d: GetErrorRate must leave writes alone", status)
		}
	}
}

// FaultEchoBody echoes the request body (secrets included) in the message and the details.
func TestFaultEchoBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	svc := e.readyService(api.ServiceCreate{Name: "echo"})
	e.srv.InjectFault("updatePassword", FaultEchoBody, 1)
	status, _, body := e.raw("POST", "/projects/"+testProject+"/services/"+str(svc.ServiceID)+"/updatePassword", `{"password":"Echo-Me-123"}`)
	expectError(t, "echoing update", status, body, 400, "INVALID_REQUEST", `{"password":"Echo-Me-123"}`)
	if ae := errorOf(t, body); ae.Details == nil || !strings.Contains(*ae.Details, "Echo-Me-123") {
		t.Errorf("details %v do not echo the body", ae.Details)
	}
	// Consumed: the next update goes through.
	if status, _, _ := e.raw("POST", "/projects/"+testProject+"/services/"+str(svc.ServiceID)+"/updatePassword", `{"password":"Echo-Me-456"}`); status != 204 && status != 200 {
		t.Errorf("second update: %d", status)
	}
}
