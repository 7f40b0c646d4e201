package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// sameValues decides whether a service Read may leave the state as it is: every attribute, the
// embedded fields and nested values included, must be equal.
func TestSameValues(t *testing.T) {
	base := serviceResourceModel{serviceFields: serviceFields{
		ID: types.StringValue("svc1"), Name: types.StringValue("orders"), CPUMillis: types.Int64Value(1000),
		Addons: types.SetValueMust(types.StringType, []attr.Value{types.StringValue("time-series")}),
	}, DeletionProtection: types.BoolValue(true)}
	same := base
	if !sameValues(&same, &base) {
		t.Fatal("a copy is not the same")
	}
	for name, change := range map[string]func(m *serviceResourceModel){
		"embedded field": func(m *serviceResourceModel) { m.Name = types.StringValue("orders-console") },
		"number":         func(m *serviceResourceModel) { m.CPUMillis = types.Int64Value(2000) },
		"null":           func(m *serviceResourceModel) { m.CPUMillis = types.Int64Null() },
		"set element": func(m *serviceResourceModel) {
			m.Addons = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("ai")})
		},
		"resource-only field": func(m *serviceResourceModel) { m.DeletionProtection = types.BoolValue(false) },
	} {
		got := base
		change(&got)
		if sameValues(&got, &base) || sameValues(&base, &got) {
			t.Errorf("%s: a changed model is the same", name)
		}
	}
	if base.Name.ValueString() != "orders" {
		t.Error("sameValues changed its argument")
	}
}
