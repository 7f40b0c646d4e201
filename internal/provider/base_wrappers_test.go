package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
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
