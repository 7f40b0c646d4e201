package provider

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Every resource the provider registers (provider.go) is wrapped by manageResource (so it has the
// wrapper's identity sync, planned values, placeholder resolution and analytics, and its one lookup
// of a lost create: the wrapper holds it), has an identity schema whose attributes are attributes of
// its schema, and has a list resource of its type; and every list resource lists a registered
// resource.
func TestUnitRegistryResourcesWrappedWithIdentityAndList(t *testing.T) {
	ctx := t.Context()
	p := &dbcloudProvider{}
	var listed []string
	for _, newList := range p.ListResources(ctx) {
		var meta resource.MetadataResponse
		newList().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dbcloud"}, &meta)
		listed = append(listed, meta.TypeName)
	}
	var types []string
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "dbcloud"}, &meta)
		name := meta.TypeName
		types = append(types, name)
		m, ok := r.(*managedResource)
		if !ok {
			t.Errorf("%s: %T is not wrapped by manageResource", name, r)
			continue
		}
		if m.findPlaceholder == nil {
			t.Errorf("%s: the wrapper has no lookup of a lost create", name)
		}
		var schemaResp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &schemaResp)
		var idResp resource.IdentitySchemaResponse
		m.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &idResp)
		if len(idResp.IdentitySchema.Attributes) == 0 {
			t.Errorf("%s: no identity schema", name)
		}
		for attr := range idResp.IdentitySchema.Attributes {
			if _, ok := schemaResp.Schema.Attributes[attr]; !ok {
				t.Errorf("%s: identity attribute %q is not an attribute of the schema", name, attr)
			}
		}
		if !slices.Contains(listed, name) {
			t.Errorf("%s: no list resource (list resources: %v)", name, listed)
		}
	}
	for _, name := range listed {
		if !slices.Contains(types, name) {
			t.Errorf("list resource %s lists no registered resource (resources: %v)", name, types)
		}
	}
	if len(types) == 0 {
		t.Fatal("no resource registered")
	}
}
