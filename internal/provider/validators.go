package provider

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// decimalID is the plan-time rule for VPC and peering ids, which the API writes as decimal strings
// (1234567890): a library validator, so a typo fails at plan, before anything is created.
func decimalID(what string) validator.String {
	return stringvalidator.RegexMatches(decimalIDPattern, "must be a "+what+" id: a decimal string such as 1234567890")
}

var decimalIDPattern = regexp.MustCompile(`^[0-9]+$`)

// serviceID is the plan-time rule for a service id given as an argument (dbcloud_service's
// fork.source_service_id, dbcloud_read_replica_set.service_id), the form the actions check too
// (serviceIDPattern): a library validator, so a typo fails at plan.
func serviceID() validator.String {
	return stringvalidator.RegexMatches(serviceIDPattern, "must be a service id: 10 lower-case letters and digits, such as rp1pz7uyae")
}

// regionCode is the plan-time rule for region codes (dbcloud_service.region_code, dbcloud_vpc.region_code,
// dbcloud_vpc_peering.peer_region_code): the API's form, cloud region names such as us-east-1 or
// ap-southeast-1 (lower-case words joined by hyphens, ending in a number). The list of regions is the
// server's: a region of the right form that the API does not offer (us-east-9) is the API's to refuse,
// and dbcloud_service's replacement guard (service_plan.go) keeps such a value from deleting a service.
func regionCode() validator.String {
	return stringvalidator.RegexMatches(regionCodePattern,
		"must be a region code in the API's form: lower-case words joined by hyphens, ending in a number, such as us-east-1, eu-west-1 or ap-southeast-1")
}

var regionCodePattern = regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-[0-9]+$`)

// VPC CIDR prefix lengths the provider accepts at plan time. The API has the last word; these bounds
// only catch the obvious mistakes before anything is created.
const (
	vpcCIDRMinBits = 16
	vpcCIDRMaxBits = 28
)

var _ validator.String = cidrValidator{}

// cidrValidator checks at plan time that a string is an IPv4 CIDR block written with its network
// address (10.0.0.0/16, not 10.0.0.1/16) and a prefix length between minBits and maxBits.
type cidrValidator struct {
	minBits, maxBits int
}

// vpcCIDR is the validator of dbcloud_vpc.cidr.
func vpcCIDR() validator.String {
	return cidrValidator{minBits: vpcCIDRMinBits, maxBits: vpcCIDRMaxBits}
}

func (v cidrValidator) Description(_ context.Context) string {
	return fmt.Sprintf("value must be an IPv4 CIDR block in network-address form with a prefix length from /%d to /%d, e.g. 10.0.0.0/16", v.minBits, v.maxBits)
}

func (v cidrValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

// checkCIDR returns "" when s is acceptable, else what is wrong with it (and how to fix it).
func (v cidrValidator) checkCIDR(s string) string {
	example := "10.0.0.0/16"
	if strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q has leading or trailing spaces; write the CIDR block without them, e.g. %s.", s, example)
	}
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Sprintf("%q is not a CIDR block (address/prefix length): %v. Write an IPv4 CIDR block such as %s.", s, err, example)
	}
	if !prefix.Addr().Is4() {
		return fmt.Sprintf("%q is not an IPv4 CIDR block: VPCs use IPv4 address ranges such as %s.", s, example)
	}
	if b := prefix.Bits(); b < v.minBits || b > v.maxBits {
		return fmt.Sprintf("%q has prefix length /%d; a VPC's prefix length must be from /%d (65,536 addresses) to /%d (16 addresses).",
			s, b, v.minBits, v.maxBits)
	}
	if masked := prefix.Masked(); masked != prefix {
		return fmt.Sprintf("%q is not a network address: the host bits after the first %d bits must be zero. Did you mean %s?",
			s, prefix.Bits(), masked)
	}
	return ""
}

func (v cidrValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.checkCIDR(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CIDR block", problem)
	}
}

var _ validator.String = rfc3339StringValidator{}

// rfc3339StringValidator checks that a string is an RFC 3339 timestamp.
type rfc3339StringValidator struct{}

func (rfc3339StringValidator) Description(_ context.Context) string {
	return "value must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z"
}

func (v rfc3339StringValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (rfc3339StringValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid RFC 3339 timestamp",
			fmt.Sprintf("Attribute %s must be an RFC 3339 timestamp such as 2025-01-31T12:00:00Z, got %q: %v", req.Path, s, err))
	}
}

// preferWriteOnly is stringvalidator.PreferWriteOnlyAttribute(writeOnly) that returns at once when
// the value is null or unknown: the library's validator matches paths in the configuration before it
// looks at the value, which cost every plan a schema walk per resource for an argument that is
// rarely set.
func preferWriteOnly(writeOnly path.Expression) validator.String {
	return preferWriteOnlyValidator{String: stringvalidator.PreferWriteOnlyAttribute(writeOnly)}
}

type preferWriteOnlyValidator struct{ validator.String }

func (v preferWriteOnlyValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	v.String.ValidateString(ctx, req, resp)
}
