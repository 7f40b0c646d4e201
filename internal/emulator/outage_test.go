package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// An outage answers every request 503 (or drops it), carries nothing out, counts what it met, and
// ends after its duration; armed with StartOn, it starts at the first request that matches.
func TestOutage(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	e := newEnv(t, Options{Now: clk.Now})

	e.srv.SetOutage(Outage{Kind: OutageUnavailable, Duration: time.Minute})
	r, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "refused"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "create during a 503 outage", r.StatusCode(), r.Body, 503, "SERVICE_UNAVAILABLE", "")
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 503 {
		t.Errorf("list during the outage: %v, %v", l.StatusCode(), err)
	}
	if n := len(e.srv.Services(testProject)); n != 0 {
		t.Errorf("%d services: an outage carries nothing out", n)
	}
	clk.Advance(time.Minute)
	e.createService(api.ServiceCreate{Name: "after"})
	if rep := e.srv.LastOutage(); rep.Refused != 2 || rep.Kind != OutageUnavailable {
		t.Errorf("report %+v: want 2 requests refused", rep)
	}

	// Dropped connections, armed until the first write.
	e.srv.SetOutage(Outage{Kind: OutageDrop, Duration: 30 * time.Second, StartOn: "write"})
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 200 {
		t.Errorf("a GET before the armed outage's first write: %v, %v", l.StatusCode(), err)
	}
	if _, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "dropped"}); err == nil {
		t.Error("the first write starts the drop outage: want a client error")
	}
	if _, err := e.c.ListServicesWithResponse(e.ctx, testProject); err == nil {
		t.Error("a GET during the drop outage: want a client error")
	}
	if n := len(e.srv.Services(testProject)); n != 1 {
		t.Errorf("%d services, want only the one made before (nothing carried out)", n)
	}
	clk.Advance(30 * time.Second)
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 200 {
		t.Errorf("a GET after the outage: %v, %v", l, err)
	}
	if rep := e.srv.LastOutage(); rep.Refused != 2 || rep.StartOn != "write" {
		t.Errorf("report %+v: want the create and the list refused", rep)
	}

	// Armed until any request: nothing starts while no request comes, the first GET starts it.
	e.srv.SetOutage(Outage{Kind: OutageUnavailable, Duration: 10 * time.Second, StartOn: "any"})
	clk.Advance(time.Minute)
	if rep := e.srv.LastOutage(); !rep.Start.IsZero() {
		t.Errorf("an outage armed until any request started without one: %+v", rep)
	}
	if l, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil || l.StatusCode() != 503 {
		t.Errorf("the first GET starts an outage armed until any request: %v, %v", l.StatusCode(), err)
	}
	if rep := e.srv.LastOutage(); rep.Refused != 1 || !rep.End.Equal(rep.Start.Add(10*time.Second)) {
		t.Errorf("report %+v: want the GET refused and a window of 10 s from it", rep)
	}
}

// The control endpoint sets an outage (with the API's credentials) and reports it, even while down.
func TestOutageControlEndpoint(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	e := newEnv(t, Options{Now: clk.Now})
	base := strings.TrimSuffix(e.srv.URL, BasePath)
	call := func(method, query string, auth bool) (int, map[string]any) {
		req, _ := http.NewRequestWithContext(e.ctx, method, base+OutagePath+query, nil)
		if auth {
			req.SetBasicAuth(testKey, testSecret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	if code, _ := call(http.MethodPost, "?kind=unavailable&seconds=60", false); code != 401 {
		t.Errorf("without credentials: %d, want 401", code)
	}
	if code, _ := call(http.MethodPost, "?kind=sideways&seconds=60", true); code != 400 {
		t.Errorf("a bad kind: %d, want 400", code)
	}
	code, out := call(http.MethodPost, "?kind=unavailable&seconds=60", true)
	if code != 200 || out["kind"] != "unavailable" || out["seconds"] != 60.0 || out["start"] == nil {
		t.Errorf("POST: %d %v", code, out)
	}
	if l, _ := e.c.ListServicesWithResponse(e.ctx, testProject); l == nil || l.StatusCode() != 503 {
		t.Error("the API must answer 503 during the outage")
	}
	if code, out := call(http.MethodGet, "", true); code != 200 || out["refused"] != 1.0 {
		t.Errorf("GET during the outage: %d %v, want it answered with 1 request refused", code, out)
	}
	if code, _ := call(http.MethodPost, "?seconds=0", true); code != 200 {
		t.Errorf("ending the outage: %d", code)
	}
	if l, _ := e.c.ListServicesWithResponse(e.ctx, testProject); l == nil || l.StatusCode() != 200 {
		t.Error("the API must answer again once the outage is ended")
	}
}
