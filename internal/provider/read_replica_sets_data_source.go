package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

var _ datasource.DataSourceWithConfigure = (*readReplicaSetsDataSource)(nil)

// NewReadReplicaSetsDataSource is the dbcloud_read_replica_sets data source.
func NewReadReplicaSetsDataSource() datasource.DataSource {
	return &readReplicaSetsDataSource{dataSourceBase{typeName: "_read_replica_sets"}}
}

type readReplicaSetsDataSource struct{ dataSourceBase }

type readReplicaSetsDataModel struct {
	ServiceID   types.String          `tfsdk:"service_id"`
	ReplicaSets []replicaSetDataModel `tfsdk:"replica_sets"`
}

type replicaSetDataModel struct {
	ID                      types.String `tfsdk:"id"`
	Name                    types.String `tfsdk:"name"`
	Status                  types.String `tfsdk:"status"`
	Nodes                   types.Int64  `tfsdk:"nodes"`
	CPUMillis               types.Int64  `tfsdk:"cpu_millis"`
	MemoryGbs               types.Int64  `tfsdk:"memory_gbs"`
	Environment             types.String `tfsdk:"environment"`
	ConnectionPoolerEnabled types.Bool   `tfsdk:"connection_pooler_enabled"`
	Hostname                types.String `tfsdk:"hostname"`
	Port                    types.Int64  `tfsdk:"port"`
	PoolerHostname          types.String `tfsdk:"pooler_hostname"`
	PoolerPort              types.Int64  `tfsdk:"pooler_port"`
}

func (d *readReplicaSetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The read replica sets of a service, oldest first. A service that does not exist is an error.",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the service whose read replica sets to list.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"replica_sets": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The service's read replica sets (empty when it has none).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                        schema.StringAttribute{Computed: true, MarkdownDescription: "Replica set id."},
					"name":                      schema.StringAttribute{Computed: true, MarkdownDescription: "Replica set name."},
					"status":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Status: `creating`, `active`, `resizing`, `deleting` or `error` (other values are passed through)."},
					"nodes":                     schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of replica nodes."},
					"cpu_millis":                schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU of each node in milli-cores (`1000` = 1 vCPU)."},
					"memory_gbs":                schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory of each node in GB."},
					"environment":               schema.StringAttribute{Computed: true, MarkdownDescription: "Environment tag, `DEV` or `PROD`."},
					"connection_pooler_enabled": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the set has its own connection pooler."},
					"hostname":                  schema.StringAttribute{Computed: true, MarkdownDescription: "Host name of the read-only endpoint."},
					"port":                      schema.Int64Attribute{Computed: true, MarkdownDescription: "TCP port of the read-only endpoint."},
					"pooler_hostname":           schema.StringAttribute{Computed: true, MarkdownDescription: "Host name of the connection pooler; null while it is disabled."},
					"pooler_port":               schema.Int64Attribute{Computed: true, MarkdownDescription: "TCP port of the connection pooler; null while it is disabled."},
				}},
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
	sets, err := d.pd.client.ListReplicaSets(ctx, serviceID)
	if readFailed(&resp.Diagnostics, err, path.Root("service_id"), "Service not found", "Could not list read replica sets",
		fmt.Sprintf("There is no service %s in this project, so it has no read replica sets to list: %v", serviceID, err)) {
		return
	}
	cfg.ReplicaSets = make([]replicaSetDataModel, 0, len(sets))
	for i := range sets {
		cfg.ReplicaSets = append(cfg.ReplicaSets, replicaSetData(&sets[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// replicaSetData converts an API record, with nulls for what it leaves out.
func replicaSetData(rs *api.ReadReplicaSet) replicaSetDataModel {
	m := readReplicaSetModel{
		Name: types.StringNull(), Nodes: types.Int64Null(), CPUMillis: types.Int64Null(), MemoryGbs: types.Int64Null(),
		Environment: types.StringNull(), Status: types.StringNull(),
	}
	m.applyRecord(rs)
	return replicaSetDataModel{
		ID:                      stringValue(rs.ID),
		Name:                    m.Name,
		Status:                  m.Status,
		Nodes:                   m.Nodes,
		CPUMillis:               m.CPUMillis,
		MemoryGbs:               m.MemoryGbs,
		Environment:             m.Environment,
		ConnectionPoolerEnabled: m.ConnectionPoolerEnabled,
		Hostname:                m.Hostname,
		Port:                    m.Port,
		PoolerHostname:          m.PoolerHostname,
		PoolerPort:              m.PoolerPort,
	}
}
