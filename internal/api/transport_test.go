package api

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dropConnection closes the client's connection without an answer, after the request was read.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Errorf("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	_ = conn.Close()
}

// countingTransport counts the attempts the client makes, whether or not they reach a server.
type countingTransport struct {
	n    atomic.Int32
	next http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// ---- retry rules against a server ----

func TestPOSTAnswered500IsSentOnceAndAmbiguous(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		writeJSON(w, 500, errorBody("INTERNAL", "something broke"))
	})
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if n := rec.hits.Load(); n != 1 {
		t.Errorf("POST answered 500 was sent %d times, want 1", n)
	}
	if StatusCode(err) != 500 || !IsAmbiguous(err) {
		t.Errorf("error %v: want a 500 *APIError that is ambiguous", err)
	}
}

func TestPOSTAnswered504IsSentOnce(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		writeJSON(w, 504, errorBody("GATEWAY_TIMEOUT", "upstream timed out"))
	})
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if n := rec.hits.Load(); n != 1 {
		t.Errorf("POST answered 504 was sent %d times, want 1", n)
	}
	if StatusCode(err) != 504 || !IsAmbiguous(err) || IsOutage(err) {
		t.Errorf("error %v: want an ambiguous 504", err)
	}
}

// A POST answered 502 or 503 was refused without being carried out: it is sent again, beyond
// MaxRetries, for as long as the budget lasts, and then fails with an *OutageError that is not
// ambiguous and says for how long the API was unavailable.
func TestPOSTAnsweredUnavailableIsRetriedForItsBudget(t *testing.T) {
	for _, status := range []int{502, 503} {
		t.Run(strconv.Itoa(status)+" then accepted", func(t *testing.T) {
			rec := &recorder{}
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if rec.record(r) <= 8 {
					writeJSON(w, status, errorBody("UNAVAILABLE", "try later"))
					return
				}
				writeJSON(w, 202, `{"service_id":"svc1","status":"QUEUED"}`)
			}, func(cfg *Config) { cfg.Retry.MaxElapsed = 10 * time.Second })
			if _, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"}); err != nil {
				t.Fatalf("CreateService: %v", err)
			}
			if n := int(rec.hits.Load()); n != 9 || n <= fastRetry().MaxRetries+1 {
				t.Errorf("%d hits, want 9 (8 answers of %d, then the create)", n, status)
			}
		})
		t.Run(strconv.Itoa(status)+" until the budget runs out", func(t *testing.T) {
			rec := &recorder{}
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				rec.record(r)
				writeJSON(w, status, errorBody("UNAVAILABLE", "try later"))
			})
			start := time.Now()
			_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v with a budget of %v", d, fastRetry().MaxElapsed)
			}
			if n := int(rec.hits.Load()); n <= fastRetry().MaxRetries+1 {
				t.Errorf("%d hits: an outage must be retried beyond MaxRetries", n)
			}
			var oErr *OutageError
			if !errors.As(err, &oErr) || StatusCode(err) != status || IsAmbiguous(err) {
				t.Fatalf("error %T %v: want an *OutageError of %d, not ambiguous", err, err, status)
			}
			if oErr.Attempts != int(rec.hits.Load()) || !strings.Contains(err.Error(), "the API was unavailable for") ||
				!strings.Contains(err.Error(), "create service") || !strings.Contains(oErr.Hint(), "Running the same command again is safe") {
				t.Errorf("error %q (attempts %d), hint %q", err, oErr.Attempts, oErr.Hint())
			}
		})
	}
}

// A GET whose connections are dropped for longer than its budget fails with an *OutageError around
// the *TransportError; one whose connections come back before is answered.
func TestGETDroppedConnectionsRiddenOut(t *testing.T) {
	for _, drops := range []int{12, 1 << 30} {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if rec.record(r) <= drops {
				dropConnection(t, w)
				return
			}
			writeJSON(w, 200, `{"service_id":"svc1"}`)
		}, func(cfg *Config) {
			if drops < 100 {
				cfg.Retry.MaxElapsed = 10 * time.Second
			}
		})
		_, err := c.GetService(context.Background(), "svc1")
		if drops < 100 {
			if err != nil {
				t.Errorf("GetService after %d dropped connections: %v", drops, err)
			}
			continue
		}
		var oErr *OutageError
		var tErr *TransportError
		if !errors.As(err, &oErr) || !errors.As(err, &tErr) || int(rec.hits.Load()) <= fastRetry().MaxRetries+1 {
			t.Errorf("error %T %v after %d hits: want an *OutageError around a *TransportError", err, err, rec.hits.Load())
		}
	}
}

func TestGET503TwiceThenOK(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) <= 2 {
			writeJSON(w, 503, errorBody("UNAVAILABLE", "busy"))
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1","status":"READY"}`)
	})
	s, err := c.GetService(context.Background(), "svc1")
	if err != nil || *s.ServiceID != "svc1" {
		t.Fatalf("GetService = %+v, %v", s, err)
	}
	if n := rec.hits.Load(); n != 3 {
		t.Errorf("%d hits, want 3", n)
	}
	// Every attempt carries the credentials.
	for i, r := range rec.all() {
		if _, _, ok := (&http.Request{Header: r.Header}).BasicAuth(); !ok {
			t.Errorf("attempt %d lacks basic auth", i+1)
		}
	}
}

func TestDELETE504ThenAccepted(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) == 1 {
			writeJSON(w, 504, "")
			return
		}
		w.WriteHeader(202)
	})
	if err := c.DeleteService(context.Background(), "svc1"); err != nil {
		t.Fatalf("DeleteService: %v", err)
	}
	if n := rec.hits.Load(); n != 2 {
		t.Errorf("%d hits, want 2", n)
	}
}

func TestGET500IsRetried(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) <= 2 {
			writeJSON(w, 500, errorBody("INTERNAL", "x"))
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	})
	if _, err := c.GetService(context.Background(), "svc1"); err != nil {
		t.Fatalf("GetService: %v", err)
	}
	if n := rec.hits.Load(); n != 3 {
		t.Errorf("%d hits, want 3", n)
	}
}

func TestDELETE500IsRetriedPOST500IsNot(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		writeJSON(w, 500, errorBody("INTERNAL", "x"))
	})
	err := c.DeleteService(context.Background(), "svc1")
	if n := int(rec.hits.Load()); n != fastRetry().MaxRetries+1 || StatusCode(err) != 500 {
		t.Errorf("DELETE: %d hits, error %v", n, err)
	}
	rec.hits.Store(0)
	_, err = c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if n := rec.hits.Load(); n != 1 || StatusCode(err) != 500 {
		t.Errorf("POST: %d hits, error %v", n, err)
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409} {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			rec.record(r)
			writeJSON(w, status, errorBody("E", "no"))
		})
		_, errGet := c.GetService(context.Background(), "svc1")
		_, errPost := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
		if n := rec.hits.Load(); n != 2 || StatusCode(errGet) != status || StatusCode(errPost) != status {
			t.Errorf("%d: %d hits for a GET and a POST, errors %v / %v", status, n, errGet, errPost)
		}
	}
}

func TestPOST429RetryAfterIsHonoured(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := rec.record(r)
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
			return
		}
		writeJSON(w, 202, `{"service_id":"svc1","status":"QUEUED"}`)
	}, func(cfg *Config) {
		cfg.Retry = &RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, MaxRetryAfter: 10 * time.Second}
	})
	start := time.Now()
	s, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	elapsed := time.Since(start)
	if err != nil || *s.ServiceID != "svc1" {
		t.Fatalf("CreateService = %+v, %v", s, err)
	}
	if n := rec.hits.Load(); n != 2 {
		t.Fatalf("%d hits, want 2", n)
	}
	mu.Lock()
	gap := times[1].Sub(times[0])
	mu.Unlock()
	if gap < 950*time.Millisecond || elapsed < 950*time.Millisecond {
		t.Errorf("waited %v between attempts (%v in all), want about the 1s of Retry-After", gap, elapsed)
	}
	if elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func TestGET429IsRetried(t *testing.T) {
	for _, retryAfter := range []string{"", "0"} {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if rec.record(r) == 1 {
				if retryAfter != "" {
					w.Header().Set("Retry-After", retryAfter)
				}
				writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
				return
			}
			writeJSON(w, 200, `[]`)
		})
		if _, err := c.ListVPCs(context.Background()); err != nil {
			t.Errorf("Retry-After %q: %v", retryAfter, err)
		}
		if n := rec.hits.Load(); n != 2 {
			t.Errorf("Retry-After %q: %d hits, want 2", retryAfter, n)
		}
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) == 1 {
			w.Header().Set("Retry-After", "3600")
			writeJSON(w, 429, errorBody("RATE_LIMITED", "come back in an hour"))
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) {
		cfg.Retry = &RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, MaxRetryAfter: 20 * time.Millisecond}
	})
	// Bounded, so that an uncapped wait of an hour fails here instead of hanging the suite.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := c.GetService(ctx, "svc1"); err != nil {
		t.Fatalf("GetService: %v (Retry-After must be capped at MaxRetryAfter)", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v: Retry-After must be capped at MaxRetryAfter", d)
	}
	if n := rec.hits.Load(); n != 2 {
		t.Errorf("%d hits, want 2", n)
	}
}

// A GET answered 500 (not an outage) is retried MaxRetries times, and the last answer is the error.
func TestRetriesExhaustedGiveTheLastAnswer(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		n := rec.record(r)
		writeJSON(w, 500, fmt.Sprintf(`{"code":"UNAVAILABLE","message":"attempt %d refused","details":"maintenance"}`, n))
	})
	_, err := c.GetService(context.Background(), "svc1")
	maxRetries := fastRetry().MaxRetries
	if n := int(rec.hits.Load()); n != maxRetries+1 {
		t.Errorf("%d hits, want MaxRetries+1 = %d", n, maxRetries+1)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T %v is not an *APIError", err, err)
	}
	if apiErr.StatusCode != 500 || apiErr.Code != "UNAVAILABLE" || apiErr.Message != fmt.Sprintf("attempt %d refused", maxRetries+1) || apiErr.Details != "maintenance" {
		t.Errorf("APIError = %+v, want the last answer", *apiErr)
	}
}

func TestRateLimitExhaustedIsNotAmbiguous(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
	}, func(cfg *Config) {
		cfg.Limiter = LimiterConfig{MinRate: 1000, MaxRate: 2000}
		cfg.Retry = fastRetry()
		cfg.Retry.MaxElapsed = 300 * time.Millisecond
	})
	// 429s are retried until the time budget (here MaxElapsed: the context has no deadline) runs out;
	// no retry starts that would end past it, so the answer is the last 429. (A context deadline met
	// while a POST is sent again is ambiguous instead: see TestDeadlineDuringRetries.)
	start := time.Now()
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if n := int(rec.hits.Load()); n < 2 {
		t.Errorf("%d hits", n)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v with a deadline of 300ms", d)
	}
	if !IsRateLimited(err) || IsAmbiguous(err) {
		t.Errorf("error %v: want a 429 that is not ambiguous", err)
	}
}

func TestPOSTDroppedConnectionIsNotRetried(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r) // the request has been read in full
		dropConnection(t, w)
	})
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if n := rec.hits.Load(); n != 1 {
		t.Errorf("POST with a dropped connection was sent %d times, want 1", n)
	}
	var tErr *TransportError
	if !errors.As(err, &tErr) || tErr.NotSent {
		t.Fatalf("error %T %v: want a *TransportError that was sent", err, err)
	}
	if !IsAmbiguous(err) || StatusCode(err) != 0 {
		t.Errorf("IsAmbiguous(%v) = false", err)
	}
	if !strings.Contains(err.Error(), `create service "db"`) || !strings.Contains(err.Error(), "may or may not") {
		t.Errorf("Error() = %q", err)
	}
}

func TestGETDroppedConnectionIsRetried(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) == 1 {
			dropConnection(t, w)
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	})
	if _, err := c.GetService(context.Background(), "svc1"); err != nil {
		t.Fatalf("GetService: %v", err)
	}
	if n := rec.hits.Load(); n != 2 {
		t.Errorf("%d hits, want 2", n)
	}
}

// closedAddr returns the address of a port nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// Once the API has answered, a port that stops listening is an outage: a create is retried beyond
// MaxRetries until the budget ends (before that, it is first contact: first_contact_test.go).
func TestPOSTToClosedPortIsRetried(t *testing.T) {
	counter := &countingTransport{next: http.DefaultTransport.(*http.Transport).Clone()}
	policy := fastRetry()
	c, srv := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) { cfg.Retry, cfg.Transport = policy, counter })
	if _, err := c.GetService(context.Background(), "svc1"); err != nil {
		t.Fatalf("first answer: %v", err)
	}
	srv.Close()
	counter.next.(*http.Transport).CloseIdleConnections() // the next attempt dials: the port is closed
	counter.n.Store(0)
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	// A connection that cannot be made is an outage: retried beyond MaxRetries, until the budget ends.
	if n := int(counter.n.Load()); n <= policy.MaxRetries+1 {
		t.Errorf("%d attempts, want more than MaxRetries+1 = %d", n, policy.MaxRetries+1)
	}
	var tErr *TransportError
	if !errors.As(err, &tErr) || !tErr.NotSent || !IsOutage(err) {
		t.Fatalf("error %T %v: want a *TransportError that was not sent", err, err)
	}
	if IsAmbiguous(err) {
		t.Errorf("a request that could not connect is not ambiguous")
	}
	if !strings.Contains(err.Error(), "could not connect") || !strings.Contains(err.Error(), `create service "db"`) {
		t.Errorf("Error() = %q", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Op != "dial" {
		t.Errorf("the dial error is not in the chain of %v", err)
	}
}

func TestPerRequestTimeout(t *testing.T) {
	slow := func(rec *recorder) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			rec.record(r)
			select {
			case <-r.Context().Done(): // the client gave up
			case <-time.After(5 * time.Second):
			}
		}
	}
	policy := &RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, MaxRetryAfter: time.Second, MaxElapsed: 700 * time.Millisecond}
	short := func(cfg *Config) { cfg.Timeout = 100 * time.Millisecond; cfg.Retry = policy }

	// An API that does not answer is an outage: a GET is retried until its budget runs out.
	t.Run("GET is retried", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, slow(rec), short)
		start := time.Now()
		_, err := c.GetService(context.Background(), "svc1")
		if n := int(rec.hits.Load()); n <= policy.MaxRetries+1 || !IsOutage(err) {
			t.Errorf("%d hits, want more than %d, and an outage: %v", n, policy.MaxRetries+1, err)
		}
		var tErr *TransportError
		if !errors.As(err, &tErr) {
			t.Fatalf("error %T %v: want a *TransportError", err, err)
		}
		var netErr net.Error
		if !errors.As(err, &netErr) || !netErr.Timeout() {
			t.Errorf("error %v is not a timeout", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("POST is not retried", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, slow(rec), short)
		_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
		if n := rec.hits.Load(); n != 1 {
			t.Errorf("%d hits, want 1", n)
		}
		var tErr *TransportError
		if !errors.As(err, &tErr) || tErr.NotSent || !IsAmbiguous(err) {
			t.Errorf("error %T %v: want an ambiguous *TransportError", err, err)
		}
	})
}

func TestContextCancelStopsRetries(t *testing.T) {
	t.Run("while waiting to retry", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			rec.record(r)
			writeJSON(w, 503, errorBody("UNAVAILABLE", "busy"))
		}, func(cfg *Config) {
			cfg.Retry = &RetryPolicy{MaxRetries: 5, WaitMin: 10 * time.Second, WaitMax: 10 * time.Second, MaxRetryAfter: time.Minute}
		})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.GetService(ctx, "svc1")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("cancellation took %v to stop the retries", d)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v is not context.Canceled", err)
		}
		if n := rec.hits.Load(); n != 1 {
			t.Errorf("%d hits, want 1", n)
		}
	})
	t.Run("during a request", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			rec.record(r)
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.GetService(ctx, "svc1")
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("deadline took %v to stop the request", d)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v is not context.DeadlineExceeded", err)
		}
		if n := rec.hits.Load(); n != 1 {
			t.Errorf("%d hits after the deadline, want 1", n)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { rec.record(r) })
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.CreateService(ctx, ServiceCreate{Name: "db"}); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v is not context.Canceled", err)
		}
		if n := rec.hits.Load(); n != 0 {
			t.Errorf("%d hits with a cancelled context", n)
		}
	})
}

// ---- the pure parts ----

func TestRetryDelaySchedule(t *testing.T) {
	const (
		minW     = time.Second
		maxW     = 10 * time.Second
		capAfter = 2 * time.Minute
	)
	almostOne := math.Nextafter(1, 0)
	cases := []struct {
		attempt    int
		retryAfter time.Duration
		rnd        float64
		want       time.Duration
	}{
		// base = min * 2^attempt, capped at max; jitter maps rnd in [0,1) to [50%, 100%) of base.
		{0, -1, 0, 500 * time.Millisecond},
		{0, -1, 0.5, 750 * time.Millisecond},
		{0, -1, almostOne, time.Second},
		{1, -1, 0, time.Second},
		{1, -1, almostOne, 2 * time.Second},
		{2, -1, 0, 2 * time.Second},
		{2, -1, almostOne, 4 * time.Second},
		{3, -1, 0, 4 * time.Second},
		{3, -1, almostOne, 8 * time.Second},
		{4, -1, 0, 5 * time.Second}, // 16s capped at 10s
		{4, -1, almostOne, 10 * time.Second},
		{10, -1, almostOne, 10 * time.Second},
		{63, -1, 0, 5 * time.Second},
		{5000, -1, almostOne, 10 * time.Second}, // 2^5000 is +Inf
		// Retry-After wins over the schedule, whatever the attempt, plus a jitter of up to half of it
		// (at least up to min), and the whole is capped.
		{0, 3 * time.Second, 0, 3 * time.Second},
		{5, 3 * time.Second, 0.5, 3750 * time.Millisecond},
		{5, 3 * time.Second, almostOne, 4500 * time.Millisecond},
		{0, 0, 0.7, 700 * time.Millisecond},
		{0, 0, 0, 0},
		{0, capAfter, 0, capAfter},
		{0, 5 * time.Minute, 0, capAfter},
		{2, 24 * time.Hour, almostOne, capAfter},
	}
	for _, tc := range cases {
		got := RetryDelay(tc.attempt, minW, maxW, tc.retryAfter, capAfter, tc.rnd)
		// rnd just below 1 lands a hair under the bound.
		if diff := tc.want - got; diff < 0 || diff > time.Microsecond {
			t.Errorf("RetryDelay(attempt %d, retryAfter %v, rnd %v) = %v, want %v", tc.attempt, tc.retryAfter, tc.rnd, got, tc.want)
		}
	}
}

func TestRetryDelayProperties(t *testing.T) {
	minW, maxW := 200*time.Millisecond, 5*time.Second
	for _, rnd := range []float64{0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999} {
		prev := time.Duration(0)
		for attempt := 0; attempt <= 20; attempt++ {
			base := time.Duration(math.Min(float64(minW)*math.Pow(2, float64(attempt)), float64(maxW)))
			got := RetryDelay(attempt, minW, maxW, -1, time.Minute, rnd)
			if got < base/2 || got > base {
				t.Errorf("attempt %d rnd %v: %v outside [%v, %v]", attempt, rnd, got, base/2, base)
			}
			if got < prev {
				t.Errorf("attempt %d rnd %v: %v shorter than the attempt before (%v)", attempt, rnd, got, prev)
			}
			if attempt > 0 && base < maxW && (got-2*prev < -time.Nanosecond || got-2*prev > time.Nanosecond) {
				t.Errorf("attempt %d rnd %v: %v is not twice %v", attempt, rnd, got, prev)
			}
			prev = got
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	resp := func(v string) *http.Response {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		return &http.Response{Header: h}
	}
	cases := map[string]time.Duration{
		"":     -1,
		"1":    time.Second,
		"0":    0,
		"-5":   -1,
		"soon": -1,
		"1.5":  -1,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	}
	for v, want := range cases {
		if got := parseRetryAfter(resp(v), now); got != want { //nolint:bodyclose // a header-only response
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
	if got := parseRetryAfter(resp("  30 "), now); got != 30*time.Second { //nolint:bodyclose // a header-only response
		t.Errorf("parseRetryAfter with spaces = %v", got)
	}
	if got := parseRetryAfter(nil, now); got != -1 {
		t.Errorf("parseRetryAfter(nil) = %v", got)
	}
}

func TestRetryAllowed(t *testing.T) {
	p := RetryPolicy{MaxRetries: 3, MaxElapsed: time.Minute}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline := start.Add(10 * time.Minute)
	cases := []struct {
		name        string
		policy      RetryPolicy
		outage      bool // a 429, 502, 503 or a failed connection: not counted
		failures    int
		now         time.Duration // since start
		hasDeadline bool
		delay       time.Duration
		want        bool
	}{
		{"failure within the count", p, false, 3, time.Second, false, time.Second, true},
		{"failure beyond the count", p, false, 4, time.Second, false, time.Second, false},
		{"429s are not counted", p, true, 0, 30 * time.Second, false, time.Second, true},
		{"an outage is not counted", p, true, 40, 30 * time.Second, false, time.Second, true},
		{"429 past MaxElapsed", p, true, 0, 59 * time.Second, false, 2 * time.Second, false},
		{"429 within the deadline, past MaxElapsed", p, true, 0, 5 * time.Minute, true, time.Second, true},
		{"429 whose wait ends at the deadline", p, true, 0, 10*time.Minute - time.Second, true, time.Second, false},
		{"failure past the deadline", p, false, 1, 10 * time.Minute, true, time.Millisecond, false},
		{"MaxRetries 0 turns 429 retries off", RetryPolicy{MaxRetries: 0}, true, 0, 0, false, 0, false},
		{"MaxElapsed 0 means the default", RetryPolicy{MaxRetries: 1}, true, 0, 4 * time.Minute, false, time.Second, true},
		{"MaxElapsed 0 means the default, exhausted", RetryPolicy{MaxRetries: 1}, true, 0, 5 * time.Minute, false, time.Second, false},
	}
	for _, c := range cases {
		got := retryAllowed(c.policy, c.outage, c.failures, start, start.Add(c.now), deadline, c.hasDeadline, c.delay)
		if got != c.want {
			t.Errorf("%s: retryAllowed = %v, want %v", c.name, got, c.want)
		}
	}
}

// A request that meets 429s keeps going for as long as its context allows, far beyond MaxRetries.
func TestRateLimitRetriesLastUntilTheDeadline(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if rec.record(r) <= 8 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
			return
		}
		writeJSON(w, 202, `{"service_id":"svc1","status":"QUEUED"}`)
	}, func(cfg *Config) { cfg.Limiter = LimiterConfig{MinRate: 1000, MaxRate: 2000} })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.CreateService(ctx, ServiceCreate{Name: "db"}); err != nil {
		t.Fatalf("CreateService: %v", err)
	}
	if n := int(rec.hits.Load()); n != 9 || n <= fastRetry().MaxRetries+1 {
		t.Errorf("%d hits, want 9 (8 answers of 429, then the create)", n)
	}
}

func TestShouldRetry(t *testing.T) {
	dialErr := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	dnsErr := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x"}}}
	bareDNS := &net.DNSError{Err: "no such host", Name: "x"}
	resetErr := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}}
	eofErr := &url.Error{Op: "Post", URL: "http://x", Err: io.EOF}
	certErr := &url.Error{Op: "Get", URL: "https://x", Err: &x509.UnknownAuthorityError{}}
	hostErr := &url.Error{Op: "Get", URL: "https://x", Err: x509.HostnameError{Host: "x", Certificate: &x509.Certificate{}}}
	schemeErr := &url.Error{Op: "Get", URL: "gopher://x", Err: errors.New("unsupported protocol scheme \"gopher\"")}
	wrappedDial := fmt.Errorf("after 1 attempt(s): %w", dialErr)

	type tc struct {
		method string
		status int
		err    error
		want   bool
	}
	cases := []tc{
		// answers
		{"POST", 429, nil, true}, {"GET", 429, nil, true}, {"DELETE", 429, nil, true},
		{"POST", 500, nil, false}, {"GET", 500, nil, true}, {"DELETE", 500, nil, true},
		{"POST", 502, nil, true}, {"POST", 503, nil, true}, {"POST", 504, nil, false}, // 502/503: refused, nothing done
		{"GET", 502, nil, true}, {"GET", 503, nil, true}, {"GET", 504, nil, true},
		{"DELETE", 502, nil, true}, {"DELETE", 503, nil, true}, {"DELETE", 504, nil, true},
		{"PUT", 503, nil, true}, {"HEAD", 503, nil, true},
		{"", 503, nil, true}, {"", 504, nil, false}, // unknown method: treated like POST
		{"GET", 200, nil, false}, {"POST", 202, nil, false}, {"GET", 404, nil, false}, {"POST", 409, nil, false},
		{"GET", 400, nil, false}, {"GET", 401, nil, false}, {"GET", 403, nil, false}, {"GET", 501, nil, false},
		// connection errors
		{"POST", 0, dialErr, true}, {"GET", 0, dialErr, true}, {"POST", 0, wrappedDial, true},
		{"POST", 0, dnsErr, true}, {"POST", 0, bareDNS, true},
		{"POST", 0, resetErr, false}, {"GET", 0, resetErr, true}, {"DELETE", 0, resetErr, true},
		{"POST", 0, eofErr, false}, {"GET", 0, eofErr, true},
		{"GET", 0, certErr, false}, {"GET", 0, hostErr, false}, {"GET", 0, schemeErr, false},
	}
	for _, c := range cases {
		var resp *http.Response
		if c.err == nil {
			resp = &http.Response{StatusCode: c.status, Header: http.Header{}}
		}
		v, err := shouldRetry(context.Background(), c.method, resp, c.err)
		// Every retried failure is an outage but a 500, which counts against MaxRetries.
		if got := v.retry; got != c.want || err != nil || (got && v.outage != (c.status != 500)) {
			t.Errorf("shouldRetry(%q, %d, %v) = %v, %v; want %v", c.method, c.status, c.err, got, err, c.want)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := shouldRetry(ctx, "GET", &http.Response{StatusCode: 503}, nil); got.retry || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: shouldRetry = %v, %v", got, err)
	}
	if got, err := shouldRetry(ctx, "POST", nil, dialErr); got.retry || err == nil {
		t.Errorf("cancelled context with a dial error: shouldRetry = %v, %v", got, err)
	}
}

func TestNotSent(t *testing.T) {
	if notSent(errors.New("x")) || notSent(io.EOF) || notSent(&net.OpError{Op: "read", Err: io.EOF}) {
		t.Errorf("notSent true for an error after sending")
	}
	// A real dial error from the standard library.
	resp, err := http.Get("http://" + closedAddr(t) + "/")
	if resp != nil {
		_ = resp.Body.Close()
	}
	if err == nil || !notSent(err) {
		t.Errorf("notSent(%v) = false for a refused connection", err)
	}
}

// A deadline met while a request waits to be retried gives the last answer (a 429 is not ambiguous);
// a deadline met while a POST is being sent again is ambiguous: it may have taken effect.
func TestDeadlineDuringRetries(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "10")
			writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
		}, func(cfg *Config) {
			cfg.Retry = &RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond, MaxRetryAfter: time.Minute, MaxElapsed: time.Hour}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := c.CreateService(ctx, ServiceCreate{Name: "db"})
		if !IsRateLimited(err) || IsAmbiguous(err) {
			t.Errorf("error %v: want the 429, not ambiguous", err)
		}
	})
	t.Run("while sending again", func(t *testing.T) {
		rec := &recorder{}
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if rec.record(r) == 1 {
				w.Header().Set("Retry-After", "0")
				writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
				return
			}
			<-r.Context().Done() // the second attempt hangs until the client gives up
		}, func(cfg *Config) { cfg.Limiter = LimiterConfig{MinRate: 1000, MaxRate: 2000} })
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := c.CreateService(ctx, ServiceCreate{Name: "db"})
		if n := rec.hits.Load(); n != 2 {
			t.Fatalf("%d hits, want 2", n)
		}
		if IsRateLimited(err) || !IsAmbiguous(err) {
			t.Errorf("error %v: a POST cut off while sent again must be ambiguous", err)
		}
	})
}
