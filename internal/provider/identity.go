package provider

// Resource identity (Terraform >= 1.12) of the four resources (each IdentitySchema is in its resource
// file): kept in sync with state by syncIdentity and imported by importByIdentity, both called by the
// resource wrapper (base.go) only. Every identity attribute has the name of the state attribute it
// mirrors, so that one generic function serves all four resources.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// requiredIdentity is an identity schema of string attributes, each required for import: pairs of a
// name (the state attribute it mirrors) and its description.
func requiredIdentity(pairs ...string) identityschema.Schema {
	attrs := map[string]identityschema.Attribute{}
	for i := 0; i+1 < len(pairs); i += 2 {
		attrs[pairs[i]] = identityschema.StringAttribute{RequiredForImport: true, Description: pairs[i+1]}
	}
	return identityschema.Schema{Attributes: attrs}
}

// identityProjectID is the optional identity attribute naming the project (service only).
const identityProjectID = "project_id"

// syncIdentity sets the identity from the state attributes of the same names (read as top-level
// attributes, attrs: it runs after every Read). It does nothing when there is no identity (a client
// without identity support) or no state (the resource was removed).
func syncIdentity(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || state.Raw.IsNull() {
		return
	}
	a := attrsOf(state.Raw)
	vals, d := identityValues(ctx, identity, func(name string, v *types.String) (d diag.Diagnostics) {
		*v, d = a.string(ctx, name)
		return d
	})
	diags.Append(d...)
	if d.HasError() {
		return
	}
	diags.Append(identity.Set(ctx, vals)...)
}

// identityValues builds an identity object by reading each identity attribute with get.
func identityValues(ctx context.Context, identity *tfsdk.ResourceIdentity, get func(name string, v *types.String) diag.Diagnostics) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	attrTypes := map[string]attr.Type{}
	vals := map[string]attr.Value{}
	for name := range identity.Schema.GetAttributes() {
		var v types.String
		diags.Append(get(name, &v)...)
		if v.IsUnknown() {
			v = types.StringNull()
		}
		attrTypes[name] = types.StringType
		vals[name] = v
	}
	if diags.HasError() {
		return types.ObjectNull(attrTypes), diags
	}
	obj, d := types.ObjectValue(attrTypes, vals)
	diags.Append(d...)
	return obj, diags
}

// importByIdentity handles an import block with `identity = {...}`: it copies the identity into the
// state attributes of the same names (Read fills in the rest) and reports true. Import by a string id
// (req.ID set) is left to the caller: it reports false.
func importByIdentity(ctx context.Context, pd *providerData, req resource.ImportStateRequest, resp *resource.ImportStateResponse) bool {
	if req.ID != "" || req.Identity == nil || req.Identity.Raw.IsNull() {
		return false
	}
	typeName := "this resource"
	for name, a := range req.Identity.Schema.GetAttributes() {
		var v types.String
		resp.Diagnostics.Append(req.Identity.GetAttribute(ctx, path.Root(name), &v)...)
		if resp.Diagnostics.HasError() {
			return true
		}
		value := strings.TrimSpace(v.ValueString())
		required := false
		if ra, ok := a.(interface{ IsRequiredForImport() bool }); ok {
			required = ra.IsRequiredForImport()
		}
		if value == "" || strings.Contains(value, "/") {
			if required || value != "" {
				resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid import identity",
					fmt.Sprintf("Importing %s by identity needs a non-empty %s without \"/\", got %q.", typeName, name, v.ValueString()))
			}
			continue
		}
		if name == identityProjectID && pd != nil && value != pd.client.ProjectID() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Import identity names another project",
				fmt.Sprintf("The identity names project %q, but this provider is configured for project %q: every resource of a provider "+
					"configuration lives in its project_id. Import with a provider configured for %q, or leave project_id out.",
					value, pd.client.ProjectID(), value))
			continue
		}
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), value)...)
	}
	return true
}
