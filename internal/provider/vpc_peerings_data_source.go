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

var (
	_ datasource.DataSource              = (*vpcPeeringsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*vpcPeeringsDataSource)(nil)
)

// NewVPCPeeringsDataSource is the dbcloud_vpc_peerings data source.
func NewVPCPeeringsDataSource() datasource.DataSource { return &vpcPeeringsDataSource{} }

type vpcPeeringsDataSource struct {
	pd *providerData
}

type vpcPeeringsDataModel struct {
	VPCID    types.String       `tfsdk:"vpc_id"`
	Peerings []peeringDataModel `tfsdk:"peerings"`
}

func (d *vpcPeeringsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vpc_peerings"
}

func (d *vpcPeeringsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	item := peeringComputedAttributes()
	item["id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the peering."}
	item["vpc_id"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the VPC the peering belongs to."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The peerings of a VPC, oldest first. A VPC that does not exist is an error.",
		Attributes: map[string]schema.Attribute{
			"vpc_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the VPC whose peerings to list.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"peerings": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The VPC's peerings (empty when it has none).",
				NestedObject:        schema.NestedAttributeObject{Attributes: item},
			},
		},
	}
}

func (d *vpcPeeringsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *vpcPeeringsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg vpcPeeringsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vpcID := cfg.VPCID.ValueString()
	peerings, err := d.pd.client.ListPeerings(ctx, vpcID)
	if api.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("vpc_id"), "VPC not found",
			fmt.Sprintf("There is no VPC %s in this project, so it has no peerings to list: %v", vpcID, err))
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, "Could not list VPC peerings", err)
		return
	}
	cfg.Peerings = make([]peeringDataModel, 0, len(peerings))
	for i := range peerings {
		cfg.Peerings = append(cfg.Peerings, peeringData(vpcID, &peerings[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
