package provider

// The dbcloud_read_replica_set list resource (terraform query): beside its resource; it reuses its
// mapping (replicaSetData).

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type readReplicaSetListModel struct {
	ServiceID types.String `tfsdk:"service_id"`
}

// NewReadReplicaSetListResource is the dbcloud_read_replica_set list resource: the read replica sets
// of one service.
func NewReadReplicaSetListResource() list.ListResource {
	return newList(replicaSetTypeName, listOf[readReplicaSetListModel, api.ReadReplicaSet]{
		schema: listschema.Schema{
			MarkdownDescription: "Lists the read replica sets of one service (sets being deleted are left out).",
			Attributes: map[string]listschema.Attribute{
				"service_id": listschema.StringAttribute{Required: true, MarkdownDescription: "Id of the service whose replica sets to list."},
			},
		},
		records: func(ctx context.Context, pd *providerData, cfg readReplicaSetListModel) ([]api.ReadReplicaSet, string, error) {
			sets, err := pd.read().ListReplicaSets(ctx, cfg.ServiceID.ValueString())
			return sets, fmt.Sprintf("Could not list the read replica sets of service %s", cfg.ServiceID.ValueString()), err
		},
		model: func(_ *providerData, cfg readReplicaSetListModel, timeouts timeouts.Value, rs *api.ReadReplicaSet) (any, string, bool) {
			if deref(rs.ID) == "" || deref(rs.Status) == api.ReplicaSetStatusDeleting {
				return nil, "", false
			}
			m := readReplicaSetModel{replicaSetFields: replicaSetData(rs), ServiceID: cfg.ServiceID, Timeouts: timeouts}
			return m, fmt.Sprintf("%s (%s/%s)", deref(rs.Name), cfg.ServiceID.ValueString(), deref(rs.ID)), true
		},
	})
}
