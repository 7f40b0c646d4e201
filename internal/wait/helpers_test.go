package wait

import "time"

// testBackoff is a fast attempt-count schedule (no Schedule), like the provider tests' own.
var testBackoff = Backoff{First: 10 * time.Millisecond, Factor: 1.5, Max: 100 * time.Millisecond, Jitter: 0.1}
