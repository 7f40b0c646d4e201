package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
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

func TestValidCIDR_accepts(t *testing.T) {
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

func TestValidCIDR_rejects(t *testing.T) {
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

func TestValidCIDR_describes(t *testing.T) {
	d := vpcCIDR().Description(context.Background())
	if !strings.Contains(d, "/16") || !strings.Contains(d, "/28") || !strings.Contains(d, "10.0.0.0/16") {
		t.Errorf("description %q should name the bounds and an example", d)
	}
}

// Names count characters, not bytes (a 100-character non-ASCII name is valid; 129 characters are not),
// and VPC and peering ids must be decimal strings at plan time.
func TestNetValidatorsFromLibrary(t *testing.T) {
	ctx := context.Background()
	run := func(vs []validator.String, s string) int {
		var resp validator.StringResponse
		for _, v := range vs {
			v.ValidateString(ctx, validator.StringRequest{Path: path.Root("x"), ConfigValue: types.StringValue(s)}, &resp)
		}
		return resp.Diagnostics.ErrorsCount()
	}
	var rsSchema fwresource.SchemaResponse
	(&readReplicaSetResource{}).Schema(ctx, fwresource.SchemaRequest{}, &rsSchema)
	var vpcSchema fwresource.SchemaResponse
	(&vpcResource{}).Schema(ctx, fwresource.SchemaRequest{}, &vpcSchema)
	for name, sch := range map[string]rschema.Schema{"read replica set": rsSchema.Schema, "vpc": vpcSchema.Schema} {
		vs := sch.Attributes["name"].(rschema.StringAttribute).Validators
		if n := run(vs, strings.Repeat("é", 100)); n != 0 {
			t.Errorf("%s: a 100-character non-ASCII name must be valid, got %d errors", name, n)
		}
		if n := run(vs, strings.Repeat("a", 129)); n == 0 {
			t.Errorf("%s: a 129-character name must be rejected", name)
		}
	}
	for s, want := range map[string]int{"1234567890": 0, "vpc-0abc": 1, "12 34": 1, "": 1} {
		if got := run([]validator.String{decimalID("VPC")}, s); got != want {
			t.Errorf("decimalID(%q): %d errors, want %d", s, got, want)
		}
	}
}

// Region codes have the API's form at plan time, for every resource that takes one; the list of
// regions is the server's, so a well-formed region it does not offer is not refused here.
func TestRegionCode(t *testing.T) {
	ctx := context.Background()
	check := func(s string) int {
		var resp validator.StringResponse
		regionCode().ValidateString(ctx, validator.StringRequest{Path: path.Root("region_code"), ConfigValue: types.StringValue(s)}, &resp)
		return resp.Diagnostics.ErrorsCount()
	}
	for _, s := range []string{"us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1", "us-gov-west-1", "us-east-9"} {
		if n := check(s); n != 0 {
			t.Errorf("%q: %d errors, want none", s, n)
		}
	}
	for _, s := range []string{"", "US-EAST-1", "us-east", "useast1", "us_east_1", "us-east-1a", " us-east-1", "us-east-1 ", "us east 1", "1-east-1", "eu-west-01x"} {
		if n := check(s); n != 1 {
			t.Errorf("%q: %d errors, want 1", s, n)
		}
	}
}

// Every value whose form is known fails at plan, naming the attribute, before anything exists: region
// codes of services, VPCs and peerings, and the service ids of a fork block and of a read replica set.
func TestAccArgumentForms_validatedAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	const region = "must be a region code in the API's form"
	const svcID = "must be a service id: 10 lower-case letters and digits"
	cases := []struct{ body, want string }{
		{`
resource "dbcloud_service" "s" {
  name        = "x"
  region_code = "US-East-1"
}`, "Attribute region_code " + region},
		{`
resource "dbcloud_vpc" "v" {
  name        = "x"
  cidr        = "10.0.0.0/16"
  region_code = "useast1"
}`, "Attribute region_code " + region},
		{`
resource "dbcloud_vpc_peering" "p" {
  vpc_id           = "1234567890"
  peer_account_id  = "123456789012"
  peer_region_code = "us-east"
  peer_vpc_id      = "vpc-0abc"
}`, "Attribute peer_region_code " + region},
		{`
resource "dbcloud_service" "s" {
  name = "x"
  fork {
    source_service_id = "Rp1pz7uyae "
  }
}`, "Attribute fork.source_service_id " + svcID},
		{`
resource "dbcloud_read_replica_set" "r" {
  service_id = "rp1pz7uya"
  name       = "x"
  nodes      = 1
  cpu_millis = 500
  memory_gbs = 2
}`, "Attribute service_id " + svcID},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      providerBlock(srv) + c.body,
			PlanOnly:    true,
			ExpectError: words(c.want),
		})
	}
	resource.ParallelTest(t, testCase(t, srv, steps...))
}
