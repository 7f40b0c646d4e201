package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
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
