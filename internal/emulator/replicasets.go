package emulator

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func replicaSetNotFound(serviceID, replicaSetID string) *apiError {
	return notFound(
		fmt.Sprintf("replica set %s not found", replicaSetID),
		fmt.Sprintf("Service %s has no read replica set with this id; it may have been deleted.", serviceID),
	)
}

// replicaSetOf finds a replica set of a READY service (404 for either, 409 if the service is not READY).
func (e *store) replicaSetOf(projectID, serviceID, replicaSetID string) (*serviceRec, *replicaSetRec, *apiError) {
	s, err := e.readyService(projectID, serviceID)
	if err != nil {
		return nil, nil, err
	}
	rs := s.findReplicaSet(replicaSetID)
	if rs == nil {
		return nil, nil, replicaSetNotFound(serviceID, replicaSetID)
	}
	return s, rs, nil
}

// activeReplicaSet is replicaSetOf for calls that also need the set to be active.
func (e *store) activeReplicaSet(projectID, serviceID, replicaSetID string) (*replicaSetRec, *apiError) {
	_, rs, err := e.replicaSetOf(projectID, serviceID, replicaSetID)
	if err != nil {
		return nil, err
	}
	if st := rs.status(); st != api.ReplicaSetStatusActive {
		return nil, conflict(
			fmt.Sprintf("replica set %s is %s, not active", replicaSetID, st),
			"This change needs the replica set to be active; wait for the operation under way to finish, then retry.",
		)
	}
	return rs, nil
}

// ListReplicaSets answers a service's read replica sets, oldest first.
func (h handlers) ListReplicaSets(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.serviceOr404(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		out := make([]api.ReadReplicaSet, 0, len(s.replicaSets))
		for _, rs := range s.replicaSets {
			out = append(out, rs.view())
		}
		return http.StatusOK, out, nil
	})
}

// CreateReplicaSet adds a replica set (creating, then active) to a READY service.
func (h handlers) CreateReplicaSet(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.ReadReplicaSetCreate
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		e := h.e
		s, err := e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if in.Nodes < 1 {
			return 0, nil, badRequest("nodes must be at least 1", fmt.Sprintf("nodes was %d.", in.Nodes))
		}
		if err := checkIntSize(in.CPUMillis, in.MemoryGbs); err != nil {
			return 0, nil, err
		}
		id := e.newAlnumID()
		rs := &replicaSetRec{rs: api.ReadReplicaSet{
			ID:        ptr(id),
			Name:      ptr(in.Name),
			Status:    ptr(api.ReplicaSetStatusCreating),
			Nodes:     ptr(in.Nodes),
			CPUMillis: ptr(in.CPUMillis),
			MemoryGbs: ptr(in.MemoryGbs),
			Metadata:  &api.ServiceMetadata{Environment: ptr(string(api.DEV))},
			Endpoint:  &api.Endpoint{Host: ptr(replicaSetHost(projectID, serviceID, id)), Port: ptr(DatabasePort)},
		}}
		rs.steps = []step{{at: now.Add(e.timing.ReplicaCreating), do: func() { rs.setStatus(e.dbReplicaSetOutcome(rs)) },
			wait: func() bool { return e.dbReplicaSetSettled(rs) }}}
		if e.db != nil {
			if err := e.dbReplicaSet(s, rs); err != nil && e.logf != nil {
				e.logf("emulator: database backend: replica set %s of service %s: %v", id, serviceID, err)
			}
		}
		s.replicaSets = append(s.replicaSets, rs)
		return http.StatusAccepted, rs.view(), nil
	})
}

// DeleteReplicaSet starts deleting a replica set (deleting, then gone).
func (h handlers) DeleteReplicaSet(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID, replicaSetID api.ReplicaSetID) {
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, rs, err := h.e.replicaSetOf(projectID, serviceID, replicaSetID)
		if err != nil {
			return 0, nil, err
		}
		if rs.status() == api.ReplicaSetStatusDeleting && len(rs.steps) > 0 {
			return http.StatusAccepted, nil, nil
		}
		h.e.dbReplicaSetDelete(s, rs)
		rs.setStatus(api.ReplicaSetStatusDeleting)
		rs.steps = []step{{at: now.Add(h.e.timing.ReplicaDeleting), do: func() { rs.gone = true }}}
		return http.StatusAccepted, nil, nil
	})
}

// ResizeReplicaSet changes a replica set's size (digit strings, as for a service; the node count is
// fixed at create and a nodes field is ignored); it goes resizing. No body, as on the live API.
func (h handlers) ResizeReplicaSet(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID, replicaSetID api.ReplicaSetID) {
	var in api.ResizeInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		rs, err := h.e.activeReplicaSet(projectID, serviceID, replicaSetID)
		if err != nil {
			return 0, nil, err
		}
		sz, err := parseDigitSize(in.CPUMillis, in.MemoryGbs)
		if err != nil {
			return 0, nil, err
		}
		rs.rs.CPUMillis = ptr(sz.cpuMillis)
		rs.rs.MemoryGbs = ptr(sz.memoryGBs)
		rs.setStatus(api.ReplicaSetStatusResizing)
		rs.steps = []step{{at: now.Add(h.e.timing.ReplicaResizing), do: func() { rs.setStatus(api.ReplicaSetStatusActive) }}}
		return http.StatusAccepted, nil, nil
	})
}

// EnableReplicaSetPooler turns a replica set's pooler on (synchronous, idempotent).
func (h handlers) EnableReplicaSetPooler(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID, replicaSetID api.ReplicaSetID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		rs, err := h.e.activeReplicaSet(projectID, serviceID, replicaSetID)
		if err != nil {
			return 0, nil, err
		}
		s := h.e.findService(projectID, serviceID)
		invented := &api.Endpoint{Host: ptr(replicaSetPoolerHost(projectID, serviceID, replicaSetID)), Port: ptr(PoolerPort)}
		rs.rs.ConnectionPooler = &api.ConnectionPooler{Endpoint: h.e.dbPooler(s, replicaSetID, true, invented)}
		return http.StatusOK, message("connection pooler enabled for replica set %s", replicaSetID), nil
	})
}

// DisableReplicaSetPooler turns a replica set's pooler off (synchronous, idempotent).
func (h handlers) DisableReplicaSetPooler(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID, replicaSetID api.ReplicaSetID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		rs, err := h.e.activeReplicaSet(projectID, serviceID, replicaSetID)
		if err != nil {
			return 0, nil, err
		}
		if rs.rs.ConnectionPooler != nil {
			h.e.dbPooler(h.e.findService(projectID, serviceID), replicaSetID, false, nil)
		}
		rs.rs.ConnectionPooler = nil
		return http.StatusOK, message("connection pooler disabled for replica set %s", replicaSetID), nil
	})
}

// SetReplicaSetEnvironment sets a replica set's metadata.environment (synchronous).
func (h handlers) SetReplicaSetEnvironment(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID, replicaSetID api.ReplicaSetID) {
	var in api.SetEnvironmentInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		rs, err := h.e.activeReplicaSet(projectID, serviceID, replicaSetID)
		if err != nil {
			return 0, nil, err
		}
		rs.rs.Metadata = &api.ServiceMetadata{Environment: ptr(string(in.Environment))}
		return http.StatusOK, message("environment of replica set %s set to %s", replicaSetID, in.Environment), nil
	})
}
