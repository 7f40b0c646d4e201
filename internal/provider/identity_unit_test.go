package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

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
