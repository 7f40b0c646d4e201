package wait

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

func TestScheduleDelay(t *testing.T) {
	s := Schedule{First: time.Second, Base: 2 * time.Second, Growth: 0.05, Max: 30 * time.Second, Jitter: 0.1}
	for _, c := range []struct {
		elapsed, want time.Duration
	}{
		{0, time.Second}, // First
		{500 * time.Millisecond, 1500 * time.Millisecond}, // First + elapsed is still the smaller
		{10 * time.Second, 2500 * time.Millisecond},       // Base + 5%
		{100 * time.Second, 7 * time.Second},
		{time.Hour, 30 * time.Second}, // Max
		{-time.Second, time.Second},   // a clock step back is elapsed 0
	} {
		if got := s.Delay(c.elapsed, 0.5); got != c.want {
			t.Errorf("Delay(%s) = %s, want %s", c.elapsed, got, c.want)
		}
	}
	if got := s.Delay(10*time.Second, 0); got != 2250*time.Millisecond {
		t.Errorf("Delay(10s, rnd=0) = %s, want 2.25s (-10%%)", got)
	}
	// Backoff delegates to its Schedule, by attempt (nominal elapsed) and by elapsed time.
	b := Backoff{Schedule: &s}
	if got := b.Delay(0, 0.5); got != time.Second {
		t.Errorf("Backoff.Delay(0) = %s, want 1s", got)
	}
	if got := b.Delay(1, 0.5); got != 2*time.Second { // after 1 s: min(First + 1 s, Base + 5% of 1 s)
		t.Errorf("Backoff.Delay(1) = %s, want 2s", got)
	}
	if got := b.Delay(1_000_000, 0.5); got != 30*time.Second {
		t.Errorf("Backoff.Delay(1e6) = %s, want the cap", got)
	}
	if got := b.DelayAt(0, 100*time.Second, 0.5); got != 7*time.Second {
		t.Errorf("Backoff.DelayAt(100s) = %s, want 7s", got)
	}
	// Without a Schedule, DelayAt is the attempt-count Backoff (the tests' fast waits).
	if got := testBackoff.DelayAt(0, time.Hour, 0.5); got != testBackoff.Delay(0, 0.5) {
		t.Errorf("testBackoff.DelayAt = %s, want its attempt schedule", got)
	}
	if PollDelay(0, 0.5) != DefaultSchedule.Delay(0, 0.5) || DefaultBackoff.Schedule != &DefaultSchedule {
		t.Error("PollDelay and DefaultBackoff must be DefaultSchedule")
	}
}

// scheduleRow is one line of the waiting table: mean overhead (READY to the poll that sees it) and
// mean GETs (including that poll), over READY times spread evenly over [D/2, 3D/2].
type scheduleRow struct {
	overhead time.Duration
	gets     float64
}

// scheduleSamples is how many READY times are spread over [D/2, 3D/2].
const scheduleSamples = 400

// readyTimes are the READY times for D, evenly spread over [D/2, 3D/2].
func readyTimes(d time.Duration) []time.Duration {
	out := make([]time.Duration, scheduleSamples)
	for k := range out {
		out[k] = d/2 + time.Duration((float64(k)+0.5)/scheduleSamples*float64(d))
	}
	return out
}

// waiterRow runs the real Waiter with backoff on a virtual clock once per READY time.
func waiterRow(t *testing.T, d time.Duration, backoff Backoff) scheduleRow {
	t.Helper()
	var row scheduleRow
	var total time.Duration
	for k, ready := range readyTimes(d) {
		clock := &virtualClock{now: time.Unix(0, 0)}
		start := clock.now
		rng := rand.New(rand.NewPCG(uint64(k), 12)) //nolint:gosec // deterministic jitter for the model
		polls := 0
		w := Waiter[struct{}]{What: "model", Timeout: 10 * d, Backoff: backoff, Clock: clock, Rand: rng.Float64,
			Poll: func(context.Context) (PollResult[struct{}], error) {
				polls++
				return PollResult[struct{}]{Status: "X", Done: clock.now.Sub(start) >= ready}, nil
			}}
		if _, err := w.Wait(context.Background()); err != nil {
			t.Fatalf("D=%s: %v", d, err)
		}
		total += clock.now.Sub(start) - ready
		row.gets += float64(polls)
	}
	row.overhead = total / scheduleSamples
	row.gets /= scheduleSamples
	return row
}

// fixedRow models a poller that polls first at first, then every every (no immediate poll).
func fixedRow(d, first, every time.Duration) scheduleRow {
	var row scheduleRow
	var total time.Duration
	for _, ready := range readyTimes(d) {
		at, polls := first, 1
		for at < ready {
			at += every
			polls++
		}
		total += at - ready
		row.gets += float64(polls)
	}
	row.overhead = total / scheduleSamples
	row.gets /= scheduleSamples
	return row
}

// legacyBackoff is the schedule before DefaultSchedule (250 ms x 1.6 up to 10 s, +/-20%), for comparison.
var legacyBackoff = Backoff{First: 250 * time.Millisecond, Factor: 1.6, Max: 10 * time.Second, Jitter: 0.2}

// TestScheduleTable is the virtual-clock model of waiting: for each D, READY times spread evenly over
// [D/2, 3D/2], it compares DefaultBackoff (run through the real Waiter) with a 1 s poller, a "30 s,
// then every 15 s" poller and the previous schedule, and asserts the targets: mean overhead <= 1 s +
// 3% of D at every D, and for D >= 60 s at most a third of the 1 s poller's GETs. The model is
// deterministic (seeded jitter). With DBCLOUD_SCHEDULE_TABLE=path it writes the table as markdown.
func TestScheduleTable(t *testing.T) {
	var md strings.Builder
	md.WriteString("| D | target overhead | ours: overhead / GETs | 1 s poller | 30 s + every 15 s | previous (250 ms x 1.6, max 10 s) |\n")
	md.WriteString("|---|---|---|---|---|---|\n")
	for _, d := range []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour} {
		ours := waiterRow(t, d, DefaultBackoff)
		one := fixedRow(d, time.Second, time.Second)
		vendor := fixedRow(d, 30*time.Second, 15*time.Second)
		legacy := waiterRow(t, d, legacyBackoff)
		target := time.Second + time.Duration(0.03*float64(d))
		getTarget := ""
		if d >= time.Minute {
			getTarget = fmt.Sprintf(", <= %.1f GETs", one.gets/3)
		}
		cell := func(r scheduleRow) string { return fmt.Sprintf("%.2f s / %.1f", r.overhead.Seconds(), r.gets) }
		fmt.Fprintf(&md, "| %s | <= %.2f s%s | **%s** | %s | %s | %s |\n", d, target.Seconds(), getTarget,
			cell(ours), cell(one), cell(vendor), cell(legacy))
		if ours.overhead > target {
			t.Errorf("D=%s: mean overhead %s exceeds 1 s + 3%% of D = %s", d, ours.overhead, target)
		}
		if d >= time.Minute && ours.gets > one.gets/3 {
			t.Errorf("D=%s: %.1f GETs exceed a third of the 1 s poller's %.1f", d, ours.gets, one.gets)
		}
	}
	t.Log("\n" + md.String())
	if path := os.Getenv("DBCLOUD_SCHEDULE_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(md.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
