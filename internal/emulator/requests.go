package emulator

import (
	"bytes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// What the API received: the request log (every request, whatever its answer) and the analytics
// calls, for tests to read.

// Requests returns a copy of the request log, oldest first.
func (e *store) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Request, len(e.requests))
	for i, r := range e.requests {
		r.Body = bytes.Clone(r.Body)
		out[i] = r
	}
	return out
}

// Calls counts the logged requests of an operation ("" counts all requests), faults included.
func (e *store) Calls(operationID string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if operationID == "" {
		return len(e.requests)
	}
	n := 0
	for _, r := range e.requests {
		if r.OperationID == operationID {
			n++
		}
	}
	return n
}

// ResetRequests empties the request log.
func (e *store) ResetRequests() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = nil
}

// AnalyticsEvents returns the track calls received, oldest first.
func (e *store) AnalyticsEvents() []api.TrackInput {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]api.TrackInput, 0, len(e.tracks))
	for _, t := range e.tracks {
		out = append(out, clone(t))
	}
	return out
}

// IdentifyCalls counts the identify calls received.
func (e *store) IdentifyCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.identifies)
}

// Identifies returns the identify calls received, oldest first.
func (e *store) Identifies() []api.IdentifyInput {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]api.IdentifyInput, 0, len(e.identifies))
	for _, t := range e.identifies {
		out = append(out, clone(t))
	}
	return out
}
