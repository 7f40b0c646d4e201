package emulator

// Read replica set ids on the service path (api-facts.md, "Read replica set ids on the service path"):
// GET of the service path also resolves a read replica set's id, answering a Service record of the
// standby with forked_from.is_standby = true. The list of services does not hold such records, and
// every other call on the service path with a replica set's id answers 404.
//
// Why 404 and not 409 for a state-changing call: the id names no service, which is what 404 means
// ("no service with that id exists"); a 409 says the call conflicts with the current state and may
// succeed later, so clients wait it out (the provider's busy waiter retries 409s), and a call that can
// never succeed would then wait until its timeout. The 404's message names the replica set and its
// primary, and the details give the replicaSets path to use instead.

import (
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// findReplicaSetByID finds a replica set of any service of the project by its id alone, with its
// primary.
func (e *store) findReplicaSetByID(projectID, replicaSetID string) (*serviceRec, *replicaSetRec) {
	p := e.state[projectID]
	if p == nil {
		return nil, nil
	}
	for _, s := range p.services {
		if rs := s.findReplicaSet(replicaSetID); rs != nil {
			return s, rs
		}
	}
	return nil, nil
}

// standbyStatus is the service status a standby record shows for its replica set's status. The API
// facts do not document it; the emulator maps each replica set status to the service status that means
// the same to a client: active is READY, creating and resizing are CONFIGURING (a change under way),
// deleting is DELETING, and error (terminal) is UNSTABLE.
func standbyStatus(st api.ReplicaSetStatus) api.ServiceStatus {
	switch st {
	case api.ReplicaSetStatusActive:
		return api.READY
	case api.ReplicaSetStatusCreating, api.ReplicaSetStatusResizing:
		return api.CONFIGURING
	case api.ReplicaSetStatusDeleting:
		return api.DELETING
	}
	return api.UNSTABLE
}

// standbyView is the Service record GET of the service path answers for a replica set's id: the set's
// id, name, size, environment, endpoint and pooler, the primary's type and region, and forked_from
// naming the primary with is_standby = true. No HA replicas, VPC endpoint or replica sets: a standby
// has none of its own.
func standbyView(projectID string, primary *serviceRec, rs *replicaSetRec) api.Service {
	set := rs.view()
	v := api.Service{
		ServiceID:        set.ID,
		ProjectID:        ptr(projectID),
		Name:             set.Name,
		RegionCode:       primary.svc.RegionCode,
		ServiceType:      primary.svc.ServiceType,
		Status:           ptr(standbyStatus(rs.status())),
		Metadata:         set.Metadata,
		Endpoint:         set.Endpoint,
		ConnectionPooler: set.ConnectionPooler,
		ForkedFrom:       &api.ForkedFrom{ProjectID: ptr(projectID), ServiceID: ptr(primary.id()), IsStandby: ptr(true)},
	}
	if set.CPUMillis != nil && set.MemoryGbs != nil {
		volume := "gp3"
		if res := primary.svc.Resources; res != nil && len(*res) > 0 && (*res)[0].Spec != nil && (*res)[0].Spec.VolumeType != nil {
			volume = *(*res)[0].Spec.VolumeType
		}
		v.Resources = &[]api.Resource{{ID: set.ID, Spec: &api.ResourceSpec{CPUMillis: set.CPUMillis, MemoryGbs: set.MemoryGbs, VolumeType: ptr(volume)}}}
	}
	return clone(v)
}

// replicaSetOnServicePath is the 404 of a call on the service path, other than GET of the record, that
// names a replica set's id.
func replicaSetOnServicePath(projectID, primaryID, replicaSetID string) *apiError {
	return notFound(
		fmt.Sprintf("service %s not found: %s is a read replica set of service %s", replicaSetID, replicaSetID, primaryID),
		fmt.Sprintf("Only GET of the service path answers a read replica set's id (a record of the standby). "+
			"Change or delete the replica set through /projects/%s/services/%s/replicaSets/%s.", projectID, primaryID, replicaSetID),
	)
}
