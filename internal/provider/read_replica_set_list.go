package provider

// The dbcloud_read_replica_set list resource (terraform query): beside its resource; it reuses its mapping.

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- The dbcloud_read_replica_set list resource: the read replica sets of one service.

var _ list.ListResourceWithConfigure = (*readReplicaSetListResource)(nil)

// NewReadReplicaSetListResource is the dbcloud_read_replica_set list resource.
func NewReadReplicaSetListResource() list.ListResource {
	return manageList(&readReplicaSetListResource{resourceBase{typeName: replicaSetTypeName}})
}

type readReplicaSetListResource struct{ resourceBase }

type readReplicaSetListModel struct {
	ServiceID types.String `tfsdk:"service_id"`
}

func (r *readReplicaSetListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the read replica sets of one service (sets being deleted are left out).",
		Attributes: map[string]listschema.Attribute{
			"service_id": listschema.StringAttribute{Required: true, MarkdownDescription: "Id of the service whose replica sets to list."},
		},
	}
}

func (r *readReplicaSetListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg readReplicaSetListModel
	if !listConfig(ctx, req, &cfg, stream) {
		return
	}
	serviceID := cfg.ServiceID.ValueString()
	sets, err := r.pd.read().ListReplicaSets(ctx, serviceID)
	if err != nil {
		stream.Results = r.pd.listError(ctx, fmt.Sprintf("Could not list the read replica sets of service %s", serviceID), err)
		return
	}
	timeouts := nullTimeouts(ctx, req)
	stream.Results = listResults(ctx, req, sets, func(rs *api.ReadReplicaSet) (any, string, bool) {
		if deref(rs.ID) == "" || deref(rs.Status) == api.ReplicaSetStatusDeleting {
			return nil, "", false
		}
		m := readReplicaSetModel{replicaSetFields: replicaSetData(rs), ServiceID: types.StringValue(serviceID), Timeouts: timeouts}
		return m, fmt.Sprintf("%s (%s/%s)", deref(rs.Name), serviceID, deref(rs.ID)), true
	})
}
