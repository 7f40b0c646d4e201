package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// identityStackConfig is a VPC, a service in it, a replica set of the service and a peering of the
// VPC: every resource type once, in a shape that imports without changes (no addons, no password).
func identityStackConfig(srv *emulatortest.Server) string {
	return providerBlock(srv) + `
resource "dbcloud_vpc" "net" {
  name        = "ident-net"
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name                      = "ident-db"
  addons                    = []
  region_code               = "us-east-1"
  vpc_id                    = dbcloud_vpc.net.id
  connection_pooler_enabled = true
}

resource "dbcloud_read_replica_set" "reader" {
  service_id = dbcloud_service.db.id
  name       = "ident-reader"
  cpu_millis = 500
  memory_gbs = 2
}

resource "dbcloud_vpc_peering" "peer" {
  vpc_id           = dbcloud_vpc.net.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-0ident"
}
`
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+$`)

// Resource identity (Terraform >= 1.12): Create and Read keep it equal to the state's ids, and every
// resource imports by identity (import block with `identity = {...}`) with no change planned.
func TestAccIdentity_allResources(t *testing.T) {
	srv := newTestEmulator(t)
	const (
		vpcAddr     = "dbcloud_vpc.net"
		serviceAddr = "dbcloud_service.db"
		replicaAddr = "dbcloud_read_replica_set.reader"
		peerAddr    = "dbcloud_vpc_peering.peer"
	)
	id := tfjsonpath.New("id")
	importStep := func(addr string, kind resource.ImportStateKind) resource.TestStep {
		return resource.TestStep{
			Config:          identityStackConfig(srv),
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: kind,
		}
	}
	tc := testCase(t, srv,
		resource.TestStep{
			Config: identityStackConfig(srv),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity(serviceAddr, map[string]knownvalue.Check{
					"id":         knownvalue.StringRegexp(idPattern),
					"project_id": knownvalue.StringExact(testProjectID),
				}),
				statecheck.ExpectIdentityValueMatchesState(serviceAddr, id),
				statecheck.ExpectIdentity(replicaAddr, map[string]knownvalue.Check{
					"service_id": knownvalue.StringRegexp(idPattern),
					"id":         knownvalue.StringRegexp(idPattern),
				}),
				statecheck.ExpectIdentityValueMatchesState(replicaAddr, id),
				statecheck.ExpectIdentityValueMatchesState(replicaAddr, tfjsonpath.New("service_id")),
				statecheck.ExpectIdentity(vpcAddr, map[string]knownvalue.Check{
					"id": knownvalue.StringRegexp(idPattern),
				}),
				statecheck.ExpectIdentityValueMatchesState(vpcAddr, id),
				statecheck.ExpectIdentity(peerAddr, map[string]knownvalue.Check{
					"vpc_id": knownvalue.StringRegexp(idPattern),
					"id":     knownvalue.StringRegexp(idPattern),
				}),
				statecheck.ExpectIdentityValueMatchesState(peerAddr, id),
				statecheck.ExpectIdentityValueMatchesState(peerAddr, tfjsonpath.New("vpc_id")),
			},
		},
		importStep(serviceAddr, resource.ImportBlockWithResourceIdentity),
		importStep(replicaAddr, resource.ImportBlockWithResourceIdentity),
		importStep(vpcAddr, resource.ImportBlockWithResourceIdentity),
		importStep(peerAddr, resource.ImportBlockWithResourceIdentity),
		// The string ids still work, in an import block too.
		importStep(serviceAddr, resource.ImportBlockWithID),
		func() resource.TestStep {
			s := importStep(replicaAddr, resource.ImportBlockWithID)
			s.ImportStateIdFunc = netTestImportID(replicaAddr, "service_id", "id")
			return s
		}(),
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}
	resource.ParallelTest(t, tc)
}

// An identity that names another project is refused with a clear message.
func TestAccIdentity_otherProjectRefused(t *testing.T) {
	srv := newTestEmulator(t)
	svcID := netTestService(t, srv, "ident-other")
	tc := testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
import {
  to       = dbcloud_service.db
  identity = { id = %q, project_id = "someotherproj" }
}

resource "dbcloud_service" "db" {
  name   = "ident-other"
  addons = []
}
`, svcID),
			PlanOnly:    true,
			ExpectError: words(`Import identity names another project`, `someotherproj`),
		},
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
import {
  to       = dbcloud_service.db
  identity = { id = %q, project_id = %q }
}

resource "dbcloud_service" "db" {
  name   = "ident-other"
  addons = []
}
`, svcID, testProjectID),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectIdentity("dbcloud_service.db", map[string]knownvalue.Check{
					"id":         knownvalue.StringExact(svcID),
					"project_id": knownvalue.StringExact(testProjectID),
				}),
			},
			ConfigPlanChecks: emptyPlanAfterApply(),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}
	resource.ParallelTest(t, tc)
}

// importByIdentity without a terraform binary (so it runs on every CLI of the matrix): the identity's
// attributes land in state, a foreign project_id and a missing required attribute are refused, and an
// import by string id is left to the resource.
func TestImportByIdentity(t *testing.T) {
	ctx := context.Background()
	client, err := api.New(api.Config{BaseURL: "http://127.0.0.1:1/v1", AccessKey: "a", SecretKey: "s", ProjectID: testProjectID})
	if err != nil {
		t.Fatal(err)
	}
	r := &serviceResource{resourceBase{pd: &providerData{client: client}}}
	var schemaResp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &schemaResp)
	var idResp fwresource.IdentitySchemaResponse
	r.IdentitySchema(ctx, fwresource.IdentitySchemaRequest{}, &idResp)

	identity := func(id, project *string) *tfsdk.ResourceIdentity {
		typ := idResp.IdentitySchema.Type().TerraformType(ctx)
		val := func(s *string) tftypes.Value {
			if s == nil {
				return tftypes.NewValue(tftypes.String, nil)
			}
			return tftypes.NewValue(tftypes.String, *s)
		}
		return &tfsdk.ResourceIdentity{Schema: idResp.IdentitySchema, Raw: tftypes.NewValue(typ, map[string]tftypes.Value{"id": val(id), "project_id": val(project)})}
	}
	importWith := func(req fwresource.ImportStateRequest) (fwresource.ImportStateResponse, bool) {
		resp := fwresource.ImportStateResponse{
			State:    tfsdk.State{Schema: schemaResp.Schema, Raw: tftypes.NewValue(schemaResp.Schema.Type().TerraformType(ctx), nil)},
			Identity: req.Identity,
		}
		handled := importByIdentity(ctx, r.pd, req, &resp)
		return resp, handled
	}
	str := func(s string) *string { return &s }

	resp, handled := importWith(fwresource.ImportStateRequest{Identity: identity(str("rp1pz7uyae"), str(testProjectID))})
	if !handled || resp.Diagnostics.HasError() {
		t.Fatalf("import by identity: handled %v, %v", handled, resp.Diagnostics)
	}
	for name, want := range map[string]string{"id": "rp1pz7uyae", "project_id": testProjectID} {
		var got types.String
		resp.State.GetAttribute(ctx, path.Root(name), &got)
		if got.ValueString() != want {
			t.Errorf("state %s = %q, want %q", name, got.ValueString(), want)
		}
	}

	resp, _ = importWith(fwresource.ImportStateRequest{Identity: identity(str("rp1pz7uyae"), nil)})
	if resp.Diagnostics.HasError() {
		t.Errorf("project_id is optional: %v", resp.Diagnostics)
	}

	resp, _ = importWith(fwresource.ImportStateRequest{Identity: identity(str("rp1pz7uyae"), str("otherproj1"))})
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), "otherproj1") {
		t.Errorf("a foreign project_id must be refused, got %v", resp.Diagnostics)
	}

	resp, _ = importWith(fwresource.ImportStateRequest{Identity: identity(nil, nil)})
	if !resp.Diagnostics.HasError() {
		t.Error("a missing id must be refused")
	}

	if _, handled := importWith(fwresource.ImportStateRequest{ID: "rp1pz7uyae"}); handled {
		t.Error("an import by string id must be left to the resource")
	}
}
