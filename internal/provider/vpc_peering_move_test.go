package provider

import (
	"strings"
	"testing"
)

// A timescale_peering_connection of either schema version moves with its ids as our decimal strings
// (timescale_vpc_id is our vpc_id; its own vpc_id is the cloud's id of the VPC, not ours), the peer's
// account, region and VPC, and the identity of both ids.
func TestMoveStatePeering(t *testing.T) {
	for _, version := range []int64{0, 1} {
		for _, addr := range timescaleAddresses {
			m := moveState(t, addr, "timescale_peering_connection", version, timescalePeeringAttrs(4503599627370497, 9007199254740993, nil), peeringTypeName)
			if len(m.diags) > 0 {
				t.Errorf("v%d from %s: diagnostics %q%q", version, addr, m.errors(), m.warnings())
			}
			wantAttrs(t, "from "+addr, m.state, map[string]any{
				"id": "4503599627370497", "vpc_id": "9007199254740993", "peer_account_id": "123456789012",
				"peer_region_code": "us-east-1", "peer_vpc_id": "vpc-0a1b2c3d4e5f67890", "status": "active",
				"provisioned_id": "pcx-0123456789abcdef0", "error_message": nil, "timeouts": nil,
			})
			if !equalPlain(m.identity, map[string]any{"id": "4503599627370497", "vpc_id": "9007199254740993"}) {
				t.Errorf("v%d from %s: identity %v", version, addr, m.identity)
			}
		}
	}
}

// peer_cidr_blocks has no counterpart: one warning when set, whatever its elements (a version 0 state
// may hold them without a usable element type).
func TestMoveStatePeeringCIDRBlocks(t *testing.T) {
	for _, blocks := range [][]any{{"10.20.0.0/16", "10.30.0.0/16"}, {nil}} {
		m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_peering_connection", 0,
			timescalePeeringAttrs(55, 1234, map[string]any{"peer_cidr_blocks": blocks}), peeringTypeName)
		wantAttrs(t, "peer_cidr_blocks", m.state, map[string]any{"id": "55", "vpc_id": "1234"})
		if w := m.warnings(); m.errors() != "" || !strings.Contains(w, "peering 55") || !strings.Contains(w, "peer_cidr_blocks") || strings.Count(w, "\n") != 1 {
			t.Errorf("%v: errors %q, warnings %q", blocks, m.errors(), w)
		}
	}
}

// A Transit Gateway attachment has no counterpart (the REST API peers VPCs only): refused.
func TestMoveStatePeeringTransitGatewayRefused(t *testing.T) {
	attrs := timescalePeeringAttrs(55, 1234, map[string]any{"peer_vpc_id": nil, "peer_tgw_id": "tgw-0123456789abcdef0", "peering_type": "tgw"})
	m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_peering_connection", 1, attrs, peeringTypeName)
	if errs := m.errors(); m.state != nil || !strings.Contains(errs, "timescale_peering_connection 55 attaches a Transit Gateway") || !strings.Contains(errs, "destroy = false") {
		t.Errorf("state %v, errors %q", m.state, errs)
	}
}
