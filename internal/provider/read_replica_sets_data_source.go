package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewReadReplicaSetsDataSource is the dbcloud_read_replica_sets data source.
func NewReadReplicaSetsDataSource() datasource.DataSource {
	return manageDataSource(&readReplicaSetsDataSource{dataSourceBase{typeName: replicaSetsTypeName}})
}

type readReplicaSetsDataSource struct{ dataSourceBase }

type readReplicaSetsDataModel struct {
	ServiceID       types.String `tfsdk:"service_id"`
	ReadReplicaSets types.List   `tfsdk:"read_replica_sets"`
	ReplicaSets     types.List   `tfsdk:"replica_sets"`
}

func (d *readReplicaSetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The read replica sets of a service, oldest first. A service that does not exist is an error. " +
			"Each item has the fields of the `dbcloud_read_replica_set` data source, and `read_replica_sets` here is the same " +
			"list, under the same name, as `read_replica_sets` of the `dbcloud_service` data source.",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the service whose read replica sets to list.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"read_replica_sets": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The service's read replica sets (empty when it has none).",
				NestedObject:        schema.NestedAttributeObject{Attributes: replicaSetItemAttributes()},
			},
			"replica_sets": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The same list as `read_replica_sets`, under its former name.",
				DeprecationMessage:  "Use read_replica_sets, the name dbcloud_service's data source uses for the same list.",
				NestedObject:        schema.NestedAttributeObject{Attributes: replicaSetItemAttributes()},
			},
		},
	}
}

func (d *readReplicaSetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg readReplicaSetsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	serviceID := cfg.ServiceID.ValueString()
	sets, err := d.pd.read().ListReplicaSets(ctx, serviceID)
	if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("service_id"), "Service not found", "Could not list read replica sets",
		fmt.Sprintf("There is no service %s in this project, so it has no read replica sets to list: %v", serviceID, err)) {
		return
	}
	var diags diag.Diagnostics
	cfg.ReadReplicaSets, diags = replicaSetObjects(ctx, &sets)
	resp.Diagnostics.Append(diags...)
	cfg.ReplicaSets = cfg.ReadReplicaSets
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// NewReadReplicaSetDataSource is the dbcloud_read_replica_set data source.
func NewReadReplicaSetDataSource() datasource.DataSource {
	return manageDataSource(&readReplicaSetDataSource{dataSourceBase{typeName: replicaSetTypeName}})
}

type readReplicaSetDataSource struct{ dataSourceBase }

type readReplicaSetDataSourceModel struct {
	ServiceID types.String `tfsdk:"service_id"`
	replicaSetFields
}

func (d *readReplicaSetDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := replicaSetItemAttributes()
	attrs["service_id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the service the replica set belongs to.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the replica set, e.g. `dbcloud_read_replica_set.<name>.id`.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One read replica set of a service, by `service_id` and `id`, with the same fields as an item of " +
			"`dbcloud_read_replica_sets`. A set or service that does not exist is an error.",
		Attributes: attrs,
	}
}

func (d *readReplicaSetDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg readReplicaSetDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	serviceID, id := cfg.ServiceID.ValueString(), cfg.ID.ValueString()
	rs, err := d.pd.read().GetReplicaSet(ctx, serviceID, id)
	if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("id"), "Read replica set not found", "Could not read read replica set",
		fmt.Sprintf("Service %s has no read replica set %s (or the service does not exist): %v", serviceID, id, err)) {
		return
	}
	if rs.ID == nil {
		rs.ID = &id
	}
	cfg.replicaSetFields = replicaSetData(rs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
