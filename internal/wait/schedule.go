package wait

import "time"

// Schedule is the waiting schedule of every waiter, as a pure function of the time already waited:
// the next poll comes after
//
//	min(First + elapsed, Base + Growth*elapsed, Max), spread by +/- Jitter
//
// so the first poll after the immediate one comes after First (a fast API means a fast apply), and
// from then on the interval grows by a few percent of the time already waited. The expected delay
// between READY and the poll that sees it is about half an interval, so it stays a small, constant
// fraction of the API's own time (about 1 s + 3% of it) for transitions from seconds to hours, with a
// fraction of the requests of a fixed-interval poller. Max bounds the interval of very long waits.
// See schedule_test.go for the virtual-clock table against a 1 s poller and a "30 s, then every 15 s"
// poller.
type Schedule struct {
	First  time.Duration // the first delay (elapsed 0); also caps each delay at First + elapsed
	Base   time.Duration // the interval's constant part
	Growth float64       // the interval's share of the time already waited
	Max    time.Duration // the longest interval
	Jitter float64       // a fraction: each delay is spread by +/- Jitter so parallel waits do not poll in lockstep
}

// DefaultSchedule is the production schedule: 1.5 s, then 2 s + 5.75% of the time waited, at most
// 30 s, +/- 5%. The numbers come from the model in schedule_test.go: the overhead target binds at
// D = 10 s and the GET target at D = 60 s; these meet both with a few percent to spare.
var DefaultSchedule = Schedule{First: 1500 * time.Millisecond, Base: 2 * time.Second, Growth: 0.0575, Max: 30 * time.Second, Jitter: 0.05}

// PollDelay is DefaultSchedule's delay before the next poll, elapsed after the wait began, with rnd in
// [0,1) for the jitter.
func PollDelay(elapsed time.Duration, rnd float64) time.Duration {
	return DefaultSchedule.Delay(elapsed, rnd)
}

// Delay is the wait before the next poll when elapsed has passed since the wait began.
func (s Schedule) Delay(elapsed time.Duration, rnd float64) time.Duration {
	d := s.nominal(elapsed)
	d *= 1 + s.Jitter*(2*rnd-1)
	if d < 0 {
		return 0
	}
	return time.Duration(d)
}

// nominal is the delay without jitter, in nanoseconds.
func (s Schedule) nominal(elapsed time.Duration) float64 {
	if elapsed < 0 {
		elapsed = 0
	}
	d := float64(s.Base) + s.Growth*float64(elapsed)
	if first := float64(s.First) + float64(elapsed); first < d {
		d = first
	}
	if s.Max > 0 && d > float64(s.Max) {
		d = float64(s.Max)
	}
	return d
}

// delayN is the delay before poll n+1 (n = 0 is the delay after the immediate first poll) for callers
// that only count polls (Backoff.Delay): elapsed is taken as the sum of the nominal delays before it.
func (s Schedule) delayN(n int, rnd float64) time.Duration {
	var elapsed float64
	for i := 0; i < n; i++ {
		d := s.nominal(time.Duration(elapsed))
		if s.Max > 0 && d >= float64(s.Max) {
			break // every later delay is Max too
		}
		elapsed += d
	}
	return s.Delay(time.Duration(elapsed), rnd)
}

// DelayAt is the delay before poll n+1 when elapsed has passed since the wait began: the elapsed-time
// Schedule when the Backoff has one, else the attempt-count schedule (Delay; tests use it for fast
// waits).
func (b Backoff) DelayAt(n int, elapsed time.Duration, rnd float64) time.Duration {
	if b.Schedule != nil {
		return b.Schedule.Delay(elapsed, rnd)
	}
	return b.Delay(n, rnd)
}
