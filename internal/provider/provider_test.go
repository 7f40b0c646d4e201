package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Both ways in the provider block are refused by the provider's config validators, which Terraform
// runs at validate and at plan, before Configure.
func TestProviderValidateConfig_TokenAndKeys(t *testing.T) {
	ctx := context.Background()
	p := &dbcloudProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	for name, tc := range map[string]struct {
		set     map[string]string
		wantErr bool
	}{
		"token and access key":      {map[string]string{"token": "t", "access_key": "a"}, true},
		"token and secret key":      {map[string]string{"token": "t", "secret_key": "s"}, true},
		"token and the key pair":    {map[string]string{"token": "t", "access_key": "a", "secret_key": "s"}, true},
		"token alone":               {map[string]string{"token": "t"}, false},
		"key pair alone":            {map[string]string{"access_key": "a", "secret_key": "s"}, false},
		"nothing (the environment)": {nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			attrs := map[string]tftypes.Value{}
			for attr, typ := range objType.AttributeTypes {
				if v, ok := tc.set[attr]; ok {
					attrs[attr] = tftypes.NewValue(typ, v)
				} else {
					attrs[attr] = tftypes.NewValue(typ, nil)
				}
			}
			req := provider.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, attrs)}}
			var errs []string
			for _, v := range p.ConfigValidators(ctx) {
				resp := &provider.ValidateConfigResponse{}
				v.ValidateProvider(ctx, req, resp)
				for _, d := range resp.Diagnostics.Errors() {
					errs = append(errs, d.Detail())
				}
			}
			if got := len(errs) > 0; got != tc.wantErr {
				t.Fatalf("errors %q, want an error: %v", errs, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(strings.Join(errs, " "), "token") {
				t.Errorf("the error does not name token: %q", errs)
			}
		})
	}
}

// Both ways to authenticate at once are refused at plan, before any request: in the provider block
// (the config validators), and in the environment.
func TestAccToken_bothSchemesRefused(t *testing.T) {
	srv := newTokenEmulator(t)
	const vpc = `
resource "dbcloud_vpc" "net" {
  name        = "both"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}
`
	t.Run("provider block", func(t *testing.T) {
		resource.Test(t, testCase(t, srv, resource.TestStep{
			Config: fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  token      = %q
  access_key = %q
  secret_key = %q
  project_id = %q
}
`, srv.URL, testToken, testAccessKey, testSecretKey, testProjectID) + vpc,
			PlanOnly:    true,
			ExpectError: words("cannot be configured together", "token", "access_key"),
		}))
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv(EnvToken, testToken)
		t.Setenv(EnvAccessKey, testAccessKey)
		t.Setenv(EnvSecretKey, testSecretKey)
		resource.Test(t, testCase(t, srv, resource.TestStep{
			Config: fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  project_id = %q
}
`, srv.URL, testProjectID) + vpc,
			PlanOnly:    true,
			ExpectError: words("Two ways to authenticate", "Both DBCLOUD_TOKEN and DBCLOUD_ACCESS_KEY/DBCLOUD_SECRET_KEY are set"),
		}))
	})
	if n := srv.Calls(""); n != 0 {
		t.Errorf("%d requests reached the API: %s", n, requestList(srv.Requests()))
	}
}

// BenchmarkProviderSchema measures a provider server from its creation to the full schema served
// (GetProviderSchema: the provider, every resource and data source), i.e. the in-process part of the
// start-up of every provider process Terraform launches (scripts/bench.sh adds the exec and handshake).
func BenchmarkProviderSchema(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		srv := providerserver.NewProtocol6(New("bench")())()
		resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || len(resp.Diagnostics) > 0 || len(resp.ResourceSchemas) == 0 {
			b.Fatalf("GetProviderSchema: %v %v", err, resp.Diagnostics)
		}
	}
}
