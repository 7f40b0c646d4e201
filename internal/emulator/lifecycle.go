package emulator

import (
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// A service's life cycle in one table: each operation that changes a service's status puts it in its
// first status at once, then through each later status once the leg's time (Timing) has passed and,
// where the leg says so, the PostgreSQL backend agrees. A new transition is a row here (and its
// Timing field); the handler that starts it calls startService.

// serviceOperation is an operation that takes a service through statuses.
type serviceOperation int

const (
	opProvision serviceOperation = iota // create, fork: QUEUED -> CONFIGURING -> READY
	opConfigure                         // an asynchronous change (resize, HA, attach, detach): CONFIGURING -> READY
	opPause                             // stop: PAUSING -> PAUSED
	opResume                            // start: RESUMING -> READY
	opDelete                            // delete: DELETING -> DELETED -> gone
)

// serviceLeg is one status of an operation: the status (none: the service leaves the API), how long
// after the previous leg it comes, and what the backend must have done first (nil: nothing).
type serviceLeg struct {
	status api.ServiceStatus
	after  func(Timing) time.Duration
	wait   func(e *store, s *serviceRec) bool
}

// serviceLifecycle is the table: the legs of each operation, the first one at once.
var serviceLifecycle = map[serviceOperation][]serviceLeg{
	opProvision: {
		{status: api.QUEUED},
		{status: api.CONFIGURING, after: func(t Timing) time.Duration { return t.ServiceQueued }},
		{status: api.READY, after: func(t Timing) time.Duration { return t.ServiceConfiguring }, wait: (*store).dbReady},
	},
	opConfigure: {
		{status: api.CONFIGURING},
		{status: api.READY, after: func(t Timing) time.Duration { return t.ServiceConfiguring }},
	},
	opPause: {
		{status: api.PAUSING},
		{status: api.PAUSED, after: func(t Timing) time.Duration { return t.ServicePausing }},
	},
	opResume: {
		{status: api.RESUMING},
		{status: api.READY, after: func(t Timing) time.Duration { return t.ServiceResuming }, wait: (*store).dbReady},
	},
	opDelete: {
		{status: api.DELETING},
		{status: api.DELETED, after: func(t Timing) time.Duration { return t.ServiceDeleting }, wait: (*store).dbDeleted},
		{after: func(t Timing) time.Duration { return t.ServiceDeleted }}, // gone: GET 404, not in the list
	},
}

// startService starts op on s at now: its first status at once, the others as pending steps
// (replacing any under way). done, when given, runs with the last leg (an attach's endpoint shows
// then).
func (e *store) startService(s *serviceRec, op serviceOperation, now time.Time, done func()) {
	legs := serviceLifecycle[op]
	s.setStatus(legs[0].status)
	s.steps = nil
	at := now
	for i, leg := range legs[1:] {
		at = at.Add(leg.after(e.timing))
		st := step{at: at}
		last := i == len(legs)-2
		st.do = func() {
			if last && done != nil {
				done()
			}
			if leg.status == "" {
				s.gone = true
				return
			}
			s.setStatus(leg.status)
		}
		if leg.wait != nil {
			st.wait = func() bool { return leg.wait(e, s) }
		}
		s.steps = append(s.steps, st)
	}
}
