package provider

// dbcloud_vpc from the official provider's timescale_vpcs (move_state.go): a `moved` block.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithMoveState = (*vpcResource)(nil)

// MoveState takes a timescale_vpcs (one VPC despite the plural; schema version 0, the only one it has had).
func (r *vpcResource) MoveState(context.Context) []resource.StateMover {
	return timescaleMove{target: vpcTypeName, source: "timescale_vpcs", versions: []int64{0}, move: moveTimescaleVPC}.stateMovers()
}

// moveTimescaleVPC maps a timescale_vpcs state: the id (a number there) as our decimal string, the
// name, CIDR and region. Its timeouts.create has no counterpart (a VPC's create does not wait here).
func moveTimescaleVPC(ctx context.Context, src *timescaleState, resp *resource.MoveStateResponse) {
	m := vpcModel{vpcFields: vpcFields{
		ID:         src.decimal("id"),
		Name:       src.str("name"),
		CIDR:       src.str("cidr"),
		RegionCode: src.str("region_code"),
	}}
	if len(src.errs) > 0 {
		return
	}
	if !known(m.ID) {
		resp.Diagnostics.AddError("No id in the timescale_vpcs state", "The timescale_vpcs state has no id, so there is no VPC to move. Nothing was moved.")
		return
	}
	m.Timeouts = movedTimeouts(ctx, resp.TargetState, types.StringNull())
	setMoved(ctx, &m, resp)
}
