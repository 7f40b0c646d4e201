package provider

// List resources (Terraform >= 1.14: `list` blocks in .tfquery.hcl files, `terraform query`): one per
// resource type, all in this file after the shared helpers. Each reads the shared lists of the read
// cache (refresh_cache.go), maps a listed record into its resource's model with the resource's own
// mapping (readRecord, replicaSetData, flattenVPC, flattenPeering; no mapping of its own), and derives
// the identity from that model, as Read does.

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// listConfig decodes a list request's configuration into cfg (a pointer to the list model). When
// the provider is not configured or the configuration does not decode, it sends the diagnostics as
// the stream's results and returns false.
func listConfig(ctx context.Context, pd *providerData, req list.ListRequest, cfg any, stream *list.ListResultsStream) bool {
	var diags diag.Diagnostics
	if !notConfigured(pd, &diags) {
		diags.Append(req.Config.Get(ctx, cfg)...)
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return false
	}
	return true
}

// listResults streams one result per record: model maps a record to its resource model (ok false
// skips the record) and display names it. The identity comes from the model; the model itself is
// sent only when the query asks for it (include_resource = true). Limit is honoured.
func listResults[T any](ctx context.Context, req list.ListRequest, records []T, model func(*T) (any, string, bool)) func(func(list.ListResult) bool) {
	return func(push func(list.ListResult) bool) {
		var n int64
		for i := range records {
			m, display, ok := model(&records[i])
			if !ok {
				continue
			}
			if req.Limit > 0 && n >= req.Limit {
				return
			}
			n++
			if !push(newListResult(ctx, req, display, m)) {
				return
			}
		}
	}
}

// newListResult builds one result from a resource model.
func newListResult(ctx context.Context, req list.ListRequest, display string, model any) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = display
	res.Diagnostics.Append(res.Resource.Set(ctx, model)...)
	if res.Diagnostics.HasError() {
		return res
	}
	ident, diags := identityValues(ctx, res.Identity, func(name string, v *types.String) diag.Diagnostics {
		return res.Resource.GetAttribute(ctx, path.Root(name), v)
	})
	res.Diagnostics.Append(diags...)
	if res.Diagnostics.HasError() {
		return res
	}
	res.Diagnostics.Append(res.Identity.Set(ctx, ident)...)
	if !req.IncludeResource {
		res.Resource = nil
	}
	return res
}

// listError is a stream of one error result.
func (pd *providerData) listError(ctx context.Context, summary string, err error) func(func(list.ListResult) bool) {
	var diags diag.Diagnostics
	pd.addError(ctx, &diags, summary, err)
	return list.ListResultsStreamDiagnostics(diags)
}

// nullTimeouts is a null `timeouts` block of the listed resource's schema (listed objects have none).
func nullTimeouts(ctx context.Context, req list.ListRequest) timeouts.Value {
	attrTypes := map[string]attr.Type{}
	if t, diags := req.ResourceSchema.TypeAtPath(ctx, path.Root("timeouts")); !diags.HasError() {
		if ot, ok := t.(attr.TypeWithAttributeTypes); ok {
			attrTypes = ot.AttributeTypes()
		}
	}
	return timeouts.Value{Object: types.ObjectNull(attrTypes)}
}

// listFilterMatches reports whether an optional string filter accepts v (an unset filter accepts all).
func listFilterMatches(filter types.String, v string) bool {
	return filter.IsNull() || filter.IsUnknown() || filter.ValueString() == v
}

// ---- The dbcloud_service list resource: the services of the provider's project, filtered as the
// dbcloud_services data source filters them.

var _ list.ListResourceWithConfigure = (*serviceListResource)(nil)

// NewServiceListResource is the dbcloud_service list resource.
func NewServiceListResource() list.ListResource {
	return &serviceListResource{resourceBase{typeName: serviceTypeName}}
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
	if !listConfig(ctx, r.pd, req, &cfg, stream) {
		return
	}
	services, err := r.pd.reads.ListServices(ctx, r.pd.client)
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

// ---- The dbcloud_read_replica_set list resource: the read replica sets of one service.

var _ list.ListResourceWithConfigure = (*readReplicaSetListResource)(nil)

// NewReadReplicaSetListResource is the dbcloud_read_replica_set list resource.
func NewReadReplicaSetListResource() list.ListResource {
	return &readReplicaSetListResource{resourceBase{typeName: replicaSetTypeName}}
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
	if !listConfig(ctx, r.pd, req, &cfg, stream) {
		return
	}
	serviceID := cfg.ServiceID.ValueString()
	sets, err := r.pd.reads.ListReplicaSets(ctx, r.pd.client, serviceID)
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

// ---- The dbcloud_vpc list resource: the VPCs of the provider's project.

var _ list.ListResourceWithConfigure = (*vpcListResource)(nil)

// NewVPCListResource is the dbcloud_vpc list resource.
func NewVPCListResource() list.ListResource {
	return &vpcListResource{resourceBase{typeName: vpcTypeName}}
}

type vpcListResource struct{ resourceBase }

type vpcListModel struct {
	Name types.String `tfsdk:"name"`
}

func (r *vpcListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the VPCs of the provider's project, optionally only those of one name.",
		Attributes: map[string]listschema.Attribute{
			"name": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only VPCs with exactly this name."},
		},
	}
}

func (r *vpcListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg vpcListModel
	if !listConfig(ctx, r.pd, req, &cfg, stream) {
		return
	}
	vpcs, err := r.pd.reads.ListVPCs(ctx, r.pd.client)
	if err != nil {
		stream.Results = r.pd.listError(ctx, "Could not list VPCs", err)
		return
	}
	timeouts := nullTimeouts(ctx, req)
	stream.Results = listResults(ctx, req, vpcs, func(v *api.VPC) (any, string, bool) {
		if deref(v.ID) == "" || !listFilterMatches(cfg.Name, deref(v.Name)) {
			return nil, "", false
		}
		return vpcModel{vpcFields: flattenVPC(v), Timeouts: timeouts}, fmt.Sprintf("%s (%s)", deref(v.Name), deref(v.ID)), true
	})
}

// ---- The dbcloud_vpc_peering list resource: the peerings of one VPC.

var _ list.ListResourceWithConfigure = (*vpcPeeringListResource)(nil)

// NewVPCPeeringListResource is the dbcloud_vpc_peering list resource.
func NewVPCPeeringListResource() list.ListResource {
	return &vpcPeeringListResource{resourceBase{typeName: peeringTypeName}}
}

type vpcPeeringListResource struct{ resourceBase }

type vpcPeeringListModel struct {
	VPCID types.String `tfsdk:"vpc_id"`
}

func (r *vpcPeeringListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Lists the peerings of one VPC (peerings being deleted are left out).",
		Attributes: map[string]listschema.Attribute{
			"vpc_id": listschema.StringAttribute{Required: true, MarkdownDescription: "Id of the VPC whose peerings to list."},
		},
	}
}

func (r *vpcPeeringListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg vpcPeeringListModel
	if !listConfig(ctx, r.pd, req, &cfg, stream) {
		return
	}
	vpcID := cfg.VPCID.ValueString()
	peerings, err := r.pd.reads.ListPeerings(ctx, r.pd.client, vpcID)
	if err != nil {
		stream.Results = r.pd.listError(ctx, fmt.Sprintf("Could not list the peerings of VPC %s", vpcID), err)
		return
	}
	timeouts := nullTimeouts(ctx, req)
	stream.Results = listResults(ctx, req, peerings, func(p *api.Peering) (any, string, bool) {
		if deref(p.ID) == "" || strings.EqualFold(deref(p.Status), "deleting") {
			return nil, "", false
		}
		m := vpcPeeringModel{peeringFields: flattenPeering(vpcID, p), Timeouts: timeouts}
		return m, fmt.Sprintf("%s/%s -> %s", vpcID, deref(p.ID), deref(p.PeerVpcID)), true
	})
}
