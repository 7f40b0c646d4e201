package provider

// The dbcloud_service list resource (terraform query): beside the service resource; it reuses its
// mapping (readRecord).

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type serviceListModel struct {
	Name        types.String `tfsdk:"name"`
	ServiceType types.String `tfsdk:"service_type"`
	Status      types.String `tfsdk:"status"`
}

// NewServiceListResource is the dbcloud_service list resource: the services of the provider's
// project, filtered as the dbcloud_services data source filters them.
func NewServiceListResource() list.ListResource {
	return newList(serviceTypeName, listOf[serviceListModel, api.Service]{
		schema: listschema.Schema{
			MarkdownDescription: "Lists the services of the provider's project, oldest first, optionally filtered " +
				"(as the `dbcloud_services` data source). Filters match exactly; unset filters match everything. Deleted services are left out, and so is any " +
				"record of a read replica set's standby (`forked_from.is_standby = true`): import a replica set as a `dbcloud_read_replica_set`.",
			Attributes: map[string]listschema.Attribute{
				"name":         listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services with exactly this name."},
				"service_type": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services of exactly this type, e.g. `TIMESCALEDB` or `POSTGRES` (as the API reports it; older servers may say `VECTOR` or `TIMESERIESDB`)."},
				"status":       listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services with exactly this status, e.g. `READY`."},
			},
		},
		records: func(ctx context.Context, pd *providerData, _ serviceListModel) ([]api.Service, string, error) {
			services, err := pd.read().ListServices(ctx)
			return services, "Could not list services", err
		},
		model: func(pd *providerData, cfg serviceListModel, timeouts timeouts.Value, s *api.Service) (any, string, bool) {
			if serviceIsGone(s) || isStandbyRecord(s) || !listFilterMatches(cfg.Name, deref(s.Name)) ||
				!listFilterMatches(cfg.ServiceType, deref(s.ServiceType)) || !listFilterMatches(cfg.Status, serviceStatus(s)) {
				return nil, "", false
			}
			// What Read makes of an imported service: addons derived from service_type, deletion_protection
			// false, no password.
			m, _ := readRecord(serviceResourceModel{Fork: types.ObjectNull(serviceForkAttrTypes)}, s, pd.client.ProjectID())
			m.Timeouts = timeouts
			return m, fmt.Sprintf("%s (%s)", deref(s.Name), deref(s.ServiceID)), true
		},
	})
}
