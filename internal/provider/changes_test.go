package provider

import (
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Every configurable attribute (and block) of dbcloud_service's schema is an entry of serviceChanges,
// a replacement (serviceReplacements replaces the service when it changes), paused (start and stop),
// or in the Terraform-only list (serviceTerraformOnly): an attribute added to the schema without its
// entry, or an entry removed, fails here, where the apply would record the planned value without
// calling the API. The replacements and paused are checked against the code that decides them, and
// each attribute is in exactly one place.
func TestServiceAttributesHaveAChange(t *testing.T) {
	where := map[string][]string{} // attribute -> the places that hold it
	for _, c := range serviceChanges {
		for _, a := range c.attrs {
			where[a] = append(where[a], "serviceChanges")
		}
	}
	for _, a := range serviceTerraformOnly {
		where[a] = append(where[a], "serviceTerraformOnly")
	}
	for _, a := range replacingServiceAttrs(t) {
		where[a] = append(where[a], "serviceReplacements")
	}
	if pausing(t) {
		where["paused"] = append(where["paused"], "start/stop")
	}
	eachAttributeInOnePlace(t, serviceTypeName, schemaOf(t, NewServiceResource()), where, "serviceChanges", "serviceTerraformOnly")
}

// Every configurable attribute (and block) of dbcloud_read_replica_set's schema is an entry of
// replicaSetChanges, replaces the set (a plan modifier of its schema attribute answers a change with
// RequiresReplace), or is in the Terraform-only list (replicaSetTerraformOnly): an attribute added to
// the schema without its entry, or an entry removed, fails here, where the apply would record the
// planned value without calling the API.
func TestReplicaSetAttributesHaveAChange(t *testing.T) {
	sch := schemaOf(t, NewReadReplicaSetResource())
	where := map[string][]string{} // attribute -> the places that hold it
	for _, c := range replicaSetChanges {
		for _, a := range c.attrs {
			where[a] = append(where[a], "replicaSetChanges")
		}
	}
	for _, a := range replicaSetTerraformOnly {
		where[a] = append(where[a], "replicaSetTerraformOnly")
	}
	for name, a := range sch.Attributes {
		if replacesOnChange(t, name, a) {
			where[name] = append(where[name], "RequiresReplace")
		}
	}
	eachAttributeInOnePlace(t, replicaSetTypeName, sch, where, "replicaSetChanges", "replicaSetTerraformOnly")
}

// eachAttributeInOnePlace fails for a configurable attribute (or block) of the resource's schema that
// where holds in no place or in more than one, and for a name in where that is not one; entries and
// terraformOnly name the resource's list of changes and of Terraform-only attributes in the message.
func eachAttributeInOnePlace(t *testing.T, typeName string, sch schema.Schema, where map[string][]string, entries, terraformOnly string) {
	t.Helper()
	var configurable []string
	for name, a := range sch.Attributes {
		if a.IsOptional() || a.IsRequired() {
			configurable = append(configurable, name)
		}
	}
	for name := range sch.Blocks {
		configurable = append(configurable, name)
	}
	for _, name := range configurable {
		switch places := where[name]; len(places) {
		case 0:
			t.Errorf("%s's configurable attribute %q is in no %s entry, replaces nothing and is not in %s: "+
				"give it an entry (or say why it is Terraform-only)", typeName, name, entries, terraformOnly)
		case 1:
		default:
			t.Errorf("%s's attribute %q is in more than one place: %v", typeName, name, places)
		}
	}
	for name := range where {
		if !slices.Contains(configurable, name) {
			t.Errorf("%q (%v) is not a configurable attribute of %s's schema", name, where[name], typeName)
		}
	}
}

// replacesOnChange says whether a plan modifier of the schema attribute a (name) answers a change of
// its value in an update with RequiresReplace: the code that decides a replacement, run.
func replacesOnChange(t *testing.T, name string, a schema.Attribute) bool {
	t.Helper()
	ctx, obj := t.Context(), tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})
	state, plan, at := tfsdk.State{Raw: obj}, tfsdk.Plan{Raw: obj}, path.Root(name)
	replaces := false
	switch a := a.(type) {
	case schema.StringAttribute:
		for _, m := range a.PlanModifiers {
			var resp planmodifier.StringResponse
			m.PlanModifyString(ctx, planmodifier.StringRequest{Path: at, State: state, Plan: plan,
				StateValue: types.StringValue("before"), PlanValue: types.StringValue("after"), ConfigValue: types.StringValue("after")}, &resp)
			replaces = replaces || resp.RequiresReplace
		}
	case schema.Int64Attribute:
		for _, m := range a.PlanModifiers {
			var resp planmodifier.Int64Response
			m.PlanModifyInt64(ctx, planmodifier.Int64Request{Path: at, State: state, Plan: plan,
				StateValue: types.Int64Value(1), PlanValue: types.Int64Value(2), ConfigValue: types.Int64Value(2)}, &resp)
			replaces = replaces || resp.RequiresReplace
		}
	case schema.BoolAttribute:
		for _, m := range a.PlanModifiers {
			var resp planmodifier.BoolResponse
			m.PlanModifyBool(ctx, planmodifier.BoolRequest{Path: at, State: state, Plan: plan,
				StateValue: types.BoolValue(false), PlanValue: types.BoolValue(true), ConfigValue: types.BoolValue(true)}, &resp)
			replaces = replaces || resp.RequiresReplace
		}
	default:
		if a.IsOptional() || a.IsRequired() {
			t.Errorf("attribute %q is a %T: replacesOnChange cannot run its plan modifiers yet; add its type", name, a)
		}
	}
	return replaces
}

// replacingServiceAttrs are the attributes whose change serviceReplacements answers with a replacement,
// each found by changing it alone.
func replacingServiceAttrs(t *testing.T) []string {
	t.Helper()
	forkAttrs := map[string]attr.Value{"source_service_id": types.StringValue("src0000001"), "strategy": types.StringNull(), "target_time": types.StringNull()}
	changes := map[string]func(m *serviceResourceModel){
		"region_code": func(m *serviceResourceModel) { m.RegionCode = types.StringValue("eu-west-1") },
		"addons":      func(m *serviceResourceModel) { m.Addons = serviceAddonsSet([]string{"ai"}) },
		"fork":        func(m *serviceResourceModel) { m.Fork = types.ObjectValueMust(serviceForkAttrTypes, forkAttrs) },
	}
	var out []string
	for name, change := range changes {
		state := serviceResourceModel{serviceFields: serviceFields{
			RegionCode: types.StringValue("us-east-1"), Addons: serviceAddonsSet([]string{"time-series"}), ServiceType: types.StringValue("TIMESCALEDB"),
			ForkedFrom: types.ObjectNull(serviceForkedFromAttrTypes),
		}, Fork: types.ObjectNull(serviceForkAttrTypes)}
		plan := state
		change(&plan)
		if got := serviceReplacements(t.Context(), plan, state, false); !reflect.DeepEqual(got, path.Paths{path.Root(name)}) {
			t.Errorf("changing %s alone: serviceReplacements = %v, want [%s]", name, got, name)
			continue
		}
		out = append(out, name)
	}
	return out
}

// pausing says whether paused is start and stop: a plan that pauses a running service stops it, one
// that resumes a paused service starts it.
func pausing(t *testing.T) bool {
	t.Helper()
	running := serviceResourceModel{}
	running.Paused = types.BoolValue(false)
	paused := running
	paused.Paused = types.BoolValue(true)
	stop, start := planServiceActions(running, paused), planServiceActions(paused, running)
	if len(stop) != 1 || stop[0].Call != stopAction.Call || len(start) != 1 || start[0].Call != startAction.Call {
		t.Errorf("paused: pausing plans %v, resuming %v; want stop and start", stop, start)
		return false
	}
	return true
}
