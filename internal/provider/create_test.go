package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A create's messages are data (createMessages): {id} and {status} come from the state the create
// saved, the others from the failure; a value is put in as it is, never read as a template again.
func TestUnitCreateMessagesFill(t *testing.T) {
	ctx := t.Context()
	var sch resource.SchemaResponse
	NewReadReplicaSetResource().Schema(ctx, resource.SchemaRequest{}, &sch)
	state := tfsdk.State{Schema: sch.Schema, Raw: tftypes.NewValue(sch.Schema.Type().TerraformType(ctx), nil)}
	var m readReplicaSetModel
	m.ID, m.Status = types.StringValue("rs7k2m9q4x"), types.StringValue("creating")
	m.Timeouts = timeouts.Value{Object: types.ObjectNull(sch.Schema.Blocks["timeouts"].Type().(timeouts.Type).AttrTypes)}
	nullUnknowns(&m)
	if d := state.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
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
