package provider

// This run's record of the pauses of services (one per provider run: the provider data holds it),
// written by dbcloud_service itself and read where a paused service refuses something: what the
// service's plan says of its pause after the apply (service_plan.go), for the plan of its read replica
// sets (read_replica_set_resource.go), and which services the apply's create or update left paused
// (service_resource.go, service_update.go), for the logins of the same apply, which then warn instead
// of failing (service_credentials_ephemeral.go). Whether a service is paused is the record's rule
// (api.ServiceStatus.Paused). A leaf of the package.

import "sync"

// runPauses is this run's record of the pauses of services. The zero value is ready to use.
type runPauses struct {
	mu   sync.Mutex
	byID map[string]runPause
}

// runPause is what this run knows of the pause of one service.
type runPause struct {
	planned, pausedAfter bool // the run's plan of the service says whether it is paused after the apply: pausedAfter
	leftPaused           bool // the run's create or update of the service left it paused
}

// update edits the record of service id.
func (p *runPauses) update(id string, edit func(*runPause)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string]runPause{}
	}
	r := p.byID[id]
	edit(&r)
	p.byID[id] = r
}

func (p *runPauses) get(id string) runPause {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byID[id]
}

// plan records what the service's plan says: paused after the apply, or not.
func (p *runPauses) plan(id string, paused bool) {
	p.update(id, func(r *runPause) { r.planned, r.pausedAfter = true, paused })
}

// unplanned forgets what an earlier plan of the service said (its pause is unknown until the apply).
func (p *runPauses) unplanned(id string) {
	p.update(id, func(r *runPause) { r.planned, r.pausedAfter = false, false })
}

// afterApply says whether the service is paused after the apply, when this run's plan of it knows.
func (p *runPauses) afterApply(id string) (paused, planned bool) {
	r := p.get(id)
	return r.pausedAfter, r.planned
}

// leftPaused records a service that this run's create or update left paused.
func (p *runPauses) leftPaused(id string) {
	p.update(id, func(r *runPause) { r.leftPaused = true })
}

// pausedByThisRun says whether this run's create or update left the service paused.
func (p *runPauses) pausedByThisRun(id string) bool { return p.get(id).leftPaused }
