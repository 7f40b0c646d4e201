package wait

import "time"

// testBackoff is a fast attempt-count schedule (no Schedule), like the provider tests' own.
var testBackoff = Backoff{First: 10 * time.Millisecond, Factor: 1.5, Max: 100 * time.Millisecond, Jitter: 0.1}

// budgetOf is an outage budget of its own length, as a client answers it (Budget).
type budgetOf time.Duration

func (b budgetOf) OutageBudget() time.Duration { return time.Duration(b) }

// testBudget is the tests' outage budget where their context has no deadline.
var testBudget = budgetOf(time.Minute)
