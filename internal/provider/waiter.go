package provider

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
	// Poll looks once. An error is terminal unless it is transient (see IsTransient); stopWaiting(err)
	// ends the wait with err as it is.
	Poll func(ctx context.Context) (PollResult[T], error)
}

// WaitTimeoutError says what was waited for, for how long, and the last status seen.
type WaitTimeoutError struct {
	What       string
	Waited     time.Duration
	LastStatus string
	SeenFor    time.Duration
	Cause      error
}

func (e *WaitTimeoutError) Error() string {
	last := "no status was seen"
	if e.LastStatus != "" {
		last = fmt.Sprintf("last status %s (seen for %s)", e.LastStatus, e.SeenFor.Round(time.Millisecond))
	}
	if errors.Is(e.Cause, context.Canceled) {
		return fmt.Sprintf("cancelled after %s while waiting for %s: %s", e.Waited.Round(time.Millisecond), e.What, last)
	}
	return fmt.Sprintf("timed out after %s waiting for %s: %s", e.Waited.Round(time.Millisecond), e.What, last)
}

func (e *WaitTimeoutError) Unwrap() error { return e.Cause }

// stopError ends a wait at once with its error, even one that looks transient.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }

// stopWaiting is what a Poll returns to end the wait with err itself (Wait returns err unwrapped). It
// keeps the waiter from retrying an error that looks transient but must not be repeated (a create
// answered 500) and from wrapping an error that already says everything.
func stopWaiting(err error) error { return &stopError{err: err} }

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
	clock := w.Clock
	if clock == nil {
		clock = realClock{}
	}
	rnd := w.Rand
	if rnd == nil {
		rnd = rand.Float64 //nolint:gosec // jitter, not security
	}
	start := clock.Now()
	var deadline time.Time
	if w.Timeout > 0 {
		deadline = start.Add(w.Timeout)
	} else if d, ok := ctx.Deadline(); ok {
		deadline = d
	}
	var (
		zero         T
		lastStatus   string
		statusSince  time.Time
		transient    int
		polls        int
		lastProgress = start
	)
	every := w.ProgressEvery
	if every <= 0 {
		every = DefaultProgressEvery
	}
	progress := func(now time.Time) {
		if now.Sub(lastProgress) < every {
			return
		}
		lastProgress = now
		tflog.Info(ctx, fmt.Sprintf("still waiting for %s: %s elapsed, last status %s", w.What,
			now.Sub(start).Round(time.Second), orNone(lastStatus)), map[string]any{
			"what": w.What, "elapsed": now.Sub(start).Round(time.Second).String(), "last_status": lastStatus,
			"status_for": now.Sub(statusSince).Round(time.Second).String(), "polls": polls,
		})
	}
	timeout := func(cause error) (T, error) {
		now := clock.Now()
		e := &WaitTimeoutError{What: w.What, Waited: now.Sub(start), LastStatus: lastStatus, Cause: cause}
		if lastStatus != "" {
			e.SeenFor = now.Sub(statusSince)
		}
		return zero, e
	}
	for n := 0; ; n++ {
		res, err := w.Poll(ctx)
		polls++
		var stop *stopError
		switch {
		case errors.As(err, &stop):
			return zero, stop.err
		case err == nil:
			transient = 0
			if res.Status != lastStatus || polls == 1 {
				now := clock.Now()
				tflog.Info(ctx, fmt.Sprintf("waiting for %s: status %s (was %s, after %s)", w.What, orNone(res.Status),
					orNone(lastStatus), now.Sub(start).Round(time.Second)), map[string]any{
					"what": w.What, "status": res.Status, "previous_status": lastStatus,
					"elapsed": now.Sub(start).Round(time.Second).String(),
				})
				lastStatus, statusSince = res.Status, now
				reportStatus(ctx, w.What, res.Status)
			}
			if res.Done {
				return res.Value, nil
			}
		case ctx.Err() != nil:
			return timeout(ctx.Err())
		case IsTransient(err) && transient < w.MaxTransient:
			transient++
		default:
			if lastStatus != "" {
				return zero, fmt.Errorf("while waiting for %s (last status %s): %w", w.What, lastStatus, err)
			}
			return zero, fmt.Errorf("while waiting for %s: %w", w.What, err)
		}
		delay := w.Backoff.DelayAt(n, clock.Now().Sub(start), rnd())
		if !deadline.IsZero() {
			left := deadline.Sub(clock.Now())
			if left <= 0 {
				return timeout(nil)
			}
			if delay > left {
				delay = left
			}
		}
		if err := clock.Sleep(ctx, delay); err != nil {
			return timeout(err)
		}
		progress(clock.Now())
	}
}

func orNone(status string) string {
	if status == "" {
		return "(none yet)"
	}
	return status
}

// statusReporterKey carries, in a context, a function told each status a waiter sees change (an
// action's progress messages); see withStatusReporter.
type statusReporterKey struct{}

// withStatusReporter makes every waiter under ctx call report(what, status) when the status it sees
// changes (and on its first poll). Only what is waited for and the status are passed: never values.
func withStatusReporter(ctx context.Context, report func(what, status string)) context.Context {
	return context.WithValue(ctx, statusReporterKey{}, report)
}

func reportStatus(ctx context.Context, what, status string) {
	if report, ok := ctx.Value(statusReporterKey{}).(func(what, status string)); ok && status != "" {
		report(what, status)
	}
}
