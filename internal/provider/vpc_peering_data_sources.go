package provider

// The dbcloud_vpc_peering and dbcloud_vpc_peerings data sources.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewVPCPeeringDataSource is the dbcloud_vpc_peering data source.
func NewVPCPeeringDataSource() datasource.DataSource {
	return manageDataSource(&vpcPeeringDataSource{dataSourceBase{typeName: peeringTypeName}})
}

type vpcPeeringDataSource struct{ dataSourceBase }

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

func (d *vpcPeeringDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := peeringComputedAttributes()
	attrs["vpc_id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the VPC the peering belongs to (a decimal string).",
		Validators:          []validator.String{decimalID("VPC")},
	}
	attrs["id"] = schema.StringAttribute{
		Required:            true,
		MarkdownDescription: "Id of the peering (a decimal string).",
		Validators:          []validator.String{decimalID("peering")},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One peering of a VPC, by `vpc_id` and `id`. A peering that does not exist is an error.",
		Attributes:          attrs,
	}
}

func (d *vpcPeeringDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg peeringFields
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vpcID, id := cfg.VPCID.ValueString(), cfg.ID.ValueString()
	p, err := d.pd.read().GetPeering(ctx, vpcID, id)
	if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("id"), "VPC peering not found", "Could not read VPC peering",
		fmt.Sprintf("There is no peering %s of VPC %s in this project (or no such VPC): %v", id, vpcID, err)) {
		return
	}
	out := flattenPeering(vpcID, p)
	if out.ID.IsNull() {
		out.ID = cfg.ID
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}

// NewVPCPeeringsDataSource is the dbcloud_vpc_peerings data source.
func NewVPCPeeringsDataSource() datasource.DataSource {
	return manageDataSource(&vpcPeeringsDataSource{dataSourceBase{typeName: peeringsTypeName}})
}

type vpcPeeringsDataSource struct{ dataSourceBase }

type vpcPeeringsDataModel struct {
	VPCID    types.String    `tfsdk:"vpc_id"`
	Peerings []peeringFields `tfsdk:"peerings"`
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
				MarkdownDescription: "Id of the VPC whose peerings to list (a decimal string).",
				Validators:          []validator.String{decimalID("VPC")},
			},
			"peerings": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The VPC's peerings (empty when it has none).",
				NestedObject:        schema.NestedAttributeObject{Attributes: item},
			},
		},
	}
}

func (d *vpcPeeringsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg vpcPeeringsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	vpcID := cfg.VPCID.ValueString()
	peerings, err := d.pd.read().ListPeerings(ctx, vpcID)
	if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("vpc_id"), "VPC not found", "Could not list VPC peerings",
		fmt.Sprintf("There is no VPC %s in this project, so it has no peerings to list: %v", vpcID, err)) {
		return
	}
	cfg.Peerings = make([]peeringFields, 0, len(peerings))
	for i := range peerings {
		cfg.Peerings = append(cfg.Peerings, flattenPeering(vpcID, &peerings[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
