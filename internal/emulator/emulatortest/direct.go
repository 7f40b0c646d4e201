package emulatortest

import (
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Direct state access, for tests that change things behind a client's back, through the emulator's
// door (emulator.State). Every method first brings the state up to date with the clock, and works on
// copies.

// Service returns a service as GET would show it (without initial_password).
func (s *Server) Service(projectID, serviceID string) (api.Service, bool) {
	return view(s, service(projectID, serviceID))
}

// Services returns a project's services, oldest first.
func (s *Server) Services(projectID string) []api.Service {
	var out []api.Service
	s.Edit(func(_ time.Time, st emulator.State) {
		for _, o := range st.Services(projectID) {
			out = append(out, o.View())
		}
	})
	return out
}

// ServicePassword returns a service's current password (the initial one until updatePassword), or
// "" if there is no such service.
func (s *Server) ServicePassword(projectID, serviceID string) string {
	var pw string
	s.Edit(func(_ time.Time, st emulator.State) { pw, _ = st.Password(projectID, serviceID) })
	return pw
}

// UpdateService changes a service in place through fn, which gets a copy to edit. service_id,
// project_id, initial_password and read_replica_sets are kept as they were (use UpdateReplicaSet
// for replica sets). If fn changes the status, the pending transitions are dropped so the new
// status sticks; otherwise they continue (e.g. a resize behind the back during CONFIGURING).
// Attaching/detaching by editing VpcEndpoint (vpc_endpoint) is honoured by VPC deletion checks; the
// deprecated twin VpcEndpointDeprecated is derived from it on output, and edits of it are ignored.
func (s *Server) UpdateService(projectID, serviceID string, fn func(*api.Service)) bool {
	return edit(s, service(projectID, serviceID), func(_ time.Time, o emulator.Object[api.Service]) {
		rec := o.Record()
		v := o.View()
		fn(&v)
		v.ServiceID, v.ProjectID = rec.ServiceID, rec.ProjectID
		v.InitialPassword, v.ReadReplicaSets = nil, nil
		v.VpcEndpointDeprecated = nil
		if deref(v.Status) != deref(rec.Status) {
			o.Settle()
		}
		o.Set(v)
	})
}

// RemoveService makes a service (and its replica sets) vanish at once.
func (s *Server) RemoveService(projectID, serviceID string) bool {
	return edit(s, service(projectID, serviceID), remove)
}

// ReplicaSet returns a replica set of a service.
func (s *Server) ReplicaSet(projectID, serviceID, replicaSetID string) (api.ReadReplicaSet, bool) {
	return view(s, replicaSet(projectID, serviceID, replicaSetID))
}

// UpdateReplicaSet changes a replica set in place through fn (its id is kept). If fn changes the
// status, the pending transitions are dropped so the new status sticks.
func (s *Server) UpdateReplicaSet(projectID, serviceID, replicaSetID string, fn func(*api.ReadReplicaSet)) bool {
	return edit(s, replicaSet(projectID, serviceID, replicaSetID), func(_ time.Time, o emulator.Object[api.ReadReplicaSet]) {
		rec := o.Record()
		v := o.View()
		fn(&v)
		v.ID = rec.ID
		if deref(v.Status) != deref(rec.Status) {
			o.Settle()
		}
		o.Set(v)
	})
}

// RemoveReplicaSet makes a replica set vanish at once.
func (s *Server) RemoveReplicaSet(projectID, serviceID, replicaSetID string) bool {
	return edit(s, replicaSet(projectID, serviceID, replicaSetID), remove)
}

// VPC returns a VPC.
func (s *Server) VPC(projectID, vpcID string) (api.VPC, bool) {
	return view(s, vpc(projectID, vpcID))
}

// UpdateVPC changes a VPC in place through fn (its id is kept).
func (s *Server) UpdateVPC(projectID, vpcID string, fn func(*api.VPC)) bool {
	return edit(s, vpc(projectID, vpcID), func(_ time.Time, o emulator.Object[api.VPC]) {
		c := o.View()
		fn(&c)
		c.ID = o.Record().ID
		o.Set(c)
	})
}

// RemoveVPC makes a VPC and its peerings vanish at once. Services attached to it keep their
// vpcEndpoint (as a dangling reference).
func (s *Server) RemoveVPC(projectID, vpcID string) bool {
	return edit(s, vpc(projectID, vpcID), remove)
}

// Peering returns a peering of a VPC.
func (s *Server) Peering(projectID, vpcID, peeringID string) (api.Peering, bool) {
	return view(s, peering(projectID, vpcID, peeringID))
}

// UpdatePeering changes a peering in place through fn (its id is kept). If fn changes the status,
// the pending transitions are dropped so the new status sticks.
func (s *Server) UpdatePeering(projectID, vpcID, peeringID string, fn func(*api.Peering)) bool {
	return edit(s, peering(projectID, vpcID, peeringID), func(_ time.Time, o emulator.Object[api.Peering]) {
		rec := o.Record()
		c := o.View()
		fn(&c)
		c.ID = rec.ID
		if deref(c.Status) != deref(rec.Status) {
			o.Settle()
		}
		o.Set(c)
	})
}

// RemovePeering makes a peering vanish at once.
func (s *Server) RemovePeering(projectID, vpcID, peeringID string) bool {
	return edit(s, peering(projectID, vpcID, peeringID), remove)
}

// FailPeering makes a peering fail at once: status "failed", error_message set, no further
// transitions.
func (s *Server) FailPeering(projectID, vpcID, peeringID, message string) bool {
	return edit(s, peering(projectID, vpcID, peeringID), func(_ time.Time, o emulator.Object[api.Peering]) {
		o.Record().Status = ptr("failed")
		o.Record().ErrorMessage = ptr(message)
		o.Settle()
	})
}

// Service statuses behind a client's back.

// SetServiceStatus puts a service in status at once and keeps it there: pending transitions are
// dropped, so the status sticks until a request or another direct call changes it. For example
// PAUSED (paused behind the provider's back; POST start resumes it), CONFIGURING (stuck), UNSTABLE
// (unreachable forever), READY (unstick). It reports whether the service exists.
func (s *Server) SetServiceStatus(projectID, serviceID string, status api.ServiceStatus) bool {
	return edit(s, service(projectID, serviceID), func(_ time.Time, o emulator.Object[api.Service]) {
		o.Record().Status = ptr(status)
		o.Settle()
	})
}

// PauseService pauses a service behind a client's back: its status is PAUSED at once (no PAUSING
// phase), as if it had been stopped elsewhere. POST start resumes it.
func (s *Server) PauseService(projectID, serviceID string) bool {
	return s.SetServiceStatus(projectID, serviceID, api.PAUSED)
}

// SetServiceStatusFor puts a service in status for d (by Options.Now), then in then; pending
// transitions are dropped. For example SetServiceStatusFor(p, id, api.UNSTABLE, 3*time.Second,
// api.READY) makes a service unreachable for three seconds. It reports whether the service exists.
func (s *Server) SetServiceStatusFor(projectID, serviceID string, status api.ServiceStatus, d time.Duration, then api.ServiceStatus) bool {
	return edit(s, service(projectID, serviceID), func(now time.Time, o emulator.Object[api.Service]) {
		o.Record().Status = ptr(status)
		o.Then(now.Add(d), func(rec *api.Service) { rec.Status = ptr(then) })
	})
}

// FinishServiceIn reschedules the service's operation under way (its pending transitions, e.g. an
// attach's CONFIGURING -> READY with its vpc_endpoint) to end d from now. It reports whether the
// service exists and had one.
func (s *Server) FinishServiceIn(projectID, serviceID string, d time.Duration) bool {
	var underWay bool
	edit(s, service(projectID, serviceID), func(now time.Time, o emulator.Object[api.Service]) {
		if underWay = o.Pending() > 0; underWay {
			o.Reschedule(now.Add(d))
		}
	})
	return underWay
}

// SetReplicaSetStatus puts a replica set in status at once and keeps it there (pending transitions
// are dropped), e.g. api.ReplicaSetStatusError (terminal on the live API). It reports whether the
// replica set exists.
func (s *Server) SetReplicaSetStatus(projectID, serviceID, replicaSetID string, status api.ReplicaSetStatus) bool {
	return edit(s, replicaSet(projectID, serviceID, replicaSetID), func(_ time.Time, o emulator.Object[api.ReadReplicaSet]) {
		o.Record().Status = ptr(status)
		o.Settle()
	})
}

// ServiceLogLine appends a line to a service's log (GET .../logs) at the current time, on node "0".
// It reports whether the service exists.
func (s *Server) ServiceLogLine(projectID, serviceID, severity, message string) bool {
	var ok bool
	s.Edit(func(_ time.Time, st emulator.State) { ok = st.Log(projectID, serviceID, severity, message) })
	return ok
}

// find names one object of the state.
type find[T any] func(emulator.State) (emulator.Object[T], bool)

func service(projectID, serviceID string) find[api.Service] {
	return func(st emulator.State) (emulator.Object[api.Service], bool) { return st.Service(projectID, serviceID) }
}

func replicaSet(projectID, serviceID, replicaSetID string) find[api.ReadReplicaSet] {
	return func(st emulator.State) (emulator.Object[api.ReadReplicaSet], bool) {
		return st.ReplicaSet(projectID, serviceID, replicaSetID)
	}
}

func vpc(projectID, vpcID string) find[api.VPC] {
	return func(st emulator.State) (emulator.Object[api.VPC], bool) { return st.VPC(projectID, vpcID) }
}

func peering(projectID, vpcID, peeringID string) find[api.Peering] {
	return func(st emulator.State) (emulator.Object[api.Peering], bool) {
		return st.Peering(projectID, vpcID, peeringID)
	}
}

// view answers the object f names as GET shows it, and whether there is one.
func view[T any](s *Server, f find[T]) (v T, ok bool) {
	s.Edit(func(_ time.Time, st emulator.State) {
		var o emulator.Object[T]
		if o, ok = f(st); ok {
			v = o.View()
		}
	})
	return v, ok
}

// edit runs fn on the object f names (with the time the state was brought to), and reports whether
// there is one.
func edit[T any](s *Server, f find[T], fn func(now time.Time, o emulator.Object[T])) (ok bool) {
	s.Edit(func(now time.Time, st emulator.State) {
		var o emulator.Object[T]
		if o, ok = f(st); ok {
			fn(now, o)
		}
	})
	return ok
}

// remove makes an object vanish (an edit).
func remove[T any](_ time.Time, o emulator.Object[T]) { o.Remove() }

func ptr[T any](v T) *T { return &v }

// deref returns *p, or the zero value when p is nil.
func deref[T any](p *T) (v T) {
	if p != nil {
		v = *p
	}
	return v
}
