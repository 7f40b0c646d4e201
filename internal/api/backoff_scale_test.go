package api

import (
	"testing"
	"time"
)

// The link-time knob shrinks the backoff bounds and nothing else; empty or nonsense leaves them.
func TestScaledBackoff(t *testing.T) {
	p := RetryPolicy{MaxRetries: 6, WaitMin: 500 * time.Millisecond, WaitMax: 15 * time.Second, MaxRetryAfter: time.Minute}
	old := backoffScale
	t.Cleanup(func() { backoffScale = old })
	for scale, want := range map[string][2]time.Duration{
		"":    {500 * time.Millisecond, 15 * time.Second},
		"x":   {500 * time.Millisecond, 15 * time.Second},
		"0":   {500 * time.Millisecond, 15 * time.Second},
		"2":   {500 * time.Millisecond, 15 * time.Second},
		"0.1": {50 * time.Millisecond, 1500 * time.Millisecond},
	} {
		backoffScale = scale
		got := scaledBackoff(p)
		if got.WaitMin != want[0] || got.WaitMax != want[1] || got.MaxRetries != 6 || got.MaxRetryAfter != time.Minute {
			t.Errorf("scale %q: %+v, want WaitMin %s WaitMax %s and the rest unchanged", scale, got, want[0], want[1])
		}
	}
}
