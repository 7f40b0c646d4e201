package provider

// The dbcloud_vpc list resource (terraform query): beside its resource; it reuses flattenVPC.

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// ---- The dbcloud_vpc list resource: the VPCs of the provider's project.

var _ list.ListResourceWithConfigure = (*vpcListResource)(nil)

// NewVPCListResource is the dbcloud_vpc list resource.
func NewVPCListResource() list.ListResource {
	return manageList(&vpcListResource{resourceBase{typeName: vpcTypeName}})
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
	if !listConfig(ctx, req, &cfg, stream) {
		return
	}
	vpcs, err := r.pd.read().ListVPCs(ctx)
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
