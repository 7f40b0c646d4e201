package emulator

import (
	"net/http"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// DatabaseBackend puts real databases behind the emulated services (Options.Database; nil keeps
// the emulator purely in memory, the default). The pgbackend package implements it with one
// private PostgreSQL cluster.
//
// The emulator calls these methods with its state lock held, at these points of a service's life:
//
//   - OnCreate and OnFork when the service is created (services.go: newService); the endpoint
//     they answer replaces the invented one. They may return before the database exists: the
//     service stays CONFIGURING until Ready reports that a login with its password works
//     (services.go: scheduleProvisioning).
//   - OnPassword on updatePassword, before the call is answered (services.go: UpdatePassword).
//   - OnDelete when deletion starts (services.go: DeleteService). It may return before the database
//     is dropped: the service stays DELETING until Deleted reports the drop over.
//   - OnPause when a stop (pause) starts and OnResume when a start (resume) starts: the
//     StopService and StartService handlers call them where they set PAUSING and RESUMING.
//
// Methods must not call back into the Emulator. Errors of OnPassword, OnPause and OnResume fail
// the request with a 500; errors of OnCreate and OnFork are logged and leave the service
// CONFIGURING; errors of OnDelete are only logged.
type DatabaseBackend interface {
	OnCreate(serviceID, password string, timescaleDB bool) (host string, port int, err error)
	OnFork(sourceID, serviceID, password string) (host string, port int, err error)
	OnPassword(serviceID, password string) error
	OnPause(serviceID string) error
	OnResume(serviceID string) error
	OnDelete(serviceID string) error
	Ready(serviceID, password string) bool
	Deleted(serviceID string) bool
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
func (e *Emulator) dbCreate(s *serviceRec, p newServiceParams) {
	if e.db == nil {
		return
	}
	var host string
	var port int
	var err error
	if p.forkedFrom != nil {
		host, port, err = e.db.OnFork(deref(p.forkedFrom.ServiceID), s.id(), s.password)
	} else {
		host, port, err = e.db.OnCreate(s.id(), s.password, p.serviceType == "TIMESERIESDB" || p.serviceType == "TIMESCALEDB")
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
func (e *Emulator) dbReady(s *serviceRec) bool {
	return e.db == nil || e.db.Ready(s.id(), s.password)
}

// dbPassword changes the service's database password.
func (e *Emulator) dbPassword(s *serviceRec, password string) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnPassword(s.id(), password); err != nil {
		return backendError("updatePassword", err)
	}
	return nil
}

// dbPause refuses logins to a pausing service (called by the stop handler).
func (e *Emulator) dbPause(s *serviceRec) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnPause(s.id()); err != nil {
		return backendError("stop", err)
	}
	return nil
}

// dbResume allows logins to a resuming service again (called by the start handler).
func (e *Emulator) dbResume(s *serviceRec) *apiError {
	if e.db == nil {
		return nil
	}
	if err := e.db.OnResume(s.id()); err != nil {
		return backendError("start", err)
	}
	return nil
}

// dbDeleted reports whether the service may be gone: always without a backend.
func (e *Emulator) dbDeleted(s *serviceRec) bool {
	return e.db == nil || e.db.Deleted(s.id())
}

// dbDelete drops the service's database; a failure is only logged.
func (e *Emulator) dbDelete(s *serviceRec) {
	if e.db == nil {
		return
	}
	if err := e.db.OnDelete(s.id()); err != nil && e.logf != nil {
		e.logf("emulator: database backend: deleting service %s: %v", s.id(), err)
	}
}

// ReplicaSetBackend is what a DatabaseBackend also implements to give read replica sets a real
// endpoint. The pgbackend package emulates a replica set with a read-only login role on the
// primary's database (it sees the primary's data at once, with no replication lag): OnReplicaSet
// creates that role, or sets its password again, and answers the endpoint. It is called with the
// state lock held when a replica set is created and after each password change of a service that
// has replica sets; errors are logged and leave the invented endpoint.
type ReplicaSetBackend interface {
	OnReplicaSet(serviceID, password string) (host string, port int, err error)
}

// dbReplicaSet points a replica set at the service's database, read-only, when the backend can.
func (e *Emulator) dbReplicaSet(s *serviceRec, rs *replicaSetRec) error {
	rb, ok := e.db.(ReplicaSetBackend)
	if !ok {
		return nil
	}
	host, port, err := rb.OnReplicaSet(s.id(), s.password)
	if err != nil {
		return err
	}
	rs.rs.Endpoint = &api.Endpoint{Host: ptr(host), Port: ptr(port)}
	return nil
}

// dbReplicaSetsPassword gives the replica sets' read-only role the service's new password.
func (e *Emulator) dbReplicaSetsPassword(s *serviceRec) {
	if e.db == nil || len(s.replicaSets) == 0 {
		return
	}
	if rb, ok := e.db.(ReplicaSetBackend); ok {
		if _, _, err := rb.OnReplicaSet(s.id(), s.password); err != nil && e.logf != nil {
			e.logf("emulator: database backend: replica sets of service %s: %v", s.id(), err)
		}
	}
}
