package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

var (
	_ datasource.DataSource              = (*vpcsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*vpcsDataSource)(nil)
)

// NewVPCsDataSource is the dbcloud_vpcs data source.
func NewVPCsDataSource() datasource.DataSource { return &vpcsDataSource{} }

type vpcsDataSource struct {
	pd *providerData
}

type vpcsDataModel struct {
	VPCs []vpcDataItem `tfsdk:"vpcs"`
}

type vpcDataItem struct {
	ID         types.String `tfsdk:"id"`
	Name       types.String `tfsdk:"name"`
	CIDR       types.String `tfsdk:"cidr"`
	RegionCode types.String `tfsdk:"region_code"`
}

func vpcItem(v *api.VPC) vpcDataItem {
	return vpcDataItem{ID: stringValue(v.ID), Name: stringValue(v.Name), CIDR: stringValue(v.Cidr), RegionCode: stringValue(v.RegionCode)}
}

func (d *vpcsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vpcs"
}

func (d *vpcsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "All VPCs of the project, oldest first.",
		Attributes: map[string]schema.Attribute{
			"vpcs": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The project's VPCs (empty when there are none).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "VPC id."},
					"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "VPC name."},
					"cidr":        schema.StringAttribute{Computed: true, MarkdownDescription: "IPv4 address range in CIDR notation, e.g. `10.0.0.0/16`."},
					"region_code": schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud region, e.g. `us-east-1`."},
				}},
			},
		},
	}
}

func (d *vpcsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *vpcsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	vpcs, err := d.pd.client.ListVPCs(ctx)
	if err != nil {
		addError(&resp.Diagnostics, "Could not list VPCs", err)
		return
	}
	out := vpcsDataModel{VPCs: make([]vpcDataItem, 0, len(vpcs))}
	for i := range vpcs {
		out.VPCs = append(out.VPCs, vpcItem(&vpcs[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
