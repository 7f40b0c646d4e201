package provider

// Read replica set ids on the service path. The API answers GET of the service path for a read replica
// set's id too, with a Service record of the standby: forked_from = {project_id, service_id: the
// primary, is_standby: true}. Such a record is a read replica set, not a service: it has the primary's
// password and is changed and deleted through its primary (services/{primary}/replicaSets/{id}), and
// what a state-changing call on the service path does with it is not documented. So:
//   - dbcloud_service refuses it: import (by command, import block or identity) and refresh fail with
//     standbyRecordError, which gives the dbcloud_read_replica_set import id to use;
//   - every wait that comes before a state-changing call on the service path (waitServiceStatus, the
//     delete's look, the replica set create's look at its service, the actions' look) fails on it, so
//     no such call is ever sent for a replica set's id;
//   - lists (dbcloud_services, the dbcloud_service list resource, the refresh cache, the lost-create
//     lookup) skip such records;
//   - the dbcloud_service data source shows it, with forked_from.is_standby = true.

import (
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// standbyRecordError says that an id given as a service's is a read replica set's, and what to do.
type standbyRecordError struct {
	ID, PrimaryID, Name string
}

// notStandby returns a *standbyRecordError when svc, the record the API answered for id, is a read
// replica set's standby, and nil otherwise.
func notStandby(id string, svc *api.Service) error {
	if !isStandbyRecord(svc) {
		return nil
	}
	return &standbyRecordError{ID: id, PrimaryID: deref(svc.ForkedFrom.ServiceID), Name: deref(svc.Name)}
}

// standbySummary is the summary of the diagnostic of a standbyRecordError in a dbcloud_service.
const standbySummary = "Not a service: the id is a read replica set's"

func (e *standbyRecordError) Error() string {
	primary, importID := e.PrimaryID, e.PrimaryID+"/"+e.ID
	if primary == "" {
		primary, importID = "(not named in the record)", "<service_id>/"+e.ID
	}
	return fmt.Sprintf("%s is the id of read replica set %q of service %s, not of a service: the API answers a read replica set's id "+
		"on the service path too, with a record of its standby (forked_from.is_standby = true). A read replica set cannot be managed "+
		"as a %s (it uses the primary's password, and it is changed and deleted through its primary), so nothing was sent to change it.\n\n"+
		"Manage it as a %s, whose import id is <primary service id>/<replica set id>:\n\n"+
		"  terraform import %s.<name> %s\n\n"+
		"or an import block with to = %s.<name> and id = %q.\n\n"+
		"If a %s in the state already holds id %s (imported by an older version of the provider), remove it from the state "+
		"without destroying anything (`terraform state rm <address>`, or a `removed` block with `lifecycle { destroy = false }`), then import it as above.",
		e.ID, e.Name, primary, serviceTypeName, replicaSetTypeName,
		replicaSetTypeName, importID, replicaSetTypeName, importID,
		serviceTypeName, e.ID)
}
