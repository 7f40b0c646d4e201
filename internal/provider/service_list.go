package provider

// The dbcloud_service list resource (terraform query): beside the service resource; it reuses its mapping.

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- The dbcloud_service list resource: the services of the provider's project, filtered as the
// dbcloud_services data source filters them.

var _ list.ListResourceWithConfigure = (*serviceListResource)(nil)

// NewServiceListResource is the dbcloud_service list resource.
func NewServiceListResource() list.ListResource {
	return manageList(&serviceListResource{resourceBase{typeName: serviceTypeName}})
}

type serviceListResource struct{ resourceBase }

type serviceListModel struct {
	Name        types.String `tfsdk:"name"`
	ServiceType types.String `tfsdk:"service_type"`
	Status      types.String `tfsdk:"status"`
}

func (r *serviceListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the services of the provider's project, oldest first, optionally filtered " +
			"(as the `dbcloud_services` data source). Filters match exactly; unset filters match everything. Deleted services are left out, and so is any " +
			"record of a read replica set's standby (`forked_from.is_standby = true`): import a replica set as a `dbcloud_read_replica_set`.",
		Attributes: map[string]listschema.Attribute{
			"name":         listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services with exactly this name."},
			"service_type": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services of exactly this type, e.g. `POSTGRES`, `TIMESERIESDB`, `VECTOR`."},
			"status":       listschema.StringAttribute{Optional: true, MarkdownDescription: "Only services with exactly this status, e.g. `READY`."},
		},
	}
}

func (r *serviceListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg serviceListModel
	if !listConfig(ctx, req, &cfg, stream) {
		return
	}
	services, err := r.pd.read().ListServices(ctx)
	if err != nil {
		stream.Results = r.pd.listError(ctx, "Could not list services", err)
		return
	}
	projectID := r.pd.client.ProjectID()
	timeouts := nullTimeouts(ctx, req)
	stream.Results = listResults(ctx, req, services, func(s *api.Service) (any, string, bool) {
		if serviceIsGone(s) || isStandbyRecord(s) || !listFilterMatches(cfg.Name, deref(s.Name)) ||
			!listFilterMatches(cfg.ServiceType, deref(s.ServiceType)) || !listFilterMatches(cfg.Status, serviceStatus(s)) {
			return nil, "", false
		}
		// What Read makes of an imported service: addons derived from service_type, deletion_protection
		// false, no password.
		m, _ := readRecord(serviceResourceModel{Fork: types.ObjectNull(serviceForkAttrTypes)}, s, projectID)
		m.Timeouts = timeouts
		return m, fmt.Sprintf("%s (%s)", deref(s.Name), deref(s.ServiceID)), true
	})
}
