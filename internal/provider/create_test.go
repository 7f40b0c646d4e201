package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A create's messages are data (createMessages): {id} and {status} come from the state the create
// saved, the others from the failure; a value is put in as it is, never read as a template again.
func TestCreateMessagesFill(t *testing.T) {
	ctx, sch := t.Context(), schemaOf(t, NewReadReplicaSetResource())
	state := tfsdk.State{Schema: sch, Raw: tftypes.NewValue(sch.Type().TerraformType(ctx), nil)}
	for name, v := range map[string]string{"id": "rs7k2m9q4x", "status": "creating"} {
		if d := state.SetAttribute(ctx, path.Root(name), v); d.HasError() {
			t.Fatal(d)
		}
	}
	var msg createMessages
	got := msg.fill(ctx, `set {id} (status "{status}"): {summary}: {error}`, state, "{summary}", "Could not create", "{error}", "a {status} error")
	if want := `set rs7k2m9q4x (status "creating"): Could not create: a {status} error`; got != want {
		t.Errorf("fill:\n got %s\nwant %s", got, want)
	}
	if got := msg.fill(ctx, "no names", state); got != "no names" {
		t.Errorf("a text without names: %q", got)
	}
}

// TestMalformedAnswer_createWithoutID: an API that accepts a create but answers a record without
// its id. The client decodes it (the record is valid JSON); the resource's Create turns it into an
// error diagnostic that says so, sends the create once, and stores nothing in state (the provider
// cannot track an object it has no id for; the message says to look for it and import it).
func TestMalformedAnswer_createWithoutID(t *testing.T) {
	cases := []struct {
		name   string
		res    fwresource.Resource
		plan   map[string]any
		answer string
	}{
		{"service", NewServiceResource(), map[string]any{"name": "db"}, `{"name":"db","status":"QUEUED","initial_password":"p4ssw0rd-initial"}`},
		{"service (id null)", NewServiceResource(), map[string]any{"name": "db"}, `{"service_id":null,"name":"db","status":"QUEUED"}`},
		{"read replica set", NewReadReplicaSetResource(), map[string]any{"service_id": "rp1pz7uyae", "name": "r", "nodes": 1, "cpu_millis": 1000, "memory_gbs": 4},
			`{"name":"r","status":"creating","nodes":1}`},
		{"VPC", NewVPCResource(), map[string]any{"name": "vpc", "cidr": "10.0.0.0/16", "region_code": "us-east-1"}, `{"name":"vpc","cidr":"10.0.0.0/16"}`},
		{"VPC (id empty)", NewVPCResource(), map[string]any{"name": "vpc", "cidr": "10.0.0.0/16", "region_code": "us-east-1"}, `{"id":"","name":"vpc"}`},
		{"VPC peering", NewVPCPeeringResource(), map[string]any{"vpc_id": "1234567890", "peer_account_id": "123456789012",
			"peer_region_code": "us-east-1", "peer_vpc_id": "vpc-1"}, `{"status":"pending","provisioned_id":""}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			posts := 0
			client := fuzzClient(t, routedAnswer{create: tc.answer, posts: &posts})
			tc.res.(fwresource.ResourceWithConfigure).Configure(ctx, fwresource.ConfigureRequest{
				ProviderData: &providerData{client: client, backoff: testBackoff},
			}, &fwresource.ConfigureResponse{})
			var sresp fwresource.SchemaResponse
			tc.res.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
			obj := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
			vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
			for name, typ := range obj.AttributeTypes {
				switch v := tc.plan[name].(type) {
				case string:
					vals[name] = tftypes.NewValue(tftypes.String, v)
				case int:
					vals[name] = tftypes.NewValue(tftypes.Number, v)
				default:
					vals[name] = tftypes.NewValue(typ, nil)
				}
			}
			raw := tftypes.NewValue(obj, vals)
			req := fwresource.CreateRequest{
				Plan:   tfsdk.Plan{Schema: sresp.Schema, Raw: raw},
				Config: tfsdk.Config{Schema: sresp.Schema, Raw: raw},
			}
			resp := fwresource.CreateResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(obj, nil)}}
			tc.res.Create(ctx, req, &resp)

			if !resp.Diagnostics.HasError() {
				t.Fatalf("a create answered without an id gave no error; state: %v", resp.State.Raw)
			}
			detail := resp.Diagnostics.Errors()[0].Summary() + ": " + resp.Diagnostics.Errors()[0].Detail()
			if !strings.Contains(detail, "without") || !strings.Contains(detail, "id") {
				t.Errorf("the error does not say the answer lacked the id: %s", detail)
			}
			if posts != 1 {
				t.Errorf("%d create requests sent, want exactly 1", posts)
			}
			if !resp.State.Raw.IsNull() {
				t.Errorf("state holds an object without id: %v", resp.State.Raw)
			}
			t.Logf("diagnostic: %s", detail)
		})
	}
}
