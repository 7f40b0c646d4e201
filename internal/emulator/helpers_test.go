package emulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

const (
	testKey     = "test-access-key"
	testSecret  = "test-secret-key"
	testProject = "proj000001"
)

// fakeClock is a manually advanced clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is an emulator server with a generated client.
type env struct {
	t   *testing.T
	srv *Server
	c   *api.ClientWithResponses
	clk *fakeClock // nil with the real clock
	ctx context.Context
}

// newEnv starts a server with the test credentials (unless opts sets others) and a client for it.
func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	if opts.AccessKey == "" && opts.SecretKey == "" {
		opts.AccessKey, opts.SecretKey = testKey, testSecret
	}
	srv := newValidatedServer(t, opts)
	return &env{t: t, srv: srv, c: newClient(t, srv.URL, testKey, testSecret), ctx: t.Context()}
}

// pollTiming is FastTiming scaled up for the tests that poll in real time (every 3ms) and assert that
// every intermediate state was seen: 40ms windows are occasionally missed on a heavily loaded machine
// (several -race test binaries at once), and so were the 60ms of DELETED at three times FastTiming
// while both cores were busy; at ten times the shortest window is 200ms. The fake-clock tests check
// FastTiming's exact deadlines.
func pollTiming() Timing {
	t := FastTiming()
	for _, d := range []*time.Duration{
		&t.ServiceQueued, &t.ServiceConfiguring, &t.ServiceDeleting, &t.ServiceDeleted,
		&t.ServicePausing, &t.ServiceResuming,
		&t.ReplicaCreating, &t.ReplicaResizing, &t.ReplicaDeleting,
		&t.PeeringProvisioning, &t.PeeringAccepting,
	} {
		*d *= 10
	}
	return t
}

// newFakeEnv is newEnv with FastTiming and a fake clock.
func newFakeEnv(t *testing.T) *env {
	t.Helper()
	clk := newFakeClock()
	e := newEnv(t, Options{Timing: FastTiming(), Now: clk.Now})
	e.clk = clk
	return e
}

// newClient returns a generated client sending Basic credentials, whose transport checks every
// response against openapi.yaml.
func newClient(t *testing.T, url, user, pass string) *api.ClientWithResponses {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: &validatingTransport{t: t, base: tr}, Timeout: 10 * time.Second}
	c, err := api.NewClientWithResponses(url,
		api.WithHTTPClient(hc),
		api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			if user != "" || pass != "" {
				req.SetBasicAuth(user, pass)
			}
			return nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newValidatedServer is NewServer behind a middleware that checks every response the emulator sends
// (success and error answers alike, whoever the client is) against openapi.yaml. It is closed when
// the test ends.
func newValidatedServer(t *testing.T, opts Options) *Server {
	t.Helper()
	e := New(opts)
	ts := httptest.NewServer(validatingHandler(t, e))
	srv := &Server{Emulator: e, URL: ts.URL + BasePath, ts: ts}
	t.Cleanup(srv.Close)
	return srv
}

// validatingHandler serves through h and checks each answer with checkResponse. Dropped connections
// (hijacked) have no answer to check.
func validatingHandler(t *testing.T, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &capturingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		if cw.hijacked {
			return
		}
		status := cw.status
		if status == 0 {
			status = http.StatusOK
		}
		checkResponse(t, r, status, cw.Header(), cw.body.Bytes())
	})
}

// capturingWriter keeps a copy of what is written through it.
type capturingWriter struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	hijacked bool
}

func (c *capturingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capturingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *capturingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c.hijacked = true
	return http.NewResponseController(c.ResponseWriter).Hijack()
}

// checkResponse fails the test when an answer does not match the operation's responses in
// openapi.yaml (status, headers such as Retry-After, body), or when an error answer lacks code,
// message or details. Answers to paths that name no operation (404/405) are only checked for the
// Error body.
func checkResponse(t *testing.T, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	sp, err := loadSpec()
	if err != nil {
		t.Errorf("loading the spec: %v", err)
		return
	}
	if rt := sp.find(req); rt.route != nil {
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: rt.params, Route: rt.route},
			Status:                 status,
			Header:                 header,
			Body:                   io.NopCloser(bytes.NewReader(body)),
			Options:                &openapi3filter.Options{IncludeResponseStatus: true},
		}
		if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
			t.Errorf("response to %s %s (%d) does not match openapi.yaml: %v\nbody: %s", req.Method, req.URL.Path, status, err, body)
		}
		if rt.operationID == "renameVPC" && status == http.StatusOK && len(body) > 0 {
			t.Errorf("renameVPC must answer without a body, as the live API does: %s", body)
		}
	}
	if status >= 400 {
		var e api.Error
		if err := json.Unmarshal(body, &e); err != nil || e.Code == "" || e.Message == "" || e.Details == nil || *e.Details == "" {
			t.Errorf("error response to %s %s lacks code, message or details: %s", req.Method, req.URL.Path, body)
		}
	}
}

// validatingTransport fails the test when a response does not match openapi.yaml.
type validatingTransport struct {
	t    *testing.T
	base http.RoundTripper
}

func (v *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := v.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	checkResponse(v.t, req, resp.StatusCode, resp.Header, body)
	return resp, nil
}

// Small accessors.

func status(s *api.Service) api.ServiceStatus {
	if s == nil || s.Status == nil {
		return ""
	}
	return *s.Status
}

func str[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// createService creates a service and fails the test unless the answer is 202.
func (e *env) createService(body api.ServiceCreate) api.Service {
	e.t.Helper()
	resp, err := e.c.CreateServiceWithResponse(e.ctx, testProject, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode() != http.StatusAccepted || resp.JSON202 == nil {
		e.t.Fatalf("create service: %d %s", resp.StatusCode(), resp.Body)
	}
	return *resp.JSON202
}

// getService gets a service; the second result is the status code.
func (e *env) getService(id string) (*api.Service, int) {
	e.t.Helper()
	resp, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.JSON200, resp.StatusCode()
}

// mustStatus fails unless the service has the given status.
func (e *env) mustStatus(id string, want api.ServiceStatus) *api.Service {
	e.t.Helper()
	s, code := e.getService(id)
	if code != http.StatusOK {
		e.t.Fatalf("get service %s: %d", id, code)
	}
	if got := status(s); got != want {
		e.t.Fatalf("service %s status = %s, want %s", id, got, want)
	}
	return s
}

// readyService creates a service and brings it to READY (advancing the fake clock if any).
func (e *env) readyService(body api.ServiceCreate) api.Service {
	e.t.Helper()
	s := e.createService(body)
	id := *s.ServiceID
	if e.clk != nil {
		e.clk.Advance(time.Hour)
		return *e.mustStatus(id, api.READY)
	}
	e.pollService(id, func(s *api.Service, _ int) bool { return status(s) == api.READY })
	return *e.mustStatus(id, api.READY)
}

// pollService polls GET until done, returning the distinct statuses seen in order ("404" once the
// service is gone).
func (e *env) pollService(id string, done func(*api.Service, int) bool) []string {
	e.t.Helper()
	var seen []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, code := e.getService(id)
		st := string(status(s))
		if code == http.StatusNotFound {
			st = "404"
		}
		if len(seen) == 0 || seen[len(seen)-1] != st {
			seen = append(seen, st)
		}
		if done(s, code) {
			return seen
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("service %s: gave up polling; statuses seen: %v", id, seen)
		}
		time.Sleep(3 * time.Millisecond)
	}
}

// errorOf decodes an error body.
func errorOf(t *testing.T, body []byte) api.Error {
	t.Helper()
	var e api.Error
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an Error body: %s", body)
	}
	return e
}

// expectError checks an error answer's status, code and that its message contains want.
func expectError(t *testing.T, what string, gotStatus int, body []byte, wantStatus int, wantCode, wantMsg string) {
	t.Helper()
	if gotStatus != wantStatus {
		t.Errorf("%s: status %d, want %d; body %s", what, gotStatus, wantStatus, body)
		return
	}
	e := errorOf(t, body)
	if wantCode != "" && e.Code != wantCode {
		t.Errorf("%s: code %q, want %q", what, e.Code, wantCode)
	}
	if !strings.Contains(e.Message, wantMsg) {
		t.Errorf("%s: message %q does not contain %q", what, e.Message, wantMsg)
	}
	if e.Details == nil || *e.Details == "" {
		t.Errorf("%s: no details", what)
	}
}

// raw sends a request with a raw body and the test credentials.
func (e *env) raw(method, path, body string) (int, http.Header, []byte) {
	e.t.Helper()
	return rawRequest(e.t, e.srv.URL, method, path, body, testKey, testSecret)
}

func rawRequest(t *testing.T, base, method, path, body, user, pass string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" || pass != "" {
		req.SetBasicAuth(user, pass)
	}
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

func intp(v int) *int       { return &v }
func strp(v string) *string { return &v }
func addons(a ...api.Addon) *[]api.Addon {
	if a == nil {
		a = []api.Addon{}
	}
	return &a
}
