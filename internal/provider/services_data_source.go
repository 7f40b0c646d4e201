package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ datasource.DataSource              = (*servicesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*servicesDataSource)(nil)
)

// NewServicesDataSource is the dbcloud_services data source.
func NewServicesDataSource() datasource.DataSource { return &servicesDataSource{} }

type servicesDataSource struct {
	pd *providerData
}

type servicesDataSourceModel struct {
	Name        types.String `tfsdk:"name"`
	ServiceType types.String `tfsdk:"service_type"`
	Status      types.String `tfsdk:"status"`
	IDs         types.List   `tfsdk:"ids"`
	Services    types.List   `tfsdk:"services"`
}

// serviceSummaryModel is one element of `services`: the service fields without the replica sets.
type serviceSummaryModel struct {
	ID                      types.String `tfsdk:"id"`
	ProjectID               types.String `tfsdk:"project_id"`
	Name                    types.String `tfsdk:"name"`
	Addons                  types.Set    `tfsdk:"addons"`
	RegionCode              types.String `tfsdk:"region_code"`
	ServiceType             types.String `tfsdk:"service_type"`
	Status                  types.String `tfsdk:"status"`
	Created                 types.String `tfsdk:"created"`
	Paused                  types.Bool   `tfsdk:"paused"`
	CPUMillis               types.Int64  `tfsdk:"cpu_millis"`
	MemoryGbs               types.Int64  `tfsdk:"memory_gbs"`
	VolumeType              types.String `tfsdk:"volume_type"`
	Environment             types.String `tfsdk:"environment"`
	HAReplicas              types.Int64  `tfsdk:"ha_replicas"`
	SyncReplicas            types.Int64  `tfsdk:"sync_replicas"`
	ConnectionPoolerEnabled types.Bool   `tfsdk:"connection_pooler_enabled"`
	Hostname                types.String `tfsdk:"hostname"`
	Port                    types.Int64  `tfsdk:"port"`
	PoolerHostname          types.String `tfsdk:"pooler_hostname"`
	PoolerPort              types.Int64  `tfsdk:"pooler_port"`
	VpcID                   types.String `tfsdk:"vpc_id"`
	VpcHostname             types.String `tfsdk:"vpc_hostname"`
	VpcPort                 types.Int64  `tfsdk:"vpc_port"`
	ForkedFrom              types.Object `tfsdk:"forked_from"`
}

func (d *servicesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_services"
}

func (d *servicesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// servicesNestedObject is the schema of one element of `services`.
func servicesNestedObject() schema.NestedAttributeObject {
	attrs := serviceComputedAttributes()
	attrs["id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Service id."}
	return schema.NestedAttributeObject{Attributes: attrs}
}

func (d *servicesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the services of the provider's project, oldest first, optionally filtered. " +
			"Filters match exactly (case-sensitive); unset filters match everything. Deleted services are left out.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only services with exactly this name.",
			},
			"service_type": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Only services of exactly this type, e.g. `POSTGRES`, `TIMESERIESDB`, `VECTOR` " +
					"(`TIMESERIESDB` and `TIMESCALEDB` are different strings here).",
			},
			"status": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only services with exactly this status, e.g. `READY`.",
			},
			"ids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.StringType,
				MarkdownDescription: "Ids of the matching services, in the order of `services`.",
			},
			"services": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching services (see the `dbcloud_service` data source for the fields; replica sets are not included).",
				NestedObject:        servicesNestedObject(),
			},
		},
	}
}

func (d *servicesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var cfg servicesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := d.pd.client.ListServices(ctx)
	if err != nil {
		addError(&resp.Diagnostics, "Could not list services", err)
		return
	}
	match := func(filter types.String, v *string) bool {
		return filter.IsNull() || (v != nil && *v == filter.ValueString())
	}
	ids := []string{}
	services := []serviceSummaryModel{}
	for i := range list {
		s := &list[i]
		if serviceIsGone(s) || !match(cfg.Name, s.Name) || !match(cfg.ServiceType, s.ServiceType) {
			continue
		}
		status := serviceStatus(s)
		if !cfg.Status.IsNull() && status != cfg.Status.ValueString() {
			continue
		}
		m := serviceDataSourceModelFrom(s, d.pd.client.ProjectID())
		ids = append(ids, m.ID.ValueString())
		services = append(services, m.serviceSummaryModel)
	}
	out := cfg
	idList, diags := types.ListValueFrom(ctx, types.StringType, ids)
	resp.Diagnostics.Append(diags...)
	serviceList, diags := types.ListValueFrom(ctx, servicesNestedObject().Type(), services)
	resp.Diagnostics.Append(diags...)
	out.IDs, out.Services = idList, serviceList
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
