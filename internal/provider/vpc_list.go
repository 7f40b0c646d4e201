package provider

// The dbcloud_vpc list resource (terraform query): beside its resource; it reuses flattenVPC.

import (
	"context"
	"fmt"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type vpcListModel struct {
	Name types.String `tfsdk:"name"`
}

// NewVPCListResource is the dbcloud_vpc list resource: the VPCs of the provider's project.
func NewVPCListResource() list.ListResource {
	return newList(vpcTypeName, listOf[vpcListModel, api.VPC]{
		schema: listschema.Schema{
			MarkdownDescription: "Lists the VPCs of the provider's project, optionally only those of one name.",
			Attributes: map[string]listschema.Attribute{
				"name": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only VPCs with exactly this name."},
			},
		},
		records: func(ctx context.Context, pd *providerData, _ vpcListModel) ([]api.VPC, string, error) {
			vpcs, err := pd.read().ListVPCs(ctx)
			return vpcs, "Could not list VPCs", err
		},
		model: func(_ *providerData, cfg vpcListModel, timeouts timeouts.Value, v *api.VPC) (any, string, bool) {
			if deref(v.ID) == "" || !listFilterMatches(cfg.Name, deref(v.Name)) {
				return nil, "", false
			}
			return vpcModel{vpcFields: flattenVPC(v), Timeouts: timeouts}, fmt.Sprintf("%s (%s)", deref(v.Name), deref(v.ID)), true
		},
	})
}
