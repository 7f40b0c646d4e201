package api

import (
	"context"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestLimiterStartsOpen(t *testing.T) {
	l := NewLimiter(LimiterConfig{})
	for i := range 1000 {
		if d := l.reserve(at(time.Duration(i)*time.Microsecond), PriorityPoll); d != 0 {
			t.Fatalf("request %d waits %v on an open limiter", i, d)
		}
	}
	l.observe(at(time.Second), http.StatusOK, -1)
	if s := l.State(); !math.IsInf(s.Rate, 1) || s.Cuts != 0 {
		t.Errorf("state %+v after successes", s)
	}
}

func TestLimiterFirst429HalvesTheObservedRateAndPausesEveryone(t *testing.T) {
	l := NewLimiter(LimiterConfig{MinRate: 0.5, MaxRate: 100, Increase: 1, Window: time.Second})
	// 20 requests go out within the last second.
	for i := range 20 {
		l.reserve(at(time.Duration(i)*50*time.Millisecond), PriorityWrite)
	}
	now := at(time.Second)
	l.observe(now, http.StatusTooManyRequests, 2*time.Second)
	s := l.State()
	if s.Rate != 10 || s.Cuts != 1 || !s.PauseUntil.Equal(now.Add(2*time.Second)) || l.ceiling != 20 {
		t.Fatalf("state %+v, want rate 10 (20/s halved), one cut, a pause of 2s", s)
	}
	// Every priority waits out the pause.
	for p := range numPriorities {
		if d := l.reserve(now.Add(500*time.Millisecond), p); d != 1500*time.Millisecond {
			t.Errorf("%v waits %v during the pause, want 1.5s", p, d)
		}
	}
	// 429s that arrive together with the first count once.
	l.observe(now.Add(100*time.Millisecond), http.StatusTooManyRequests, 0)
	l.observe(now.Add(200*time.Millisecond), http.StatusTooManyRequests, time.Second)
	if s := l.State(); s.Rate != 10 || s.Cuts != 1 || !s.PauseUntil.Equal(now.Add(2*time.Second)) {
		t.Errorf("state %+v: 429s of the same burst must halve once and never shorten the pause", s)
	}
	// After the pause the bucket spaces requests at the rate: one every 100ms.
	after := now.Add(2 * time.Second)
	if d := l.reserve(after, PriorityWrite); d != 0 {
		t.Fatalf("first request after the pause waits %v", d)
	}
	if d := l.reserve(after, PriorityWrite); d != 100*time.Millisecond {
		t.Errorf("second request at once waits %v, want 100ms", d)
	}
	if d := l.reserve(after.Add(100*time.Millisecond), PriorityWrite); d != 0 {
		t.Errorf("request 100ms later waits %v", d)
	}
	// A later 429 halves again.
	l.observe(after.Add(5*time.Second), http.StatusTooManyRequests, -1)
	if s := l.State(); s.Rate != 5 || s.Cuts != 2 {
		t.Errorf("state %+v, want rate 5 after a second congestion", s)
	}
}

func TestLimiterRateFloorAndRecovery(t *testing.T) {
	l := NewLimiter(LimiterConfig{MinRate: 2, MaxRate: 8, Increase: 4, Window: time.Second})
	l.observe(at(0), http.StatusTooManyRequests, -1) // nothing was sent: the floor
	if s := l.State(); s.Rate != 2 {
		t.Fatalf("rate %v, want the floor 2", s.Rate)
	}
	// Additive increase: each answer adds Increase/rate, so about Increase per second of answers.
	l.observe(at(time.Second), http.StatusOK, -1)
	if s := l.State(); s.Rate != 4 {
		t.Fatalf("rate %v after one answer, want 2 + 4/2 = 4", s.Rate)
	}
	l.observe(at(time.Second), 0, -1) // no answer: no information
	if s := l.State(); s.Rate != 4 {
		t.Fatalf("rate %v after a connection error", s.Rate)
	}
	// Within 10% of the rate that met the 429 (here the floor's double, 4), it grows 8 times slower.
	l.observe(at(2*time.Second), http.StatusAccepted, -1)
	if s := l.State(); s.Rate != 4.125 {
		t.Fatalf("rate %v, want 4 + 4/4/8 = 4.125", s.Rate)
	}
	for range 200 {
		l.observe(at(2*time.Second), http.StatusAccepted, -1)
	}
	if s := l.State(); !math.IsInf(s.Rate, 1) {
		t.Errorf("rate %v: above MaxRate the limiter opens", s.Rate)
	}
}

func TestLimiterPriorities(t *testing.T) {
	l := NewLimiter(LimiterConfig{MinRate: 10, Window: time.Second})
	l.observe(at(0), http.StatusTooManyRequests, -1) // rate 10/s, bucket empty
	now := at(time.Second)                           // the bucket holds one token
	l.waiting[PriorityWrite] = 1
	l.waiting[PriorityPoll] = 1
	if d := l.reserve(now, PriorityPoll); d <= 0 {
		t.Errorf("a poll took the token while a write waited")
	}
	if d := l.reserve(now, PriorityRead); d <= 0 {
		t.Errorf("a read took the token while a write waited")
	}
	if d := l.reserve(now, PriorityWrite); d != 0 {
		t.Errorf("the write waits %v", d)
	}
	l.waiting[PriorityWrite] = 0
	if d := l.reserve(now.Add(100*time.Millisecond), PriorityPoll); d != 0 {
		t.Errorf("the poll waits %v once no write waits", d)
	}
}

// Under a shared limit, writes that wait go before the polls that wait with them.
func TestLimiterWaitOrdersWritesBeforePolls(t *testing.T) {
	l := NewLimiter(LimiterConfig{MinRate: 50, MaxRate: 1000})
	l.Observe(http.StatusTooManyRequests, -1) // 50/s from now on
	// Hold every turn until all ten wait: otherwise a busy machine that starts a write goroutine more
	// than a turn (20ms) after the polls lets the polls take the turns before the write is counted.
	l.mu.Lock()
	l.pauseUntil = time.Now().Add(time.Hour)
	l.mu.Unlock()
	var order []Priority
	var mu sync.Mutex
	var wg sync.WaitGroup
	var ready atomic.Int32
	start := make(chan struct{})
	for i := range 10 {
		p := PriorityPoll
		if i%2 == 0 {
			p = PriorityWrite
		}
		wg.Go(func() {
			ready.Add(1)
			<-start
			if err := l.Wait(context.Background(), p); err != nil {
				t.Error(err)
			}
			mu.Lock()
			order = append(order, p)
			mu.Unlock()
		})
	}
	for ready.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	close(start)
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.mu.Lock()
		n := l.waiting[PriorityWrite] + l.waiting[PriorityPoll]
		if n == 10 || time.Now().After(deadline) {
			l.pauseUntil = time.Time{}
			l.mu.Unlock()
			break
		}
		l.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	// The first turn may go to a poll that asks before the writes are counted; after that, the five
	// writes pass before the other polls.
	lastWrite := -1
	for i, p := range order {
		if p == PriorityWrite {
			lastWrite = i
		}
	}
	if lastWrite > 5 {
		t.Errorf("order %v: the writes did not go first (last write at %d)", order, lastWrite)
	}
}

func TestLimiterWaitHonoursContext(t *testing.T) {
	l := NewLimiter(LimiterConfig{})
	l.Observe(http.StatusTooManyRequests, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := l.Wait(ctx, PriorityWrite); err == nil {
		t.Fatal("Wait returned during an hour-long pause")
	}
}

func TestPriorityOf(t *testing.T) {
	ctx := context.Background()
	poll := WithPoll(ctx)
	cases := []struct {
		ctx    context.Context
		method string
		want   Priority
	}{
		{ctx, "GET", PriorityRead}, {poll, "GET", PriorityPoll},
		{ctx, "POST", PriorityWrite}, {poll, "POST", PriorityWrite}, {poll, "DELETE", PriorityWrite},
	}
	for _, c := range cases {
		if got := priorityOf(c.ctx, c.method); got != c.want {
			t.Errorf("priorityOf(%s) = %v, want %v", c.method, got, c.want)
		}
	}
}

// Many concurrent requests of one client against a server that admits 20 per second: every one
// succeeds, and the shared limiter keeps the 429s to a fraction of the requests.
func TestConcurrentRequestsSlowDownTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about two seconds")
	}
	var mu sync.Mutex
	var next time.Time
	var hits, limited atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mu.Lock()
		now := time.Now()
		ok := !now.Before(next)
		if ok {
			next = now.Add(50 * time.Millisecond)
		}
		mu.Unlock()
		if !ok {
			limited.Add(1)
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, errorBody("RATE_LIMITED", "slow down"))
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) {
		cfg.Retry = &RetryPolicy{MaxRetries: 3, WaitMin: 5 * time.Millisecond, WaitMax: 50 * time.Millisecond, MaxRetryAfter: time.Second}
		cfg.Limiter = LimiterConfig{MinRate: 5, MaxRate: 200, Increase: 5}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			if _, err := c.GetService(ctx, "svc1"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	t.Logf("30 reads: %d requests, %d answered 429", hits.Load(), limited.Load())
	// The first burst meets 29 answers of 429 (the limiter opens only at the first); after that the
	// shared limiter keeps them rare. Retrying each request on its own would meet hundreds.
	if limited.Load() > 29+15 {
		t.Errorf("%d of %d requests answered 429: the client did not slow down", limited.Load(), hits.Load())
	}
}
