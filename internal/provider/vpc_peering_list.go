package provider

// The dbcloud_vpc_peering list resource (terraform query): beside its resource; it reuses flattenPeering.

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type vpcPeeringListModel struct {
	VPCID types.String `tfsdk:"vpc_id"`
}

// NewVPCPeeringListResource is the dbcloud_vpc_peering list resource: the peerings of one VPC.
func NewVPCPeeringListResource() list.ListResource {
	return newList(peeringTypeName, listOf[vpcPeeringListModel, api.Peering]{
		schema: listschema.Schema{
			MarkdownDescription: "Lists the peerings of one VPC (peerings being deleted are left out).",
			Attributes: map[string]listschema.Attribute{
				"vpc_id": listschema.StringAttribute{Required: true, MarkdownDescription: "Id of the VPC whose peerings to list."},
			},
		},
		records: func(ctx context.Context, pd *providerData, cfg vpcPeeringListModel) ([]api.Peering, string, error) {
			peerings, err := pd.read().ListPeerings(ctx, cfg.VPCID.ValueString())
			return peerings, fmt.Sprintf("Could not list the peerings of VPC %s", cfg.VPCID.ValueString()), err
		},
		model: func(_ *providerData, cfg vpcPeeringListModel, timeouts timeouts.Value, p *api.Peering) (any, string, bool) {
			if deref(p.ID) == "" || strings.EqualFold(deref(p.Status), "deleting") {
				return nil, "", false
			}
			vpcID := cfg.VPCID.ValueString()
			m := vpcPeeringModel{peeringFields: flattenPeering(vpcID, p), Timeouts: timeouts}
			return m, fmt.Sprintf("%s/%s -> %s", vpcID, deref(p.ID), deref(p.PeerVpcID)), true
		},
	})
}
