package emulator

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Operations and behaviour of the live API that the first picture of the API lacked.

func TestProjectsAndAuthInfo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Projects: []string{testProject, "proj000002"}})
	l, err := e.c.ListProjectsWithResponse(e.ctx)
	if err != nil || l.StatusCode() != http.StatusOK || l.JSON200 == nil {
		t.Fatalf("list projects: %v %s", err, l.Body)
	}
	want := []api.Project{{ID: testProject, Name: "Project " + testProject}, {ID: "proj000002", Name: "Project proj000002"}}
	if !slices.Equal(*l.JSON200, want) {
		t.Errorf("projects = %+v, want %+v", *l.JSON200, want)
	}
	a, err := e.c.GetAuthInfoWithResponse(e.ctx)
	if err != nil || a.StatusCode() != http.StatusOK || a.JSON200 == nil {
		t.Fatalf("auth info: %v %s", err, a.Body)
	}
	if a.JSON200.Type != api.APIKey || a.JSON200.APIKey == nil || str(a.JSON200.APIKey.PublicKey) != testKey ||
		a.JSON200.APIKey.Project == nil || a.JSON200.APIKey.Project.ID != testProject {
		t.Errorf("auth info = %s", a.Body)
	}
	// A bearer token, as the live API accepts for OAuth clients.
	tokenEnv := newEnv(t, Options{BearerTokens: []string{"tok-123"}})
	code, _, b := rawRequestBearer(t, tokenEnv.srv.URL, "/auth/info", "tok-123")
	if code != http.StatusOK || !strings.Contains(string(b), `"type":"oauth"`) {
		t.Errorf("auth info with a token: %d %s", code, b)
	}
	if code, _, b := rawRequestBearer(t, tokenEnv.srv.URL, "/projects", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d %s", code, b)
	}
	tokenEnv.srv.ExpireToken("tok-123")
	if code, _, b := rawRequestBearer(t, tokenEnv.srv.URL, "/projects", "tok-123"); code != http.StatusUnauthorized || !strings.Contains(string(b), "expired") {
		t.Errorf("an expired token: %d %s", code, b)
	}
	lo, err := e.c.LogoutWithResponse(e.ctx)
	if err != nil || lo.StatusCode() != http.StatusNoContent || len(lo.Body) != 0 {
		t.Fatalf("logout: %v %s", err, lo.Body)
	}
	// Without an allow-list: the projects used so far, and no project in the key.
	anyEnv := newEnv(t, Options{})
	anyEnv.createService(api.ServiceCreate{Name: "x"})
	l, err = anyEnv.c.ListProjectsWithResponse(anyEnv.ctx)
	if err != nil || l.JSON200 == nil || len(*l.JSON200) != 1 || (*l.JSON200)[0].ID != testProject {
		t.Fatalf("list projects without an allow-list: %v %s", err, l.Body)
	}
	if a, err := anyEnv.c.GetAuthInfoWithResponse(anyEnv.ctx); err != nil || a.JSON200 == nil || a.JSON200.APIKey.Project != nil {
		t.Fatalf("auth info without an allow-list: %v %s", err, a.Body)
	}
}

func TestRenameService(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	r, err := e.c.RenameServiceWithResponse(e.ctx, testProject, id, api.ServiceRename{Name: "db-renamed"})
	if err != nil || r.StatusCode() != http.StatusOK || r.JSON200 == nil {
		t.Fatalf("rename: %v %s", err, r.Body)
	}
	if str(r.JSON200.Name) != "db-renamed" || str(r.JSON200.ServiceID) != id || status(r.JSON200) != api.READY {
		t.Errorf("rename answer = %s", r.Body)
	}
	if s := e.mustStatus(id, api.READY); str(s.Name) != "db-renamed" { // synchronous
		t.Errorf("name = %q", str(s.Name))
	}
	if n := len(e.srv.Services(testProject)); n != 1 {
		t.Errorf("%d services after rename, want 1", n)
	}
}

func TestStopStart(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	st, err := e.c.StopServiceWithResponse(e.ctx, testProject, id)
	if err != nil || st.StatusCode() != http.StatusAccepted || st.JSON202 == nil || status(st.JSON202) != api.PAUSING {
		t.Fatalf("stop: %v %s", err, st.Body)
	}
	e.clk.Advance(FastTiming().ServicePausing - time.Millisecond)
	e.mustStatus(id, api.PAUSING)
	e.clk.Advance(time.Millisecond)
	e.mustStatus(id, api.PAUSED)
	e.clk.Advance(time.Hour)
	e.mustStatus(id, api.PAUSED) // stays paused

	// While PAUSED, state-changing calls answer 409 (start and delete aside).
	rz, err := e.c.ResizeServiceWithResponse(e.ctx, testProject, id, api.ResizeInput{CPUMillis: "2000", MemoryGbs: "8"})
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "resize while PAUSED", rz.StatusCode(), rz.Body, http.StatusConflict, "CONFLICT", "is PAUSED, not READY")
	again, err := e.c.StopServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "stop while PAUSED", again.StatusCode(), again.Body, http.StatusConflict, "CONFLICT", "is PAUSED, not READY")

	sr, err := e.c.StartServiceWithResponse(e.ctx, testProject, id)
	if err != nil || sr.StatusCode() != http.StatusAccepted || sr.JSON202 == nil || status(sr.JSON202) != api.RESUMING {
		t.Fatalf("start: %v %s", err, sr.Body)
	}
	e.clk.Advance(FastTiming().ServiceResuming)
	e.mustStatus(id, api.READY)
	sr, err = e.c.StartServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "start while READY", sr.StatusCode(), sr.Body, http.StatusConflict, "CONFLICT", "is READY, not PAUSED")

	// A paused service can be deleted.
	if !e.srv.PauseService(testProject, id) {
		t.Fatal("PauseService returned false")
	}
	d, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, id)
	if err != nil || d.StatusCode() != http.StatusAccepted {
		t.Fatalf("delete while PAUSED: %v %s", err, d.Body)
	}
	e.clk.Advance(time.Hour)
	if _, code := e.getService(id); code != http.StatusNotFound {
		t.Errorf("after delete: %d, want 404", code)
	}
}

func TestServiceLogsPaging(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	id := *e.readyService(api.ServiceCreate{Name: "db"}).ServiceID
	if !e.srv.ServiceLogLine(testProject, id, "ERROR", "disk almost full") {
		t.Fatal("ServiceLogLine returned false")
	}
	var all []api.LogEntry
	params := &api.GetServiceLogsParams{}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("too many pages")
		}
		r, err := e.c.GetServiceLogsWithResponse(e.ctx, testProject, id, params)
		if err != nil || r.StatusCode() != http.StatusOK || r.JSON200 == nil || r.JSON200.Entries == nil {
			t.Fatalf("logs: %v %s", err, r.Body)
		}
		page := *r.JSON200.Entries
		if len(page) > LogPageSize || len(r.JSON200.Logs) != len(page) {
			t.Fatalf("page of %d entries and %d lines", len(page), len(r.JSON200.Logs))
		}
		all = append(all, page...)
		if r.JSON200.LastCursor == nil {
			break
		}
		params = &api.GetServiceLogsParams{Cursor: r.JSON200.LastCursor}
	}
	if len(all) != 13 {
		t.Fatalf("%d entries, want 13 (12 at start-up and one added)", len(all))
	}
	if last := all[len(all)-1]; str(last.Severity) != "ERROR" || str(last.Message) != "disk almost full" || last.Timestamp == nil {
		t.Errorf("last entry = %+v", last)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Timestamp.Before(*all[i-1].Timestamp) {
			t.Errorf("entries out of order at %d", i)
		}
	}
	// Filters.
	sev := []string{"ERROR"}
	r, err := e.c.GetServiceLogsWithResponse(e.ctx, testProject, id, &api.GetServiceLogsParams{Severities: &sev, Search: strp("DISK")})
	if err != nil || r.JSON200 == nil || len(*r.JSON200.Entries) != 1 || r.JSON200.LastCursor != nil {
		t.Errorf("filtered logs: %v %s", err, r.Body)
	}
	node := "1"
	r, err = e.c.GetServiceLogsWithResponse(e.ctx, testProject, id, &api.GetServiceLogsParams{Node: &node})
	if err != nil || r.JSON200 == nil || len(*r.JSON200.Entries) != 0 || len(r.JSON200.Logs) != 0 {
		t.Errorf("logs of another node: %v %s", err, r.Body)
	}
}

func TestSharedSizeHasNoNumbers(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	s := e.readyService(api.ServiceCreate{Name: "small", CPUMillis: strp("shared"), MemoryGbs: strp("shared")})
	if spec := (*s.Resources)[0].Spec; spec == nil || spec.CPUMillis != nil || spec.MemoryGbs != nil || !api.IsSharedSize(spec) {
		t.Errorf("shared service spec = %+v", spec)
	}
	f, err := e.c.ForkServiceWithResponse(e.ctx, testProject, *s.ServiceID, api.ForkServiceCreate{ForkStrategy: api.NOW})
	if err != nil || f.JSON202 == nil {
		t.Fatalf("fork: %v", err)
	}
	if serviceSize(*f.JSON202) != (size{}) {
		t.Errorf("a fork inherits the shared size: %s", f.Body)
	}
}

// rawRequestBearer sends a GET with a bearer token.
func rawRequestBearer(t *testing.T, base, path, token string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}
