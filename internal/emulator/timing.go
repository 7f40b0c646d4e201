package emulator

import "time"

// Timing holds how long each asynchronous phase lasts. Zero durations mean "immediate": the phase
// is over at the next access. Changes made with SetTiming apply to phases started afterwards.
type Timing struct {
	ServiceQueued       time.Duration // create/fork: QUEUED -> CONFIGURING
	ServiceConfiguring  time.Duration // CONFIGURING -> READY (after create, and after each async change: resize, setHA, attach, detach)
	ServiceDeleting     time.Duration // DELETING -> DELETED
	ServiceDeleted      time.Duration // DELETED -> gone (GET 404, not in list); zero: DELETED is never seen
	ServicePausing      time.Duration // stop: PAUSING -> PAUSED
	ServiceResuming     time.Duration // start: RESUMING -> READY
	ReplicaCreating     time.Duration // creating -> active
	ReplicaResizing     time.Duration // resizing -> active
	ReplicaDeleting     time.Duration // deleting -> gone
	PeeringProvisioning time.Duration // pending with provisioned_id "" -> provisioned_id "pcx-<hex>" (still pending)
	PeeringAccepting    time.Duration // after provisioning -> status "active"
}

// FastTiming is the timing for tests: every phase lasts 40-60ms (DELETED 20ms), short but long enough for a client
// polling every few milliseconds to observe QUEUED, CONFIGURING, creating, pending and so on.
func FastTiming() Timing {
	return Timing{
		ServiceQueued:       40 * time.Millisecond,
		ServiceConfiguring:  60 * time.Millisecond,
		ServiceDeleting:     40 * time.Millisecond,
		ServiceDeleted:      20 * time.Millisecond,
		ServicePausing:      40 * time.Millisecond,
		ServiceResuming:     40 * time.Millisecond,
		ReplicaCreating:     40 * time.Millisecond,
		ReplicaResizing:     40 * time.Millisecond,
		ReplicaDeleting:     40 * time.Millisecond,
		PeeringProvisioning: 40 * time.Millisecond,
		PeeringAccepting:    40 * time.Millisecond,
	}
}

// DemoTiming is the timing for demos: every phase lasts a few seconds.
func DemoTiming() Timing {
	return Timing{
		ServiceQueued:       2 * time.Second,
		ServiceConfiguring:  3 * time.Second,
		ServiceDeleting:     2 * time.Second,
		ServiceDeleted:      1 * time.Second,
		ServicePausing:      2 * time.Second,
		ServiceResuming:     2 * time.Second,
		ReplicaCreating:     2 * time.Second,
		ReplicaResizing:     2 * time.Second,
		ReplicaDeleting:     2 * time.Second,
		PeeringProvisioning: 2 * time.Second,
		PeeringAccepting:    2 * time.Second,
	}
}
