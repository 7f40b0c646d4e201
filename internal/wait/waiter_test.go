package wait

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// virtualClock advances only when the waiter sleeps, so schedules are tested without real time.
type virtualClock struct {
	now    time.Time
	sleeps []time.Duration
}

func (c *virtualClock) Now() time.Time { return c.now }

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func TestBackoffDelaySchedule(t *testing.T) {
	b := Backoff{First: time.Second, Factor: 2, Max: 10 * time.Second, Jitter: 0.2}
	mid := 0.5 // rnd 0.5 means no jitter
	want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for n, w := range want {
		if got := b.Delay(n, mid); got != w {
			t.Errorf("Delay(%d) = %s, want %s", n, got, w)
		}
	}
	// Jitter spreads by +/-20%.
	if got := b.Delay(0, 0); got != 800*time.Millisecond {
		t.Errorf("Delay(0, rnd=0) = %s, want 800ms", got)
	}
	if got := b.Delay(10, 0.999999); got < 11990*time.Millisecond || got > 12*time.Second {
		t.Errorf("Delay(10, rnd~1) = %s, want ~12s (cap 10s + 20%%)", got)
	}
	// Huge attempt numbers do not overflow.
	if got := b.Delay(1_000_000, mid); got != 10*time.Second {
		t.Errorf("Delay(1e6) = %s, want the cap", got)
	}
	// Default schedule: first poll soon, a cap of seconds, not minutes.
	if d := DefaultBackoff.Delay(0, 0.5); d > 2*time.Second {
		t.Errorf("default first delay %s is too slow for a fast API", d)
	}
	if d := DefaultBackoff.Delay(100, 0.5); d > 30*time.Second || d < 5*time.Second {
		t.Errorf("default cap %s out of range", d)
	}
}

func statusPoller(statuses []string, done string) (func(context.Context) (PollResult[string], error), *int) {
	calls := 0
	return func(context.Context) (PollResult[string], error) {
		s := statuses[min(calls, len(statuses)-1)]
		calls++
		return PollResult[string]{Value: s, Status: s, Done: s == done}, nil
	}, &calls
}

func TestWaiterSucceedsWithVirtualClock(t *testing.T) {
	clock := &virtualClock{now: time.Unix(0, 0)}
	poll, calls := statusPoller([]string{"QUEUED", "QUEUED", "CONFIGURING", "READY"}, "READY")
	w := Waiter[string]{What: "service x to become READY", Timeout: time.Minute,
		Backoff: Backoff{First: time.Second, Factor: 2, Max: 8 * time.Second}, Clock: clock, Rand: func() float64 { return 0.5 }, Poll: poll}
	got, err := w.Wait(context.Background())
	if err != nil || got != "READY" {
		t.Fatalf("Wait = %q, %v", got, err)
	}
	if *calls != 4 {
		t.Errorf("polls = %d, want 4", *calls)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(clock.sleeps) != len(want) {
		t.Fatalf("sleeps = %v, want %v", clock.sleeps, want)
	}
	for i := range want {
		if clock.sleeps[i] != want[i] {
			t.Errorf("sleep %d = %s, want %s", i, clock.sleeps[i], want[i])
		}
	}
}

func TestWaiterTimeoutReportsLastStatus(t *testing.T) {
	clock := &virtualClock{now: time.Unix(0, 0)}
	poll, _ := statusPoller([]string{"QUEUED", "CONFIGURING"}, "READY")
	w := Waiter[string]{What: "service x to become READY", Timeout: 30 * time.Second,
		Backoff: Backoff{First: time.Second, Factor: 2, Max: 8 * time.Second}, Clock: clock, Rand: func() float64 { return 0.5 }, Poll: poll}
	_, err := w.Wait(context.Background())
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("want a TimeoutError, got %v", err)
	}
	if te.LastStatus != "CONFIGURING" || te.Waited != 30*time.Second || te.SeenFor != 29*time.Second {
		t.Errorf("timeout error = %+v", te)
	}
	for _, s := range []string{"timed out after 30s", "service x to become READY", "last status CONFIGURING", "seen for 29s"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %q", err.Error(), s)
		}
	}
	// The last sleep is trimmed to the deadline: the waiter never oversleeps its timeout.
	var total time.Duration
	for _, s := range clock.sleeps {
		total += s
	}
	if total != 30*time.Second {
		t.Errorf("slept %s in all, want exactly the 30s timeout", total)
	}
}

func TestWaiterToleratesTransientErrors(t *testing.T) {
	clock := &virtualClock{now: time.Unix(0, 0)}
	calls := 0
	errs := []error{
		&api.APIError{Operation: "get service x", StatusCode: 503},
		&api.TransportError{Operation: "get service x", Err: errors.New("connection reset")},
		&api.APIError{Operation: "get service x", StatusCode: 429},
	}
	w := Waiter[string]{What: "x", Timeout: time.Hour, MaxTransient: 3, Backoff: Backoff{First: time.Second, Factor: 1}, Clock: clock,
		Poll: func(context.Context) (PollResult[string], error) {
			calls++
			if calls <= len(errs) {
				return PollResult[string]{}, errs[calls-1]
			}
			return PollResult[string]{Value: "ok", Status: "READY", Done: true}, nil
		}}
	if _, err := w.Wait(context.Background()); err != nil {
		t.Fatalf("3 transient errors with MaxTransient 3 must be tolerated: %v", err)
	}
	// One more than tolerated fails, and says what it was waiting for.
	calls = 0
	w.MaxTransient = 2
	_, err := w.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "while waiting for x") || api.StatusCode(err) != 429 {
		t.Fatalf("want the third transient error to fail the wait, got %v", err)
	}
}

func TestWaiterTerminalErrorStopsAtOnce(t *testing.T) {
	clock := &virtualClock{now: time.Unix(0, 0)}
	calls := 0
	w := Waiter[string]{What: "x", Timeout: time.Hour, MaxTransient: 5, Backoff: Backoff{First: time.Second}, Clock: clock,
		Poll: func(context.Context) (PollResult[string], error) {
			calls++
			if calls == 1 {
				return PollResult[string]{Status: "creating"}, nil
			}
			return PollResult[string]{}, &api.APIError{Operation: "get", StatusCode: 400, Message: "bad"}
		}}
	_, err := w.Wait(context.Background())
	if calls != 2 || !api.IsBadRequest(err) || !strings.Contains(err.Error(), "last status creating") {
		t.Fatalf("calls=%d err=%v", calls, err)
	}
}

func TestWaiterCancellationIsNotATimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	w := Waiter[string]{What: "service z to become READY", Backoff: Backoff{First: time.Millisecond, Factor: 1},
		Poll: func(context.Context) (PollResult[string], error) {
			calls++
			if calls == 2 {
				cancel() // Ctrl-C while waiting
			}
			return PollResult[string]{Status: "QUEUED"}, nil
		}}
	_, err := w.Wait(ctx)
	if err == nil || !strings.HasPrefix(err.Error(), "cancelled after") || !strings.Contains(err.Error(), "last status QUEUED") {
		t.Fatalf("want a cancellation message with the last status, got %v", err)
	}
}

func TestWaiterHonoursContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	poll, _ := statusPoller([]string{"CONFIGURING"}, "READY")
	w := Waiter[string]{What: "service y to become READY", Backoff: Backoff{First: 5 * time.Millisecond, Factor: 1}, Poll: poll}
	start := time.Now()
	_, err := w.Wait(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || te.LastStatus != "CONFIGURING" {
		t.Fatalf("want a timeout with the last status, got %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("wait overran its deadline: %s", el)
	}
}

// Every status change is logged at INFO at once, and during a long wait about every minute the elapsed
// time and the last status; the log holds what is waited for, statuses and durations only.
func TestWaiterLogsProgress(t *testing.T) {
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	clock := &virtualClock{now: time.Unix(0, 0)}
	// 10s polls: QUEUED for 3 minutes, CONFIGURING for 1 minute, then READY.
	var statuses []string
	for range 18 {
		statuses = append(statuses, "QUEUED")
	}
	for range 6 {
		statuses = append(statuses, "CONFIGURING")
	}
	statuses = append(statuses, "READY")
	poll, _ := statusPoller(statuses, "READY")
	w := Waiter[string]{What: "service x to become READY", Timeout: time.Hour,
		Backoff: Backoff{First: 10 * time.Second, Factor: 1}, Clock: clock, Poll: poll}
	if _, err := w.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	raw := out.String()
	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}
	var changes []string
	progress := 0
	for _, e := range entries {
		if e["@level"] != "info" {
			t.Errorf("log entry at %v, want info: %v", e["@level"], e)
		}
		msg, _ := e["@message"].(string)
		switch {
		case strings.HasPrefix(msg, "waiting for service x to become READY: status "):
			changes = append(changes, e["status"].(string))
		case strings.HasPrefix(msg, "still waiting for service x to become READY: "):
			progress++
			if e["elapsed"] == "" || e["last_status"] == "" {
				t.Errorf("progress entry without elapsed time or last status: %v", e)
			}
		default:
			t.Errorf("unexpected log entry %q", msg)
		}
	}
	if got := strings.Join(changes, ","); got != "QUEUED,CONFIGURING,READY" {
		t.Errorf("status changes logged: %s, want QUEUED,CONFIGURING,READY", got)
	}
	// Four minutes of waiting: a progress line every minute.
	if progress < 3 || progress > 4 {
		t.Errorf("%d progress entries in a 4-minute wait, want one a minute", progress)
	}
	if !strings.Contains(raw, `"last_status":"QUEUED"`) || !strings.Contains(raw, `"elapsed":"1m0s"`) {
		t.Errorf("progress entries must name the elapsed time and the last status:\n%s", raw)
	}
}

// TestWaiterReportsStatusChanges: a waiter under WithStatusReporter tells each status change once
// (the actions' progress messages).
func TestWaiterReportsStatusChanges(t *testing.T) {
	poll, _ := statusPoller([]string{"PAUSING", "PAUSING", "PAUSING", "PAUSED"}, "PAUSED")
	w := Waiter[string]{What: "service x to become PAUSED", Timeout: time.Minute, Backoff: Backoff{First: time.Second, Factor: 1, Max: time.Second},
		Clock: &virtualClock{now: time.Unix(0, 0)}, Rand: func() float64 { return 0.5 }, Poll: poll}
	var got []string
	ctx := WithStatusReporter(context.Background(), func(what, status string) { got = append(got, what+": "+status) })
	if _, err := w.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{"service x to become PAUSED: PAUSING", "service x to become PAUSED: PAUSED"}; !slices.Equal(got, want) {
		t.Errorf("reported %q, want %q", got, want)
	}
	// Without a reporter nothing is called (and nothing fails).
	poll, _ = statusPoller([]string{"PAUSED"}, "PAUSED")
	w.Poll = poll
	if _, err := w.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}
