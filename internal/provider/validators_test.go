package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func validateCIDR(v types.String) []string {
	req := validator.StringRequest{Path: path.Root("cidr"), ConfigValue: v}
	var resp validator.StringResponse
	vpcCIDR().ValidateString(context.Background(), req, &resp)
	var out []string
	for _, d := range resp.Diagnostics.Errors() {
		out = append(out, d.Detail())
	}
	return out
}

func TestUnitValidCIDR_accepts(t *testing.T) {
	for _, s := range []string{"10.0.0.0/16", "172.16.0.0/20", "192.168.1.0/24", "10.1.2.16/28", "100.64.0.0/16"} {
		if errs := validateCIDR(types.StringValue(s)); len(errs) != 0 {
			t.Errorf("%s: unexpected errors %v", s, errs)
		}
	}
	// Unknown (from another resource) and null are left to apply time / Required.
	if errs := validateCIDR(types.StringUnknown()); len(errs) != 0 {
		t.Errorf("unknown: %v", errs)
	}
	if errs := validateCIDR(types.StringNull()); len(errs) != 0 {
		t.Errorf("null: %v", errs)
	}
}

func TestUnitValidCIDR_rejects(t *testing.T) {
	cases := []struct{ in, want string }{
		{"10.0.0.1/16", "Did you mean 10.0.0.0/16?"},
		{"192.168.1.77/24", "Did you mean 192.168.1.0/24?"},
		{"10.0.0.0/8", "prefix length /8"},
		{"10.0.0.0/29", "prefix length /29"},
		{"10.0.0.0", "is not a CIDR block"},
		{"10.0.0.0/", "is not a CIDR block"},
		{"10.0.0.256/16", "is not a CIDR block"},
		{"010.0.0.0/16", "is not a CIDR block"},
		{"vpc", "is not a CIDR block"},
		{"", "is not a CIDR block"},
		{" 10.0.0.0/16", "leading or trailing spaces"},
		{"fd00::/16", "is not an IPv4 CIDR block"},
		{"::ffff:10.0.0.0/112", "is not an IPv4 CIDR block"},
	}
	for _, c := range cases {
		errs := validateCIDR(types.StringValue(c.in))
		if len(errs) != 1 {
			t.Errorf("%q: got %d errors %v, want 1", c.in, len(errs), errs)
			continue
		}
		if !strings.Contains(errs[0], c.want) {
			t.Errorf("%q: error %q does not contain %q", c.in, errs[0], c.want)
		}
	}
}

func TestUnitValidCIDR_describes(t *testing.T) {
	d := vpcCIDR().Description(context.Background())
	if !strings.Contains(d, "/16") || !strings.Contains(d, "/28") || !strings.Contains(d, "10.0.0.0/16") {
		t.Errorf("description %q should name the bounds and an example", d)
	}
}
