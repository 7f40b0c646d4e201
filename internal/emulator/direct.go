package emulator

import (
	"slices"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Direct state access, for tests that change things behind a client's back. Every method first
// brings the state up to date with the clock, and works on copies.

// Service returns a service as GET would show it (without initial_password).
func (e *Emulator) Service(projectID, serviceID string) (api.Service, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return api.Service{}, false
	}
	return s.view(), true
}

// Services returns a project's services, oldest first.
func (e *Emulator) Services(projectID string) []api.Service {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	var out []api.Service
	if p := e.state[projectID]; p != nil {
		for _, s := range p.services {
			out = append(out, s.view())
		}
	}
	return out
}

// ServicePassword returns a service's current password (the initial one until updatePassword), or
// "" if there is no such service.
func (e *Emulator) ServicePassword(projectID, serviceID string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return ""
	}
	return s.password
}

// UpdateService changes a service in place through fn, which gets a copy to edit. service_id,
// project_id, initial_password and read_replica_sets are kept as they were (use UpdateReplicaSet
// for replica sets). If fn changes the status, the pending transitions are dropped so the new
// status sticks; otherwise they continue (e.g. a resize behind the back during CONFIGURING).
// Attaching/detaching by editing VpcEndpoint (vpc_endpoint) is honoured by VPC deletion checks; the
// deprecated twin VpcEndpointDeprecated is derived from it on output, and edits of it are ignored.
func (e *Emulator) UpdateService(projectID, serviceID string, fn func(*api.Service)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	v := s.view()
	fn(&v)
	v.ServiceID, v.ProjectID = s.svc.ServiceID, s.svc.ProjectID
	v.InitialPassword, v.ReadReplicaSets = nil, nil
	v.VpcEndpointDeprecated = nil
	if deref(v.Status) != s.status() {
		s.steps = nil
	}
	s.svc = clone(v)
	return true
}

// RemoveService makes a service (and its replica sets) vanish at once.
func (e *Emulator) RemoveService(projectID, serviceID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	p := e.state[projectID]
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	p.services = slices.DeleteFunc(p.services, func(x *serviceRec) bool { return x == s })
	return true
}

// ReplicaSet returns a replica set of a service.
func (e *Emulator) ReplicaSet(projectID, serviceID, replicaSetID string) (api.ReadReplicaSet, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	rs := e.findReplicaSetLocked(projectID, serviceID, replicaSetID)
	if rs == nil {
		return api.ReadReplicaSet{}, false
	}
	return rs.view(), true
}

// UpdateReplicaSet changes a replica set in place through fn (its id is kept). If fn changes the
// status, the pending transitions are dropped so the new status sticks.
func (e *Emulator) UpdateReplicaSet(projectID, serviceID, replicaSetID string, fn func(*api.ReadReplicaSet)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	rs := e.findReplicaSetLocked(projectID, serviceID, replicaSetID)
	if rs == nil {
		return false
	}
	v := rs.view()
	fn(&v)
	v.ID = rs.rs.ID
	if deref(v.Status) != rs.status() {
		rs.steps = nil
	}
	rs.rs = clone(v)
	return true
}

// RemoveReplicaSet makes a replica set vanish at once.
func (e *Emulator) RemoveReplicaSet(projectID, serviceID, replicaSetID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	rs := s.findReplicaSet(replicaSetID)
	if rs == nil {
		return false
	}
	s.replicaSets = slices.DeleteFunc(s.replicaSets, func(x *replicaSetRec) bool { return x == rs })
	return true
}

func (e *Emulator) findReplicaSetLocked(projectID, serviceID, replicaSetID string) *replicaSetRec {
	s := e.findService(projectID, serviceID)
	if s == nil {
		return nil
	}
	return s.findReplicaSet(replicaSetID)
}

// VPC returns a VPC.
func (e *Emulator) VPC(projectID, vpcID string) (api.VPC, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return api.VPC{}, false
	}
	return clone(v.vpc), true
}

// UpdateVPC changes a VPC in place through fn (its id is kept).
func (e *Emulator) UpdateVPC(projectID, vpcID string, fn func(*api.VPC)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return false
	}
	c := clone(v.vpc)
	fn(&c)
	c.ID = v.vpc.ID
	v.vpc = clone(c)
	return true
}

// RemoveVPC makes a VPC and its peerings vanish at once. Services attached to it keep their
// vpcEndpoint (as a dangling reference).
func (e *Emulator) RemoveVPC(projectID, vpcID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return false
	}
	p := e.state[projectID]
	p.vpcs = slices.DeleteFunc(p.vpcs, func(x *vpcRec) bool { return x == v })
	return true
}

// Peering returns a peering of a VPC.
func (e *Emulator) Peering(projectID, vpcID, peeringID string) (api.Peering, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	pr := e.findPeeringLocked(projectID, vpcID, peeringID)
	if pr == nil {
		return api.Peering{}, false
	}
	return clone(pr.p), true
}

// UpdatePeering changes a peering in place through fn (its id is kept). If fn changes the status,
// the pending transitions are dropped so the new status sticks.
func (e *Emulator) UpdatePeering(projectID, vpcID, peeringID string, fn func(*api.Peering)) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	pr := e.findPeeringLocked(projectID, vpcID, peeringID)
	if pr == nil {
		return false
	}
	c := clone(pr.p)
	fn(&c)
	c.ID = pr.p.ID
	if deref(c.Status) != deref(pr.p.Status) {
		pr.steps = nil
	}
	pr.p = clone(c)
	return true
}

// RemovePeering makes a peering vanish at once.
func (e *Emulator) RemovePeering(projectID, vpcID, peeringID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return false
	}
	pr := v.findPeering(peeringID)
	if pr == nil {
		return false
	}
	v.peerings = slices.DeleteFunc(v.peerings, func(x *peeringRec) bool { return x == pr })
	return true
}

// FailPeering makes a peering fail at once: status "failed", error_message set, no further
// transitions.
func (e *Emulator) FailPeering(projectID, vpcID, peeringID, message string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	pr := e.findPeeringLocked(projectID, vpcID, peeringID)
	if pr == nil {
		return false
	}
	pr.p.Status = ptr("failed")
	pr.p.ErrorMessage = ptr(message)
	pr.steps = nil
	return true
}

func (e *Emulator) findPeeringLocked(projectID, vpcID, peeringID string) *peeringRec {
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return nil
	}
	return v.findPeering(peeringID)
}

// Service statuses behind a client's back.

// SetServiceStatus puts a service in status at once and keeps it there: pending transitions are
// dropped, so the status sticks until a request or another direct call changes it. For example
// PAUSED (paused behind the provider's back; POST start resumes it), CONFIGURING (stuck), UNSTABLE
// (unreachable forever), READY (unstick). It reports whether the service exists.
func (e *Emulator) SetServiceStatus(projectID, serviceID string, status api.ServiceStatus) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	s.setStatus(status)
	s.steps = nil
	return true
}

// PauseService pauses a service behind a client's back: its status is PAUSED at once (no PAUSING
// phase), as if it had been stopped elsewhere. POST start resumes it.
func (e *Emulator) PauseService(projectID, serviceID string) bool {
	return e.SetServiceStatus(projectID, serviceID, api.PAUSED)
}

// SetServiceStatusFor puts a service in status for d (by Options.Now), then in then; pending
// transitions are dropped. For example SetServiceStatusFor(p, id, api.UNSTABLE, 3*time.Second,
// api.READY) makes a service unreachable for three seconds. It reports whether the service exists.
func (e *Emulator) SetServiceStatusFor(projectID, serviceID string, status api.ServiceStatus, d time.Duration, then api.ServiceStatus) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	s.setStatus(status)
	s.steps = []step{{at: now.Add(d), do: func() { s.setStatus(then) }}}
	return true
}

// FinishServiceIn reschedules the service's operation under way (its pending transitions, e.g. an
// attach's CONFIGURING -> READY with its vpc_endpoint) to end d from now. It reports whether the
// service exists and had one.
func (e *Emulator) FinishServiceIn(projectID, serviceID string, d time.Duration) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil || len(s.steps) == 0 {
		return false
	}
	for i := range s.steps {
		s.steps[i].at = now.Add(d)
	}
	return true
}

// SetReplicaSetStatus puts a replica set in status at once and keeps it there (pending transitions
// are dropped), e.g. api.ReplicaSetStatusError (terminal on the live API). It reports whether the
// replica set exists.
func (e *Emulator) SetReplicaSetStatus(projectID, serviceID, replicaSetID string, status api.ReplicaSetStatus) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advanceLocked()
	rs := e.findReplicaSetLocked(projectID, serviceID, replicaSetID)
	if rs == nil {
		return false
	}
	rs.setStatus(status)
	rs.steps = nil
	return true
}

// ServiceLogLine appends a line to a service's log (GET .../logs) at the current time, on node "0".
// It reports whether the service exists.
func (e *Emulator) ServiceLogLine(projectID, serviceID, severity, message string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.advanceLocked()
	s := e.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	s.log(now, severity, message)
	return true
}
