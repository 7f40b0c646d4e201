package provider

// dbcloud_vpc_peering from the official provider's timescale_peering_connection (move_state.go): a
// `moved` block.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithMoveState = (*vpcPeeringResource)(nil)

// MoveState takes a timescale_peering_connection of schema version 0 or 1 (both read from the raw
// state: version 0 states may hold peer_cidr_blocks without a usable element type, which only its
// presence matters for here).
func (r *vpcPeeringResource) MoveState(context.Context) []resource.StateMover {
	return timescaleMove{target: peeringTypeName, source: "timescale_peering_connection", versions: []int64{0, 1}, move: moveTimescalePeering}.stateMovers()
}

// moveTimescalePeering maps a timescale_peering_connection state: the id and timescale_vpc_id (numbers
// there) as our decimal strings, the peer's account, region and VPC, and the status, provisioned_id
// and error_message the refresh that follows reads again. Its vpc_id (the cloud's id of the
// Timescale VPC), accepter_provisioned_id and peering_type have no counterpart and need none; a
// Transit Gateway attachment (peer_tgw_id) cannot move: the REST API peers VPCs only.
func moveTimescalePeering(ctx context.Context, src *timescaleState, resp *resource.MoveStateResponse) {
	id := src.decimal("id")
	src.warnOn = "peering " + id.ValueString()
	if src.isSet("peer_tgw_id") || src.str("peering_type").ValueString() == "tgw" {
		resp.Diagnostics.AddError("A Transit Gateway attachment does not move to dbcloud_vpc_peering", fmt.Sprintf(
			"timescale_peering_connection %s attaches a Transit Gateway (peer_tgw_id). dbcloud_vpc_peering peers a VPC with "+
				"another VPC only (peer_vpc_id), so it cannot take it over. Nothing was moved. Remove this moved block and its "+
				"dbcloud_vpc_peering, and keep the attachment on the timescale provider (or stop managing it without destroying "+
				"it: removed { from = ...  lifecycle { destroy = false } }).", id.ValueString()))
		return
	}
	m := vpcPeeringModel{peeringFields: peeringFields{
		ID:             id,
		VPCID:          src.decimal("timescale_vpc_id"),
		PeerAccountID:  src.str("peer_account_id"),
		PeerRegionCode: src.str("peer_region_code"),
		PeerVPCID:      src.str("peer_vpc_id"),
		Status:         src.str("status"),
		ProvisionedID:  src.str("provisioned_id"),
		ErrorMessage:   src.str("error_message"),
	}}
	src.noCounterpart([][2]string{{"peer_cidr_blocks", "the peering's CIDR blocks stay as they are"}})
	if len(src.errs) > 0 {
		return
	}
	if !known(m.ID) || !known(m.VPCID) {
		resp.Diagnostics.AddError("No id in the timescale_peering_connection state",
			"The timescale_peering_connection state lacks its id or timescale_vpc_id, so there is no peering to move. Nothing was moved.")
		return
	}
	m.Timeouts = movedTimeouts(ctx, resp.TargetState, types.StringNull())
	setMoved(ctx, &m, resp)
}
