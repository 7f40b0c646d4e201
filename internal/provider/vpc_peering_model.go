package provider

// The dbcloud_vpc_peering model, below its behaviour files: a peering record mapped once
// (flattenPeering) for the resource, the dbcloud_vpc_peering and dbcloud_vpc_peerings data sources and
// the list resource, and the resource's model (vpcPeeringModel) that embeds those fields.

import (
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// peeringFields is a peering record flattened into Terraform values, with the id of its VPC (which
// the record does not carry): the model of the dbcloud_vpc_peering data source and of each element
// of dbcloud_vpc_peerings, embedded in the resource's model. Missing fields are null.
type peeringFields struct {
	ID             types.String `tfsdk:"id"`
	VPCID          types.String `tfsdk:"vpc_id"`
	PeerAccountID  types.String `tfsdk:"peer_account_id"`
	PeerRegionCode types.String `tfsdk:"peer_region_code"`
	PeerVPCID      types.String `tfsdk:"peer_vpc_id"`
	Status         types.String `tfsdk:"status"`
	ProvisionedID  types.String `tfsdk:"provisioned_id"`
	ErrorMessage   types.String `tfsdk:"error_message"`
}

// flattenPeering maps every field of a peering record of VPC vpcID.
func flattenPeering(vpcID string, p *api.Peering) peeringFields {
	return peeringFields{
		ID:             types.StringPointerValue(p.ID),
		VPCID:          types.StringValue(vpcID),
		PeerAccountID:  types.StringPointerValue(p.PeerAccountID),
		PeerRegionCode: types.StringPointerValue(p.PeerRegionCode),
		PeerVPCID:      types.StringPointerValue(p.PeerVpcID),
		Status:         types.StringPointerValue(p.Status),
		ProvisionedID:  types.StringPointerValue(p.ProvisionedID),
		ErrorMessage:   types.StringPointerValue(p.ErrorMessage),
	}
}

// applyRecord copies what the API reports into the model. Fields the record leaves out keep their
// value, except error_message, whose absence means "no error".
func (m *vpcPeeringModel) applyRecord(p *api.Peering) {
	if p == nil {
		return
	}
	prev := m.peeringFields
	m.peeringFields = flattenPeering(prev.VPCID.ValueString(), p)
	m.VPCID = prev.VPCID
	keepIfNull(&m.ID, prev.ID)
	keepIfNull(&m.PeerAccountID, prev.PeerAccountID)
	keepIfNull(&m.PeerRegionCode, prev.PeerRegionCode)
	keepIfNull(&m.PeerVPCID, prev.PeerVPCID)
	keepIfNull(&m.Status, prev.Status)
	keepIfNull(&m.ProvisionedID, prev.ProvisionedID)
}

// vpcPeeringModel is the resource's model: the peering's fields (peeringFields, mapped from a record
// by applyRecord, vpc_peering_model.go) and its timeouts.
type vpcPeeringModel struct {
	peeringFields
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}
