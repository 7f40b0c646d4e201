package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// plannedOver: a known planned value wins over what the resource wrote, an unknown one keeps it, and
// partly known objects and lists are merged element by element.
func TestPlannedOver(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	unknownStr := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	nullStr := tftypes.NewValue(tftypes.String, nil)
	endpoint := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"host": tftypes.String, "port": tftypes.String}}
	list := tftypes.List{ElementType: tftypes.String}
	set := tftypes.Set{ElementType: tftypes.String}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "host": tftypes.String, "password_wo": tftypes.String,
		"endpoint": endpoint, "tags": list, "addons": set,
	}}
	obj := func(name, host, pw tftypes.Value, ep, tags, addons tftypes.Value) tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{"name": name, "host": host, "password_wo": pw, "endpoint": ep, "tags": tags, "addons": addons})
	}
	ep := func(host, port tftypes.Value) tftypes.Value {
		return tftypes.NewValue(endpoint, map[string]tftypes.Value{"host": host, "port": port})
	}
	strs := func(t tftypes.Type, vals ...tftypes.Value) tftypes.Value { return tftypes.NewValue(t, vals) }

	planned := obj(str("planned"), unknownStr, nullStr,
		ep(unknownStr, str("5432")),
		strs(list, str("a"), unknownStr),
		strs(set, str("x"), unknownStr))
	got := obj(str("renamed-elsewhere"), str("h.example"), str("secret"),
		ep(str("e.example"), str("6432")),
		strs(list, str("b"), str("c")),
		strs(set, str("y"), str("z")))
	want := obj(str("planned"), str("h.example"), nullStr,
		ep(str("e.example"), str("5432")),
		strs(list, str("a"), str("c")),
		strs(set, str("y"), str("z")))

	out, err := plannedOver(planned, got)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Equal(want) {
		t.Errorf("plannedOver:\n got %s\nwant %s", out, want)
	}

	// A list of another length, and a null object under a partly known plan, keep what was written.
	shorter := strs(list, str("only"))
	if out, _ := plannedOver(strs(list, str("a"), unknownStr), shorter); !out.Equal(shorter) {
		t.Errorf("list of another length: got %s", out)
	}
	nullEP := tftypes.NewValue(endpoint, nil)
	if out, _ := plannedOver(ep(unknownStr, str("5432")), nullEP); !out.Equal(nullEP) {
		t.Errorf("null object: got %s", out)
	}
}

// keepPlannedState leaves the state alone after an error (a failed apply records what exists) and
// when the object was removed.
func TestKeepPlannedStateAfterError(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	val := func(s string) tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, s)})
	}
	plan := tfsdk.Plan{Raw: val("planned")}

	state := tfsdk.State{Raw: val("api")}
	var diags diag.Diagnostics
	diags.AddError("Could not rename", "404")
	keepPlannedState(context.Background(), plan, &state, &diags)
	if !state.Raw.Equal(val("api")) {
		t.Errorf("after an error the state became %s", state.Raw)
	}

	state = tfsdk.State{Raw: val("api")}
	keepPlannedState(context.Background(), plan, &state, &diag.Diagnostics{})
	if !state.Raw.Equal(val("planned")) {
		t.Errorf("after a successful apply the state is %s, want the planned name", state.Raw)
	}
}
