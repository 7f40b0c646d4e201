package emulator

import (
	"net/http"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// DatabaseBackend puts real databases behind the emulated services (Options.Database; nil keeps
// the emulator purely in memory, the default). The pgbackend package implements it with one
// PostgreSQL instance per service.
//
// The emulator calls these methods with its state lock held, at these points of a service's life:
//
//   - OnCreate and OnFork when the service is created (services.go: newService); the endpoint
//     they answer replaces the invented one. They may return before the database exists: the
//     service stays CONFIGURING until Ready reports that a login with its password works
//     (lifecycle.go: opProvision). addons are the create request's addons.
//   - OnPassword on updatePassword, before the call is answered (services.go: UpdatePassword).
//   - OnDelete when deletion starts (services.go: DeleteService). It may return before the database
//     is removed: the service stays DELETING until Deleted reports the removal over.
//   - OnStop when a stop (pause) starts: connections are refused once it returns. OnStart when a
//     start (resume) starts: it may return before the database runs again; the service stays
//     RESUMING until Ready holds again.
//
// Methods must not call back into the Emulator. Errors of OnPassword, OnStop and OnStart fail
// the request with a 500; errors of OnCreate and OnFork are logged and leave the service
// CONFIGURING; errors of OnDelete are only logged.
type DatabaseBackend interface {
	OnCreate(serviceID, password string, addons []string) (host string, port int, err error)
	OnFork(sourceID, serviceID, password string) (host string, port int, err error)
	OnPassword(serviceID, password string) error
	OnStop(serviceID string) error
	OnStart(serviceID string) error
	OnDelete(serviceID string) error
	Ready(serviceID, password string) bool
	Deleted(serviceID string) bool
}

// database is the emulator's side of its DatabaseBackend: the backend (nil: none, every call below
// is then a no-op that agrees) and the log its failures go to (Options.Logf). The store embeds it.
type database struct {
	db   DatabaseBackend
	logf func(format string, args ...any)
}

func backendError(op string, err error) *apiError {
	return &apiError{
		Status:  http.StatusInternalServerError,
		Code:    "INTERNAL",
		Message: "database backend failed: " + op,
		Details: err.Error(),
	}
}

// dbCreate gives a new service (or fork) its database and real endpoint. A failure is logged and
// leaves the service CONFIGURING (Ready never holds for it).
func (e *database) dbCreate(s *serviceRec, p newServiceParams) {
	if e.db == nil {
		return
	}
	var host string
	var port int
	var err error
	if p.forkedFrom != nil {
		host, port, err = e.db.OnFork(deref(p.forkedFrom.ServiceID), s.id(), s.password)
	} else {
		host, port, err = e.db.OnCreate(s.id(), s.password, p.addons)
	}
	if err != nil {
		if e.logf != nil {
			e.logf("emulator: database backend: creating service %s: %v", s.id(), err)
		}
		return
	}
	s.svc.Endpoint = &api.Endpoint{Host: ptr(host), Port: ptr(port)}
}

// dbReady reports whether the service may turn READY: always without a backend.
func (e *database) dbReady(s *serviceRec) bool {
	return e.db == nil || e.db.Ready(s.id(), s.password)
}

// dbPassword changes the service's database password.
func (e *database) dbPassword(s *serviceRec, password string) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnPassword(s.id(), password); err != nil {
		return backendError("updatePassword", err)
	}
	return nil
}

// dbStop stops a pausing service's database (called by the stop handler).
func (e *database) dbStop(s *serviceRec) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnStop(s.id()); err != nil {
		return backendError("stop", err)
	}
	return nil
}

// dbStart starts a resuming service's database again (called by the start handler).
func (e *database) dbStart(s *serviceRec) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnStart(s.id()); err != nil {
		return backendError("start", err)
	}
	return nil
}

// dbDeleted reports whether the service may be gone: always without a backend.
func (e *database) dbDeleted(s *serviceRec) bool {
	return e.db == nil || e.db.Deleted(s.id())
}

// dbDelete drops the service's database; a failure is only logged.
func (e *database) dbDelete(s *serviceRec) {
	if e.db == nil {
		return
	}
	if err := e.db.OnDelete(s.id()); err != nil && e.logf != nil {
		e.logf("emulator: database backend: deleting service %s: %v", s.id(), err)
	}
}

// ReplicaSetBackend is what a DatabaseBackend also implements to give read replica sets a real
// endpoint (the pgbackend package: a hot standby streaming from the service's instance, shared by
// the set's nodes, with the primary's credentials). It is called with the state lock held:
// OnReplicaSet when a replica set is created (or restored), answering its endpoint at once; the set
// stays creating until ReplicaSetReady holds. OnReplicaSetDelete when its deletion starts. Errors
// are logged and leave the invented endpoint.
type ReplicaSetBackend interface {
	OnReplicaSet(serviceID, replicaSetID string) (host string, port int, err error)
	ReplicaSetReady(replicaSetID string) bool
	OnReplicaSetDelete(serviceID, replicaSetID string) error
}

// dbReplicaSet gives a replica set its standby and endpoint, when the backend can.
func (e *database) dbReplicaSet(s *serviceRec, rs *replicaSetRec) error {
	rb, ok := e.db.(ReplicaSetBackend)
	if !ok {
		return nil
	}
	host, port, err := rb.OnReplicaSet(s.id(), rs.id())
	if err != nil {
		return err
	}
	rs.rs.Endpoint = &api.Endpoint{Host: ptr(host), Port: ptr(port)}
	return nil
}

// ReplicaSetFailer is what a ReplicaSetBackend also implements when a replica set's standby can fail
// to start: the set then ends in status error (terminal on the live API), not creating forever.
type ReplicaSetFailer interface {
	ReplicaSetFailed(replicaSetID string) bool
}

// dbReplicaSetSettled reports whether a new replica set's provisioning is over (ready or failed):
// always without a backend.
func (e *database) dbReplicaSetSettled(rs *replicaSetRec) bool {
	return e.dbReplicaSetReady(rs) || e.dbReplicaSetFailed(rs)
}

// dbReplicaSetOutcome is the status a replica set whose provisioning is over turns to.
func (e *database) dbReplicaSetOutcome(rs *replicaSetRec) api.ReplicaSetStatus {
	if e.dbReplicaSetFailed(rs) {
		if e.logf != nil {
			e.logf("emulator: database backend: replica set %s could not be provisioned: status error", rs.id())
		}
		return api.ReplicaSetStatusError
	}
	return api.ReplicaSetStatusActive
}

// dbReplicaSetReady reports whether the replica set's standby runs: always without a backend.
func (e *database) dbReplicaSetReady(rs *replicaSetRec) bool {
	rb, ok := e.db.(ReplicaSetBackend)
	return !ok || rb.ReplicaSetReady(rs.id())
}

func (e *database) dbReplicaSetFailed(rs *replicaSetRec) bool {
	f, ok := e.db.(ReplicaSetFailer)
	return ok && !e.dbReplicaSetReady(rs) && f.ReplicaSetFailed(rs.id())
}

// dbReplicaSetDelete removes a replica set's standby; a failure is only logged.
func (e *database) dbReplicaSetDelete(s *serviceRec, rs *replicaSetRec) {
	if rb, ok := e.db.(ReplicaSetBackend); ok {
		if err := rb.OnReplicaSetDelete(s.id(), rs.id()); err != nil && e.logf != nil {
			e.logf("emulator: database backend: deleting replica set %s: %v", rs.id(), err)
		}
	}
}

// PoolerBackend is what a DatabaseBackend also implements to put a real connection pooler in
// front of a service (replicaSetID "") or a replica set: the pgbackend package runs PgBouncer.
// OnPooler is called with the state lock held by enablePooler (enabled, with the service's
// password) and disablePooler, and when a service with a pooler is restored. An error (PgBouncer
// not installed) is logged and leaves the invented endpoint.
type PoolerBackend interface {
	OnPooler(serviceID, replicaSetID, password string, enabled bool) (host string, port int, err error)
}

// dbPooler turns the backend's pooler on or off; it answers the endpoint to show (the invented
// one when the backend has no pooler).
func (e *database) dbPooler(s *serviceRec, replicaSetID string, enabled bool, invented *api.Endpoint) *api.Endpoint {
	pb, ok := e.db.(PoolerBackend)
	if !ok {
		return invented
	}
	host, port, err := pb.OnPooler(s.id(), replicaSetID, s.password, enabled)
	if err != nil {
		if e.logf != nil {
			e.logf("emulator: database backend: pooler of %s %s: %v", s.id(), replicaSetID, err)
		}
		return invented
	}
	return &api.Endpoint{Host: ptr(host), Port: ptr(port)}
}

// LogBackend is what a DatabaseBackend also implements when its databases keep a log of their own
// (the pgbackend package: each instance's PostgreSQL server log). A service's log (GET .../logs) is
// then that log, with the lines tests add (ServiceLogLine), instead of the synthetic start-up lines.
// ServiceLog is called with the state lock held; it calls each for every entry, oldest first, and
// reports whether the service has such a log (false: the emulator's own lines are shown).
type LogBackend interface {
	ServiceLog(serviceID string, each func(at time.Time, severity, node, message string)) bool
}
