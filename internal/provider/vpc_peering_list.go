package provider

// The dbcloud_vpc_peering list resource (terraform query): beside its resource; it reuses flattenPeering.

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- The dbcloud_vpc_peering list resource: the peerings of one VPC.

var _ list.ListResourceWithConfigure = (*vpcPeeringListResource)(nil)

// NewVPCPeeringListResource is the dbcloud_vpc_peering list resource.
func NewVPCPeeringListResource() list.ListResource {
	return manageList(&vpcPeeringListResource{resourceBase{typeName: peeringTypeName}})
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
	if !listConfig(ctx, req, &cfg, stream) {
		return
	}
	vpcID := cfg.VPCID.ValueString()
	peerings, err := r.pd.read().ListPeerings(ctx, vpcID)
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
