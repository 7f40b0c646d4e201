package wait

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// DefaultProgressEvery is how often a long wait logs its elapsed time and last status at INFO.
const DefaultProgressEvery = time.Minute

// Backoff is the polling schedule of every waiter: the first poll comes after First, each later delay
// grows by Factor up to Max, and every delay is spread by +/- Jitter (a fraction) so that parallel
// applies do not poll in lockstep.
type Backoff struct {
	First  time.Duration
	Factor float64
	Max    time.Duration
	Jitter float64
	// Schedule, when set, replaces the fields above with the elapsed-time schedule (schedule.go).
	Schedule *Schedule
}

// DefaultBackoff is the production schedule: DefaultSchedule (schedule.go), whose interval grows with
// the time already waited.
var DefaultBackoff = Backoff{Schedule: &DefaultSchedule}

// Delay is the pure schedule: the wait before poll n (n = 0 is the wait before the second poll; the
// first poll is immediate), given rnd in [0,1) for the jitter.
func (b Backoff) Delay(n int, rnd float64) time.Duration {
	if b.Schedule != nil {
		return b.Schedule.delayN(n, rnd)
	}
	d := float64(b.First)
	for i := 0; i < n && d < float64(b.Max); i++ {
		d *= b.Factor
	}
	if b.Max > 0 && d > float64(b.Max) {
		d = float64(b.Max)
	}
	d *= 1 + b.Jitter*(2*rnd-1)
	if d < 0 {
		d = 0
	}
	return time.Duration(d)
}

// Clock is the waiter's time source; tests use a virtual one.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done, whichever is first.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// PollResult is what one poll saw.
type PollResult[T any] struct {
	Value  T
	Status string // for the user, e.g. "CONFIGURING"
	Done   bool
}

// Waiter polls until a condition holds, the timeout passes, or a terminal error occurs.
type Waiter[T any] struct {
	// What is waited for, in words: "service rp1pz7uyae to become READY".
	What string
	// Timeout bounds the wait; zero means until ctx's deadline.
	Timeout time.Duration
	Backoff Backoff
	// MaxTransient is how many transient errors in a row (429, 5xx, no answer) are tolerated.
	MaxTransient int
	Clock        Clock
	Rand         func() float64
	// ProgressEvery is how often the wait logs at INFO the elapsed time and the last status (each status
	// change is logged at once too); zero means DefaultProgressEvery. Only What, statuses and durations
	// are logged: never values, so never secrets.
	ProgressEvery time.Duration
	// Poll looks once. An error is terminal unless it is transient (see IsTransient); Stop(err)
	// ends the wait with err as it is.
	Poll func(ctx context.Context) (PollResult[T], error)
}

// TimeoutError says what was waited for, for how long, and the last status seen.
type TimeoutError struct {
	What       string
	Waited     time.Duration
	LastStatus string
	SeenFor    time.Duration
	Cause      error
}

func (e *TimeoutError) Error() string {
	last := "no status was seen"
	if e.LastStatus != "" {
		last = fmt.Sprintf("last status %s (seen for %s)", e.LastStatus, e.SeenFor.Round(time.Millisecond))
	}
	if errors.Is(e.Cause, context.Canceled) {
		return fmt.Sprintf("cancelled after %s while waiting for %s: %s", e.Waited.Round(time.Millisecond), e.What, last)
	}
	return fmt.Sprintf("timed out after %s waiting for %s: %s", e.Waited.Round(time.Millisecond), e.What, last)
}

func (e *TimeoutError) Unwrap() error { return e.Cause }

// stopError ends a wait at once with its error, even one that looks transient.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }

// Stop is what a Poll returns to end the wait with err itself (Wait returns err unwrapped). It
// keeps the waiter from retrying an error that looks transient but must not be repeated (a create
// answered 500) and from wrapping an error that already says everything.
func Stop(err error) error { return &stopError{err: err} }

// IsTransient reports whether a poll error is worth polling again: rate limiting, server errors and
// requests that got no answer.
func IsTransient(err error) bool {
	var tErr *api.TransportError
	if errors.As(err, &tErr) {
		return true
	}
	code := api.StatusCode(err)
	return code == 429 || code >= 500
}

// Wait runs the waiter.
func (w *Waiter[T]) Wait(ctx context.Context) (T, error) {
	run := w.start(ctx)
	var zero T
	transient := 0
	for n := 0; ; n++ {
		res, err := w.Poll(ctx)
		run.polls++
		var stop *stopError
		switch {
		case errors.As(err, &stop):
			return zero, stop.err
		case err == nil:
			transient = 0
			run.observe(ctx, res.Status)
			if res.Done {
				return res.Value, nil
			}
		case ctx.Err() != nil:
			return zero, run.timeout(ctx.Err())
		case IsTransient(err) && transient < w.MaxTransient:
			transient++
		case run.lastStatus != "":
			return zero, fmt.Errorf("while waiting for %s (last status %s): %w", w.What, run.lastStatus, err)
		default:
			return zero, fmt.Errorf("while waiting for %s: %w", w.What, err)
		}
		delay := w.Backoff.DelayAt(n, run.clock.Now().Sub(run.begin), run.rnd())
		if !run.deadline.IsZero() {
			left := run.deadline.Sub(run.clock.Now())
			if left <= 0 {
				return zero, run.timeout(nil)
			}
			delay = min(delay, left)
		}
		if err := run.clock.Sleep(ctx, delay); err != nil {
			return zero, run.timeout(err)
		}
		run.progress(ctx)
	}
}

// waitRun is one Wait under way: its clock, deadline and what it has seen.
type waitRun struct {
	what         string
	clock        Clock
	rnd          func() float64
	begin        time.Time
	deadline     time.Time
	every        time.Duration
	lastStatus   string
	statusSince  time.Time
	polls        int
	lastProgress time.Time
}

func (w *Waiter[T]) start(ctx context.Context) *waitRun {
	run := &waitRun{what: w.What, clock: w.Clock, rnd: w.Rand, every: w.ProgressEvery}
	if run.clock == nil {
		run.clock = realClock{}
	}
	if run.rnd == nil {
		run.rnd = rand.Float64 //nolint:gosec // jitter, not security
	}
	if run.every <= 0 {
		run.every = DefaultProgressEvery
	}
	run.begin = run.clock.Now()
	run.lastProgress = run.begin
	if w.Timeout > 0 {
		run.deadline = run.begin.Add(w.Timeout)
	} else if d, ok := ctx.Deadline(); ok {
		run.deadline = d
	}
	return run
}

// observe logs a status change (and the first status) at INFO.
func (r *waitRun) observe(ctx context.Context, status string) {
	if status == r.lastStatus && r.polls != 1 {
		return
	}
	now := r.clock.Now()
	tflog.Info(ctx, fmt.Sprintf("waiting for %s: status %s (was %s, after %s)", r.what, orNone(status),
		orNone(r.lastStatus), now.Sub(r.begin).Round(time.Second)), map[string]any{
		"what": r.what, "status": status, "previous_status": r.lastStatus,
		"elapsed": now.Sub(r.begin).Round(time.Second).String(),
	})
	r.lastStatus, r.statusSince = status, now
	reportStatus(ctx, r.what, status)
}

// progress logs the elapsed time and the last status every r.every.
func (r *waitRun) progress(ctx context.Context) {
	now := r.clock.Now()
	if now.Sub(r.lastProgress) < r.every {
		return
	}
	r.lastProgress = now
	tflog.Info(ctx, fmt.Sprintf("still waiting for %s: %s elapsed, last status %s", r.what,
		now.Sub(r.begin).Round(time.Second), orNone(r.lastStatus)), map[string]any{
		"what": r.what, "elapsed": now.Sub(r.begin).Round(time.Second).String(), "last_status": r.lastStatus,
		"status_for": now.Sub(r.statusSince).Round(time.Second).String(), "polls": r.polls,
	})
}

// timeout is the error of a wait that ran out of time or was cancelled (cause).
func (r *waitRun) timeout(cause error) error {
	now := r.clock.Now()
	e := &TimeoutError{What: r.what, Waited: now.Sub(r.begin), LastStatus: r.lastStatus, Cause: cause}
	if r.lastStatus != "" {
		e.SeenFor = now.Sub(r.statusSince)
	}
	return e
}

func orNone(status string) string {
	if status == "" {
		return "(none yet)"
	}
	return status
}

// statusReporterKey carries, in a context, a function told each status a waiter sees change (an
// action's progress messages); see WithStatusReporter.
type statusReporterKey struct{}

// WithStatusReporter makes every waiter under ctx call report(what, status) when the status it sees
// changes (and on its first poll). Only what is waited for and the status are passed: never values.
func WithStatusReporter(ctx context.Context, report func(what, status string)) context.Context {
	return context.WithValue(ctx, statusReporterKey{}, report)
}

func reportStatus(ctx context.Context, what, status string) {
	if report, ok := ctx.Value(statusReporterKey{}).(func(what, status string)); ok && status != "" {
		report(what, status)
	}
}
