package provider

// The dbcloud_vpc model, below its behaviour files: a VPC record mapped once (flattenVPC) for the
// resource, the dbcloud_vpc and dbcloud_vpcs data sources and the list resource, and the resource's
// model (vpcModel) that embeds those fields.

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// vpcFields is a VPC record flattened into Terraform values: the model of the dbcloud_vpc data source
// and of each element of dbcloud_vpcs, embedded in the resource's model. Missing fields are null.
type vpcFields struct {
	ID         types.String `tfsdk:"id"`
	Name       types.String `tfsdk:"name"`
	CIDR       types.String `tfsdk:"cidr"`
	RegionCode types.String `tfsdk:"region_code"`
}

// flattenVPC maps every field of a VPC record.
func flattenVPC(v *api.VPC) vpcFields {
	return vpcFields{
		ID:         types.StringPointerValue(v.ID),
		Name:       types.StringPointerValue(v.Name),
		CIDR:       types.StringPointerValue(v.Cidr),
		RegionCode: types.StringPointerValue(v.RegionCode),
	}
}

// applyRecord copies what the API reports into the model. Fields the record leaves out keep their value.
func (m *vpcModel) applyRecord(v *api.VPC) {
	if v == nil {
		return
	}
	prev := m.vpcFields
	m.vpcFields = flattenVPC(v)
	keepIfNull(&m.ID, prev.ID)
	keepIfNull(&m.Name, prev.Name)
	keepIfNull(&m.CIDR, prev.CIDR)
	keepIfNull(&m.RegionCode, prev.RegionCode)
}

// vpcModel is the resource's model: the VPC's fields (vpcFields, mapped from a record by
// applyRecord, vpc_model.go) and its timeouts.
type vpcModel struct {
	vpcFields
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}
