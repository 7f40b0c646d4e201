package provider

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Every action, ephemeral resource and list resource is behind the wrapper's configured guard
// (base.go): used before the provider is configured, each answers the one "Provider not configured"
// error and makes no call of its own.
func TestWrappersGuardUnconfigured(t *testing.T) {
	ctx := context.Background()
	p := &dbcloudProvider{}
	wantGuard := func(t *testing.T, name string, diags diag.Diagnostics) {
		t.Helper()
		if len(diags) != 1 || diags[0].Summary() != "Provider not configured" {
			t.Errorf("%s before Configure: %v, want exactly the configured guard's error", name, diags)
		}
	}
	for _, newAction := range p.Actions(ctx) {
		a := newAction()
		var meta action.MetadataResponse
		a.Metadata(ctx, action.MetadataRequest{ProviderTypeName: "dbcloud"}, &meta)
		var resp action.InvokeResponse
		a.Invoke(ctx, action.InvokeRequest{}, &resp)
		wantGuard(t, meta.TypeName, resp.Diagnostics)
	}
	for _, newEphemeral := range p.EphemeralResources(ctx) {
		e := newEphemeral()
		var resp ephemeral.OpenResponse
		e.Open(ctx, ephemeral.OpenRequest{}, &resp)
		wantGuard(t, "ephemeral resource", resp.Diagnostics)
	}
	for _, newList := range p.ListResources(ctx) {
		l := newList()
		stream := &list.ListResultsStream{}
		l.List(ctx, list.ListRequest{}, stream)
		var diags diag.Diagnostics
		for r := range stream.Results {
			diags.Append(r.Diagnostics...)
		}
		wantGuard(t, "list resource", diags)
	}
}

// Every resource the provider registers (provider.go) is wrapped by manageResource (so it has the
// wrapper's identity sync, planned values, placeholder resolution and analytics, and its one lookup
// of a lost create: the wrapper holds it), has an identity schema whose attributes are attributes of
// its schema, and has a list resource of its type; and every list resource lists a registered
// resource.
func TestRegistryResourcesWrappedWithIdentityAndList(t *testing.T) {
	ctx := t.Context()
	p := &dbcloudProvider{}
	var listed []string
	for _, newList := range p.ListResources(ctx) {
		var meta fwresource.MetadataResponse
		newList().Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "dbcloud"}, &meta)
		listed = append(listed, meta.TypeName)
	}
	var types []string
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta fwresource.MetadataResponse
		r.Metadata(ctx, fwresource.MetadataRequest{ProviderTypeName: "dbcloud"}, &meta)
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
		var idResp fwresource.IdentitySchemaResponse
		m.IdentitySchema(ctx, fwresource.IdentitySchemaRequest{}, &idResp)
		if len(idResp.IdentitySchema.Attributes) == 0 {
			t.Errorf("%s: no identity schema", name)
		}
		for attr := range idResp.IdentitySchema.Attributes {
			if _, ok := schemaOf(t, r).Attributes[attr]; !ok {
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

// schemaOf is a resource's schema.
func schemaOf(t *testing.T, r fwresource.Resource) schema.Schema {
	t.Helper()
	var resp fwresource.SchemaResponse
	r.Schema(t.Context(), fwresource.SchemaRequest{}, &resp)
	return resp.Schema
}
