package api

import (
	"context"
	"math"
	"net/http"
	"sync"
	"time"
)

// Priority orders requests that wait for the client's shared limiter: when requests of several
// priorities wait, the highest goes first, so that status polls never crowd out creates and deletes.
type Priority int

const (
	// PriorityPoll is a GET sent by a wait loop (see WithPoll): it can always wait a little longer.
	PriorityPoll Priority = iota
	// PriorityRead is any other GET (refresh, data sources).
	PriorityRead
	// PriorityWrite is a request that changes something (POST, DELETE, ...).
	PriorityWrite
	numPriorities
)

func (p Priority) String() string {
	switch p {
	case PriorityPoll:
		return "poll"
	case PriorityRead:
		return "read"
	case PriorityWrite:
		return "write"
	}
	return "unknown"
}

type pollKey struct{}

// WithPoll marks the GETs sent with ctx as status polls of a wait loop: under a rate limit they wait
// behind reads and writes. Other methods sent with ctx keep their priority.
func WithPoll(ctx context.Context) context.Context {
	return context.WithValue(ctx, pollKey{}, true)
}

// priorityOf is the priority of a request of method sent with ctx.
func priorityOf(ctx context.Context, method string) Priority {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if poll, _ := ctx.Value(pollKey{}).(bool); poll {
			return PriorityPoll
		}
		return PriorityRead
	}
	return PriorityWrite
}

// LimiterConfig tunes the adaptive limiter.
type LimiterConfig struct {
	// MinRate is the lowest rate (requests per second) a series of 429s can bring the limiter to.
	MinRate float64
	// MaxRate: once the rate has recovered above it, the limiter stops limiting until the next 429.
	MaxRate float64
	// Increase is how many requests per second the rate regains per second of answers that are not 429.
	Increase float64
	// Window is how far back the limiter looks to estimate the rate at which requests went out when
	// the first 429 arrives (the rate is then halved from that estimate).
	Window time.Duration
}

// DefaultLimiterConfig is the limiter's tuning when Config leaves it empty.
var DefaultLimiterConfig = LimiterConfig{MinRate: 1, MaxRate: 100, Increase: 0.5, Window: time.Second}

// Limiter is the shared, adaptive gate every request of one Client passes before each attempt.
//
// It starts open. A 429 closes the gate for everyone until the Retry-After has passed (a shared
// pause), and halves the rate (once per congestion: 429s that arrive together count once); a token
// bucket then spaces requests at that rate. Every answer that is not a 429 raises the rate again by
// about Increase per second (additive increase, multiplicative decrease, as TCP does), more slowly
// once near the rate that met the last 429, and above MaxRate the limiter opens again. While the gate is narrow, higher priorities go first.
//
// The logic is in reserve and observe, which take the time as an argument so that tests need no
// clock; Wait and Observe are their real-time faces.
type Limiter struct {
	cfg LimiterConfig

	mu         sync.Mutex
	rate       float64 // requests per second; +Inf when open
	tokens     float64 // in [0, 1]: burst of one
	last       time.Time
	pauseUntil time.Time
	lastCut    time.Time
	ceiling    float64     // the rate at the last 429: near it, the rate grows slowly
	sent       []time.Time // send times within cfg.Window, while open
	waiting    [numPriorities]int
	cuts       int
}

// NewLimiter returns an open limiter.
func NewLimiter(cfg LimiterConfig) *Limiter {
	d := DefaultLimiterConfig
	if cfg.MinRate <= 0 {
		cfg.MinRate = d.MinRate
	}
	if cfg.MaxRate <= 0 {
		cfg.MaxRate = d.MaxRate
	}
	if cfg.Increase <= 0 {
		cfg.Increase = d.Increase
	}
	if cfg.Window <= 0 {
		cfg.Window = d.Window
	}
	return &Limiter{cfg: cfg, rate: math.Inf(1)}
}

// LimiterState is a snapshot for logs and tests.
type LimiterState struct {
	Rate       float64 // +Inf when open
	PauseUntil time.Time
	Cuts       int // how many times a 429 halved the rate
}

// State returns a snapshot of the limiter.
func (l *Limiter) State() LimiterState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LimiterState{Rate: l.rate, PauseUntil: l.pauseUntil, Cuts: l.cuts}
}

// pollInterval bounds how long a waiter sleeps before it looks again: priorities and the rate change
// while it sleeps.
const pollInterval = 50 * time.Millisecond

// Wait blocks until a request of priority p may go, or ctx is done.
func (l *Limiter) Wait(ctx context.Context, p Priority) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	l.waiting[p]++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting[p]--
		l.mu.Unlock()
	}()
	for {
		d := l.reserve(time.Now(), p)
		if d <= 0 {
			return nil
		}
		if err := sleepCtx(ctx, min(d, pollInterval)); err != nil {
			return err
		}
	}
}

// reserve takes a turn for a request of priority p at now (0), or says how long to wait before
// asking again. The caller counts itself in waiting[p] while it asks.
func (l *Limiter) reserve(now time.Time, p Priority) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.pauseUntil) {
		return l.pauseUntil.Sub(now)
	}
	if math.IsInf(l.rate, 1) {
		l.recordSentLocked(now)
		return 0
	}
	l.refillLocked(now)
	for q := p + 1; q < numPriorities; q++ {
		if l.waiting[q] > 0 {
			// Someone more urgent waits: let them have the next token.
			return l.intervalLocked()
		}
	}
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	return time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
}

func (l *Limiter) intervalLocked() time.Duration {
	return max(time.Duration(float64(time.Second)/l.rate), time.Millisecond)
}

func (l *Limiter) refillLocked(now time.Time) {
	if !l.last.IsZero() && now.After(l.last) {
		l.tokens = math.Min(1, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	}
	if l.last.IsZero() || now.After(l.last) {
		l.last = now
	}
}

func (l *Limiter) recordSentLocked(now time.Time) {
	cutoff := now.Add(-l.cfg.Window)
	i := 0
	for i < len(l.sent) && l.sent[i].Before(cutoff) {
		i++
	}
	l.sent = append(l.sent[i:], now)
}

// Observe feeds the limiter an answer: its status (0 for none) and its Retry-After (-1 if absent).
func (l *Limiter) Observe(status int, retryAfter time.Duration) {
	l.observe(time.Now(), status, retryAfter)
}

func (l *Limiter) observe(now time.Time, status int, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if status != http.StatusTooManyRequests {
		if status == 0 || math.IsInf(l.rate, 1) {
			return
		}
		// Additive increase: about cfg.Increase more requests per second for each second of answers,
		// an eighth of that once within 10% of the rate that met the last 429 (probe gently there).
		inc := l.cfg.Increase / l.rate
		if l.rate >= 0.9*l.ceiling {
			inc /= 8
		}
		l.rate += inc
		if l.rate > l.cfg.MaxRate {
			l.rate = math.Inf(1)
			l.sent = l.sent[:0]
		}
		return
	}
	if retryAfter > 0 {
		if until := now.Add(retryAfter); until.After(l.pauseUntil) {
			l.pauseUntil = until
		}
	}
	// 429s answered to requests sent together are one congestion: halve once per interval.
	if !l.lastCut.IsZero() && !math.IsInf(l.rate, 1) && now.Sub(l.lastCut) < max(time.Second, l.intervalLocked()) {
		return
	}
	if math.IsInf(l.rate, 1) {
		l.ceiling = l.sentRateLocked(now)
	} else {
		l.ceiling = l.rate
	}
	l.ceiling = math.Max(l.ceiling, 2*l.cfg.MinRate)
	l.rate = l.ceiling / 2
	l.rate = math.Max(l.rate, l.cfg.MinRate)
	l.tokens = 0
	l.last = now
	l.lastCut = now
	l.cuts++
}

// sentRateLocked estimates the rate at which requests went out over the window, while open.
func (l *Limiter) sentRateLocked(now time.Time) float64 {
	cutoff := now.Add(-l.cfg.Window)
	n := 0
	for _, t := range l.sent {
		if !t.Before(cutoff) {
			n++
		}
	}
	return float64(n) / l.cfg.Window.Seconds()
}

// sleepCtx waits for d or until ctx is done (then it returns ctx's error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
