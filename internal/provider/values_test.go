package provider

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
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

// richServiceState is a dbcloud_service state with every kind of value the model holds: strings,
// numbers, booleans, the addons set, the forked_from object, the fork block, timeouts, nulls, and an
// unknown (a state never holds one, but the readers must convert it as the framework does).
func richServiceState(t *testing.T) tfsdk.State {
	t.Helper()
	ctx := t.Context()
	state := resourceState(t, NewServiceResource())
	var svc api.Service
	raw := `{"service_id":"s1","project_id":"p1","name":"n","region_code":"eu-west-1","service_type":"TIMESCALEDB",
	  "created":"2025-01-31T12:00:00Z","status":"READY",
	  "resources":[{"id":"r","spec":{"cpu_millis":2000,"memory_gbs":8,"volume_type":"gp3"}}],
	  "metadata":{"environment":"PROD"},"endpoint":{"host":"h","port":5432},
	  "connection_pooler":{"endpoint":{"host":"p","port":6432}},
	  "forked_from":{"project_id":"p1","service_id":"s0","is_standby":false}}`
	if err := json.Unmarshal([]byte(raw), &svc); err != nil {
		t.Fatal(err)
	}
	m := serviceResourceModel{serviceFields: flattenService(&svc), Password: types.StringValue("secret"),
		PasswordWO: types.StringNull(), PasswordWOVersion: types.Int64Value(3), DeletionProtection: types.BoolValue(true),
		AllowReplacement: types.BoolNull(), InitialPassword: types.StringUnknown(),
		Fork: types.ObjectValueMust(serviceForkAttrTypes, map[string]attr.Value{"source_service_id": types.StringValue("s0"),
			"strategy": types.StringValue("PITR"), "target_time": types.StringValue("2025-01-31T11:00:00Z")})}
	if d := state.GetAttribute(ctx, path.Root("timeouts"), &m.Timeouts); d.HasError() {
		t.Fatal(d)
	}
	if d := state.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	if d := state.SetAttribute(ctx, path.Root("timeouts").AtName("create"), types.StringValue("45m")); d.HasError() {
		t.Fatal(d)
	}
	return state
}

// attrs reads a top-level attribute as the framework's GetAttribute does, for every attribute of a
// service's state and of a null state, and says so when the attribute does not exist.
func TestAttrsReadAsGetAttribute(t *testing.T) {
	ctx := t.Context()
	for name, state := range map[string]tfsdk.State{"state": richServiceState(t), "null state": resourceState(t, NewServiceResource())} {
		a := attrsOf(state.Raw)
		for attrName, a0 := range state.Schema.GetAttributes() {
			var got, want attr.Value
			var d diag.Diagnostics
			switch a0.GetType() {
			case types.StringType:
				got, d = a.string(ctx, attrName)
			case types.BoolType:
				got, d = a.bool(ctx, attrName)
			case types.Int64Type:
				got, d = a.int64(ctx, attrName)
			default:
				continue
			}
			if d.HasError() {
				t.Fatalf("%s: %s: %v", name, attrName, d)
			}
			if d := state.GetAttribute(ctx, path.Root(attrName), &want); d.HasError() {
				t.Fatal(d)
			}
			if !got.Equal(want) {
				t.Errorf("%s: %s = %v, GetAttribute reads %v", name, attrName, got, want)
			}
		}
		if null := name == "null state"; a.null("fork") != null || a.null("name") != null || a.null("timeouts") != null {
			t.Errorf("%s: null(fork) = %v, null(name) = %v, null(timeouts) = %v", name, a.null("fork"), a.null("name"), a.null("timeouts"))
		}
		if !a.null("no_such_attribute") {
			t.Errorf("%s: an attribute the state does not have is not null", name)
		}
	}
	if _, d := attrsOf(richServiceState(t).Raw).string(ctx, "no_such_attribute"); !d.HasError() {
		t.Error("an attribute the state does not have is read without an error")
	}
	if _, d := attrsOf(richServiceState(t).Raw).bool(ctx, "name"); !d.HasError() {
		t.Error("a string attribute is read as a bool without an error")
	}
}

// getState decodes a state into its model exactly as the framework's State.Get does, and leaves a
// model that does not fit the schema to State.Get (and its error).
func TestGetStateIsStateGet(t *testing.T) {
	ctx := t.Context()
	state := richServiceState(t)
	var got, want serviceResourceModel
	if d := getState(ctx, state, &got); d.HasError() {
		t.Fatal(d)
	}
	if d := state.Get(ctx, &want); d.HasError() {
		t.Fatal(d)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("getState = %+v\nState.Get = %+v", got, want)
	}
	create, _ := got.Timeouts.Create(ctx, 0)
	if !got.InitialPassword.IsUnknown() || got.Fork.IsNull() || got.ForkedFrom.IsNull() || got.Password.ValueString() != "secret" || create.Minutes() != 45 {
		t.Errorf("getState lost values: %+v", got)
	}
	var other vpcModel
	if d := getState(ctx, state, &other); !d.HasError() {
		t.Error("a VPC model decoded from a service state without an error")
	}
}

// setState writes a model into a state exactly as the framework's State.Set does, and leaves a model
// that does not fit the schema to State.Set (and its error).
func TestSetStateIsStateSet(t *testing.T) {
	ctx := t.Context()
	var m serviceResourceModel
	if d := getState(ctx, richServiceState(t), &m); d.HasError() {
		t.Fatal(d)
	}
	m.Name = types.StringValue("renamed")
	m.InitialPassword = types.StringNull()
	got, want := resourceState(t, NewServiceResource()), resourceState(t, NewServiceResource())
	if d := setState(ctx, &got, &m); d.HasError() {
		t.Fatal(d)
	}
	if d := want.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	if !got.Raw.Equal(want.Raw) {
		diffs, _ := got.Raw.Diff(want.Raw)
		t.Errorf("setState and State.Set differ: %v", diffs)
	}
	other := vpcModel{vpcFields: vpcFields{ID: types.StringValue("1")}}
	if d := setState(ctx, &got, &other); !d.HasError() {
		t.Error("a VPC model written into a service state without an error")
	}
	bad := m
	bad.Addons = types.SetValueMust(types.Int64Type, []attr.Value{types.Int64Value(1)}) // not the schema's type
	if d := setState(ctx, &got, &bad); !d.HasError() {
		t.Error("a value of another type written without an error")
	}
}
