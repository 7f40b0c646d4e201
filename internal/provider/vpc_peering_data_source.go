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
	_ datasource.DataSource              = (*vpcPeeringDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*vpcPeeringDataSource)(nil)
)

// NewVPCPeeringDataSource is the dbcloud_vpc_peering data source.
func NewVPCPeeringDataSource() datasource.DataSource { return &vpcPeeringDataSource{} }

type vpcPeeringDataSource struct {
	pd *providerData
}

type peeringDataModel struct {
	ID             types.String `tfsdk:"id"`
	VPCID          types.String `tfsdk:"vpc_id"`
	PeerAccountID  types.String `tfsdk:"peer_account_id"`
	PeerRegionCode types.String `tfsdk:"peer_region_code"`
	PeerVPCID      types.String `tfsdk:"peer_vpc_id"`
	Status         types.String `tfsdk:"status"`
	ProvisionedID  types.String `tfsdk:"provisioned_id"`
	ErrorMessage   types.String `tfsdk:"error_message"`
}

func peeringData(vpcID string, p *api.Peering) peeringDataModel {
	return peeringDataModel{
		ID:             stringValue(p.ID),
		VPCID:          types.StringValue(vpcID),
		PeerAccountID:  stringValue(p.PeerAccountID),
		PeerRegionCode: stringValue(p.PeerRegionCode),
		PeerVPCID:      stringValue(p.PeerVpcID),
		Status:         stringValue(p.Status),
		ProvisionedID:  stringValue(p.ProvisionedID),
		ErrorMessage:   stringValue(p.ErrorMessage),
	}
}

// peeringComputedAttributes are the attributes a peering data source reports.
func peeringComputedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"peer_account_id":  schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud account id that owns the peer VPC."},
		"peer_region_code": schema.StringAttribute{Computed: true, MarkdownDescription: "Region of the peer VPC."},
		"peer_vpc_id":      schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the peer VPC."},
		"status":           schema.StringAttribute{Computed: true, MarkdownDescription: "Status: `pending` until the peer side accepts, then `active` (other values are passed through)."},
		"provisioned_id":   schema.StringAttribute{Computed: true, MarkdownDescription: "The cloud's peering connection id (`pcx-...`); empty until provisioned."},
		"error_message":    schema.StringAttribute{Computed: true, MarkdownDescription: "Why the peering failed; null unless it failed."},
	}
}

func (d *vpcPeeringDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_vpc_peering"
}

func (d *vpcPeeringDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := peeringComputedAttributes()
	attrs["vpc_id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the VPC the peering belongs to.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the peering.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One peering of a VPC, by `vpc_id` and `id`. A peering that does not exist is an error.",
		Attributes:          attrs,
	}
}

func (d *vpcPeeringDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *vpcPeeringDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg peeringDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vpcID, id := cfg.VPCID.ValueString(), cfg.ID.ValueString()
	p, err := d.pd.client.GetPeering(ctx, vpcID, id)
	if api.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "VPC peering not found",
			fmt.Sprintf("There is no peering %s of VPC %s in this project (or no such VPC): %v", id, vpcID, err))
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, "Could not read VPC peering", err)
		return
	}
	out := peeringData(vpcID, p)
	if out.ID.IsNull() {
		out.ID = cfg.ID
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
