package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	testAccessKey = "AK-test-access"
	testSecretKey = "SK-very-secret-key-9f3a"
	testProjectID = "rp1pz7uyae"
)

// fastRetry is a tiny retry policy so that retry tests take milliseconds.
func fastRetry() *RetryPolicy {
	return &RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, MaxRetryAfter: 50 * time.Millisecond, MaxElapsed: 400 * time.Millisecond}
}

// newTestClient starts an httptest server with h and a client for it (fast retries, short timeout).
func newTestClient(t testing.TB, h http.HandlerFunc, edit ...func(*Config)) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := Config{
		BaseURL:   srv.URL + "/v1",
		AccessKey: testAccessKey,
		SecretKey: testSecretKey,
		ProjectID: testProjectID,
		Timeout:   5 * time.Second,
		Retry:     fastRetry(),
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, srv
}

// recorded is what a test server saw of one request.
type recorded struct {
	Method, Path, RawPath string
	Header                http.Header
	Body                  string
}

// recorder counts and records the requests a test server receives.
type recorder struct {
	hits atomic.Int32
	mu   sync.Mutex
	reqs []recorded
}

func (r *recorder) record(req *http.Request) int {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, recorded{Method: req.Method, Path: req.URL.Path, RawPath: req.URL.EscapedPath(), Header: req.Header.Clone(), Body: string(body)})
	r.mu.Unlock()
	return int(r.hits.Add(1))
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func errorBody(code, message string) string {
	return `{"code":"` + code + `","message":"` + message + `"}`
}

func ptr[T any](v T) *T { return &v }
