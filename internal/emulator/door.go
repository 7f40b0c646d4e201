package emulator

import (
	"slices"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// The door to the objects behind the API: package emulatortest reads and changes the records through
// it (a service changed out of band, as the console or the vendor CLI do; a status put at once,
// outside the life cycle), and so do the emulator's own tests. The emulator command never opens it.

// Edit runs fn with the state locked and brought up to date with the clock; fn gets the time it was
// brought to. fn must not call the Emulator's methods, nor keep what it is given.
func (e *store) Edit(fn func(now time.Time, st State)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.advanceLocked()
	fn(now, State{s: e, now: now})
}

// State is the emulator's objects, within Edit.
type State struct {
	s   *store
	now time.Time
}

// Object is one object of the state within Edit: a service, a read replica set, a VPC or a peering.
type Object[T any] struct {
	rec     *T       // the stored record
	view    func() T // the object as GET shows it
	pending *[]step  // the transitions of the operation under way (a VPC has none)
	remove  func()
}

// Record is the stored record, to change in place. A service's has no initial_password,
// read_replica_sets or vpcEndpoint twin: they are derived on output.
func (o Object[T]) Record() *T { return o.rec }

// Set replaces the stored record with a copy of v.
func (o Object[T]) Set(v T) { *o.rec = clone(v) }

// View is the object as GET shows it, a copy.
func (o Object[T]) View() T { return o.view() }

// Remove makes the object vanish at once (a service with its replica sets, a VPC with its peerings).
func (o Object[T]) Remove() { o.remove() }

// Pending is how many transitions of the operation under way are still to come.
func (o Object[T]) Pending() int { return len(*o.pending) }

// Settle drops the pending transitions: the record stays as it is until a request changes it.
func (o Object[T]) Settle() { *o.pending = nil }

// Reschedule moves every pending transition to at.
func (o Object[T]) Reschedule(at time.Time) {
	for i := range *o.pending {
		(*o.pending)[i].at = at
	}
}

// Then replaces the pending transitions with one: fn changes the record at at.
func (o Object[T]) Then(at time.Time, fn func(rec *T)) {
	*o.pending = []step{{at: at, do: func() { fn(o.rec) }}}
}

// Services are the objects of a project's services, oldest first.
func (st State) Services(projectID string) []Object[api.Service] {
	p := st.s.state[projectID]
	if p == nil {
		return nil
	}
	out := make([]Object[api.Service], 0, len(p.services))
	for _, s := range p.services {
		out = append(out, serviceObject(p, s))
	}
	return out
}

// Service is the object of a service (false: there is none).
func (st State) Service(projectID, serviceID string) (Object[api.Service], bool) {
	s := st.s.findService(projectID, serviceID)
	if s == nil {
		return Object[api.Service]{}, false
	}
	return serviceObject(st.s.state[projectID], s), true
}

func serviceObject(p *projectState, s *serviceRec) Object[api.Service] {
	return Object[api.Service]{rec: &s.svc, view: s.view, pending: &s.steps, remove: func() {
		p.services = slices.DeleteFunc(p.services, func(x *serviceRec) bool { return x == s })
	}}
}

// ReplicaSet is the object of a read replica set of a service (false: there is none).
func (st State) ReplicaSet(projectID, serviceID, replicaSetID string) (Object[api.ReadReplicaSet], bool) {
	s := st.s.findService(projectID, serviceID)
	if s == nil {
		return Object[api.ReadReplicaSet]{}, false
	}
	rs := s.findReplicaSet(replicaSetID)
	if rs == nil {
		return Object[api.ReadReplicaSet]{}, false
	}
	return Object[api.ReadReplicaSet]{rec: &rs.rs, view: rs.view, pending: &rs.steps, remove: func() {
		s.replicaSets = slices.DeleteFunc(s.replicaSets, func(x *replicaSetRec) bool { return x == rs })
	}}, true
}

// VPC is the object of a VPC (false: there is none).
func (st State) VPC(projectID, vpcID string) (Object[api.VPC], bool) {
	v := st.s.findVPC(projectID, vpcID)
	if v == nil {
		return Object[api.VPC]{}, false
	}
	p := st.s.state[projectID]
	return Object[api.VPC]{rec: &v.vpc, view: func() api.VPC { return clone(v.vpc) }, pending: new([]step), remove: func() {
		p.vpcs = slices.DeleteFunc(p.vpcs, func(x *vpcRec) bool { return x == v })
	}}, true
}

// Peering is the object of a peering of a VPC (false: there is none).
func (st State) Peering(projectID, vpcID, peeringID string) (Object[api.Peering], bool) {
	v := st.s.findVPC(projectID, vpcID)
	if v == nil {
		return Object[api.Peering]{}, false
	}
	pr := v.findPeering(peeringID)
	if pr == nil {
		return Object[api.Peering]{}, false
	}
	return Object[api.Peering]{rec: &pr.p, view: func() api.Peering { return clone(pr.p) }, pending: &pr.steps, remove: func() {
		v.peerings = slices.DeleteFunc(v.peerings, func(x *peeringRec) bool { return x == pr })
	}}, true
}

// Password is a service's current password: the initial one until updatePassword (false: no such
// service).
func (st State) Password(projectID, serviceID string) (string, bool) {
	s := st.s.findService(projectID, serviceID)
	if s == nil {
		return "", false
	}
	return s.password, true
}

// Log appends a line to a service's log (GET .../logs) at the state's time, on node "0"; it reports
// whether the service exists.
func (st State) Log(projectID, serviceID, severity, message string) bool {
	s := st.s.findService(projectID, serviceID)
	if s == nil {
		return false
	}
	s.log(st.now, severity, message)
	return true
}
