package provider

import (
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The read replica set's in-place changes (replicaSetChanges) plan the calls its Update and Create
// made by hand before: a resize on a new size, the pooler and the environment when the plan knows
// them; unknown planned settings are no call, and a create sets only what the record differs in.
func TestReplicaSetChanges(t *testing.T) {
	set := func(cpu, mem int64, pooler types.Bool, env types.String) readReplicaSetModel {
		var m readReplicaSetModel
		m.CPUMillis, m.MemoryGbs, m.ConnectionPoolerEnabled, m.Environment = types.Int64Value(cpu), types.Int64Value(mem), pooler, env
		return m
	}
	calls := func(actions []changeAction[readReplicaSetModel]) []string {
		var out []string
		for _, a := range actions {
			out = append(out, a.String())
		}
		return out
	}
	off, dev := types.BoolValue(false), types.StringValue("DEV")
	state := set(1000, 4, off, dev)
	tests := []struct {
		name    string
		plan    readReplicaSetModel
		want    []string
		changed []string
	}{
		{"no change", set(1000, 4, off, dev), nil, nil},
		{"resize", set(2000, 8, off, dev), []string{"resize 2000/8"}, []string{"cpu_millis/memory_gbs"}},
		{"every change, in order", set(500, 2, types.BoolValue(true), types.StringValue("PROD")),
			[]string{"resize 500/2", "set_pooler true", "set_environment PROD"},
			[]string{"cpu_millis/memory_gbs", "connection_pooler_enabled", "environment"}},
		// Unknown settings plan the status (ModifyPlan) but make no call.
		{"unknown settings", set(1000, 4, types.BoolUnknown(), types.StringUnknown()), nil, []string{"connection_pooler_enabled", "environment"}},
	}
	for _, tt := range tests {
		if got := calls(replicaSetChanges.actions(tt.plan, state)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: calls %v, want %v", tt.name, got, tt.want)
		}
		if got := replicaSetChanges.changedAttrs(tt.plan, state); !reflect.DeepEqual(got, tt.changed) {
			t.Errorf("%s: changed %v, want %v", tt.name, got, tt.changed)
		}
	}
	// A create: the size is the create call's; the pooler and the environment follow the plan.
	created := set(1000, 4, off, dev)
	if got, want := calls(replicaSetChanges.afterCreate(set(2000, 8, types.BoolValue(true), dev), created)), []string{"set_pooler true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after create: %v, want %v", got, want)
	}
}
