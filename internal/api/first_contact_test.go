package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// firstContactPolicy rides outages for a minute but gives first contact budget.
func firstContactPolicy(budget time.Duration) *RetryPolicy {
	return &RetryPolicy{MaxRetries: 3, WaitMin: 10 * time.Millisecond, WaitMax: 50 * time.Millisecond,
		MaxRetryAfter: time.Second, MaxElapsed: time.Minute, FirstContact: budget}
}

func newFirstContactClient(t *testing.T, baseURL string, budget time.Duration, edit ...func(*Config)) (*Client, *countingTransport) {
	t.Helper()
	counter := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
	cfg := Config{BaseURL: baseURL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID,
		Timeout: 5 * time.Second, Retry: firstContactPolicy(budget), Transport: counter}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, counter
}

// checkUnreachable checks that err is the first-contact error of a request to base: not an outage, not
// a transport error (waits do not retry it), not ambiguous, naming the URL and what to check.
func checkUnreachable(t *testing.T, err error, base string) {
	t.Helper()
	var u *UnreachableError
	if !errors.As(err, &u) {
		t.Fatalf("error %T %v: want an *UnreachableError", err, err)
	}
	var tErr *TransportError
	if IsOutage(err) || errors.As(err, &tErr) || IsAmbiguous(err) {
		t.Errorf("a first-contact failure is an outage (%v), a transport error (%v) or ambiguous (%v): %v",
			IsOutage(err), errors.As(err, &tErr), IsAmbiguous(err), err)
	}
	if !strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "has not answered any request of this run") {
		t.Errorf("Error() = %q: want the URL tried (%s) and that the API never answered", err, base)
	}
	if h := u.Hint(); !strings.Contains(h, "base_url") || !strings.Contains(h, "DBCLOUD_BASE_URL") || !strings.Contains(h, "running") {
		t.Errorf("Hint() = %q: want base_url, DBCLOUD_BASE_URL and whether the API is running", h)
	}
}

// A refused connection before the API ever answered fails after the first-contact budget (not the
// minute of the outage budget), for a read and for a create, with the URL tried.
func TestFirstContactRefusedFailsWithinBudget(t *testing.T) {
	base := "http://" + closedAddr(t) + "/v1"
	// Bounds with room for a busy machine: a budget of 2s, failed after it and well before the
	// outage budget; "at once" is under half the budget.
	c, counter := newFirstContactClient(t, base, 2*time.Second)
	start := time.Now()
	_, err := c.GetService(context.Background(), "svc1")
	if took := time.Since(start); took < 1600*time.Millisecond || took > 8*time.Second {
		t.Errorf("the read failed after %s, want about the first-contact budget (2s)", took)
	}
	checkUnreachable(t, err, base)
	if n := counter.n.Load(); n < 2 {
		t.Errorf("%d attempts: an API starting up deserves retries within the budget", n)
	}
	// The budget runs from the client's first attempt: a request after it fails at once.
	start = time.Now()
	_, err = c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if took := time.Since(start); took > time.Second {
		t.Errorf("a create after the first-contact budget failed after %s, want at once", took)
	}
	checkUnreachable(t, err, base)
}

// An unknown host fails within the budget.
func TestFirstContactUnknownHost(t *testing.T) {
	base := "https://dbcloud-first-contact.invalid/v1"
	c, _ := newFirstContactClient(t, base, 500*time.Millisecond)
	start := time.Now()
	_, err := c.ListServices(context.Background())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("an unknown host failed after %s", took)
	}
	checkUnreachable(t, err, base)
}

// A TLS failure before the first answer fails at once: an untrusted certificate, and an https URL
// that a plain-http server answers.
func TestFirstContactTLSFailsAtOnce(t *testing.T) {
	ok := func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `[]`) }
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(ok))
	t.Cleanup(tlsSrv.Close)
	plain := httptest.NewServer(http.HandlerFunc(ok))
	t.Cleanup(plain.Close)
	for name, base := range map[string]string{
		"untrusted certificate": tlsSrv.URL + "/v1",
		"https to plain http":   strings.Replace(plain.URL, "http://", "https://", 1) + "/v1",
	} {
		t.Run(name, func(t *testing.T) {
			c, counter := newFirstContactClient(t, base, 10*time.Second)
			start := time.Now()
			_, err := c.ListServices(context.Background())
			if took := time.Since(start); took > 2*time.Second || counter.n.Load() != 1 {
				t.Errorf("failed after %s and %d attempts, want at once", took, counter.n.Load())
			}
			checkUnreachable(t, err, base)
		})
	}
}

// An API that starts listening within the budget is reached: the request succeeds.
func TestFirstContactAPIStartingUp(t *testing.T) {
	addr := closedAddr(t)
	c, _ := newFirstContactClient(t, "http://"+addr+"/v1", 5*time.Second)
	started := make(chan *httptest.Server, 1)
	time.AfterFunc(300*time.Millisecond, func() {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			started <- nil
			return
		}
		srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, 200, `[]`)
		})}}
		srv.Start()
		started <- srv
	})
	_, err := c.ListServices(context.Background())
	if srv := <-started; srv != nil {
		defer srv.Close()
	} else {
		t.Skip("the port was taken meanwhile")
	}
	if err != nil {
		t.Fatalf("ListServices of an API that started within the first-contact budget: %v", err)
	}
	if got := c.TakeRiddenOutages(); len(got) != 0 {
		t.Errorf("waiting for first contact was taken for an outage: %v", got)
	}
}

// Once the API has answered, a refused connection is an outage again: it is ridden out beyond the
// first-contact budget, and the client then reports the outage it rode out, once.
func TestOutageAfterFirstContactIsRiddenOut(t *testing.T) {
	var down atomic.Bool
	c, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
		if down.Load() {
			dropConnection(t, w)
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) { cfg.Retry = firstContactPolicy(100 * time.Millisecond) })
	if _, err := c.GetService(context.Background(), "svc1"); err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	time.AfterFunc(700*time.Millisecond, func() { down.Store(false) })
	if _, err := c.GetService(context.Background(), "svc1"); err != nil {
		t.Fatalf("an outage after first contact was not ridden out: %v", err)
	}
	rides := c.TakeRiddenOutages()
	if len(rides) != 1 || rides[0].Until.Sub(rides[0].Since) < 500*time.Millisecond {
		t.Fatalf("ridden outages %v: want one of about 700ms", rides)
	}
	if again := c.TakeRiddenOutages(); len(again) != 0 {
		t.Errorf("an outage was reported twice: %v", again)
	}
}

// A request that meets an outage other requests met earlier, and whose budget runs out, says for how
// long the API was really away: since the client first met it, not since this request did.
func TestOutageErrorGivesTheOutagesRealLength(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 503, errorBody("UNAVAILABLE", "down"))
	}, func(cfg *Config) {
		cfg.Retry = firstContactPolicy(time.Second)
		cfg.Retry.MaxElapsed = 500 * time.Millisecond // the budget of a request without a deadline
	})
	first := make(chan struct{})
	ctx1, cancel1 := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel1()
	go func() { _, _ = c.GetService(ctx1, "svc1"); close(first) }()
	time.Sleep(time.Second) // the second request comes a second into the outage
	_, err := c.GetService(context.Background(), "svc1")
	var o *OutageError
	if !errors.As(err, &o) {
		t.Fatalf("error %T %v: want an *OutageError", err, err)
	}
	if d := o.Until.Sub(o.Since); d < 1300*time.Millisecond {
		t.Errorf("the outage lasted %s by the error (%v), want at least 1.3s: since the first request met it", d, err)
	}
	<-first
}
