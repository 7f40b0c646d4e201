package provider

import "testing"

// A timescale_vpcs moves with its number id as our decimal string (every digit), its name, CIDR and
// region, and the identity of its id; its computed values are the refresh's.
func TestMoveStateVPC(t *testing.T) {
	attrs := timescaleVPCAttrs(9007199254740993, "main", "10.10.0.0/16")
	attrs["timeouts"] = map[string]any{"create": "20m"} // no counterpart: a VPC's create does not wait here
	for _, addr := range timescaleAddresses {
		m := moveState(t, addr, "timescale_vpcs", 0, attrs, vpcTypeName)
		if len(m.diags) > 0 {
			t.Errorf("from %s: diagnostics %q%q", addr, m.errors(), m.warnings())
		}
		wantAttrs(t, "from "+addr, m.state, map[string]any{
			"id": "9007199254740993", "name": "main", "cidr": "10.10.0.0/16", "region_code": "us-east-1", "timeouts": nil,
		})
		if !equalPlain(m.identity, map[string]any{"id": "9007199254740993"}) {
			t.Errorf("from %s: identity %v", addr, m.identity)
		}
	}
}
