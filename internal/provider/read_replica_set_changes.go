package provider

// dbcloud_read_replica_set: what an update can change in place is one list, replicaSetChanges, on the
// one mechanism of in-place changes (changes.go) that the service's serviceChanges uses: each entry
// names its attributes, says when the plan changes them and gives its calls. Derived from the list:
// the plan's status (ModifyPlan), the calls of Update, and the settings a create makes once the set is
// active (afterCreate), made by the one loop of changes.go (runActions). Every configurable attribute is
// an entry, a replacement (RequiresReplace) or Terraform-only (replicaSetTerraformOnly), which
// TestReplicaSetAttributesHaveAChange holds. The calls go through wait.WhileBusy (read_replica_set_calls.go).

import (
	"context"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// replicaSetUpdateFailed is the failure summary of every call of an update of a set.
const replicaSetUpdateFailed = "Could not update read replica set"

// replicaSetChanges is the one list of what an update of a set changes in place, in the order an
// update makes the calls. Planned values that are unknown (the optional settings, when neither the
// configuration nor the state has one) change nothing.
var replicaSetChanges = changes[readReplicaSetModel]{
	{
		// The API fixes nodes at create; a resize changes the size of each node, then the set is waited
		// for until it is active at the new size.
		attrs: []string{"cpu_millis", "memory_gbs"}, note: "resize",
		changed: func(plan, state readReplicaSetModel) bool {
			return !plan.CPUMillis.Equal(state.CPUMillis) || !plan.MemoryGbs.Equal(state.MemoryGbs)
		},
		calls: func(plan, state readReplicaSetModel) []changeAction[readReplicaSetModel] {
			size := serviceSize{int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64())}
			serviceID, name := state.ServiceID.ValueString(), state.Name.ValueString()
			return []changeAction[readReplicaSetModel]{{Call: "resize", Value: size, update: replicaSetUpdateFailed,
				run: func(ctx context.Context, pd *providerData, id string) error {
					return resizeReplicaSet(ctx, pd, serviceID, id, name, size.CPUMillis, size.MemoryGbs)
				},
			}}
		},
	},
	{
		attrs: []string{"connection_pooler_enabled"},
		changed: func(plan, state readReplicaSetModel) bool {
			return !plan.ConnectionPoolerEnabled.Equal(state.ConnectionPoolerEnabled)
		},
		calls: func(plan, state readReplicaSetModel) []changeAction[readReplicaSetModel] {
			on, serviceID := plan.ConnectionPoolerEnabled.ValueBool(), plan.ServiceID.ValueString()
			return onlyIf(known(plan.ConnectionPoolerEnabled), changeAction[readReplicaSetModel]{Call: "set_pooler", Value: on, update: replicaSetUpdateFailed,
				run: func(ctx context.Context, pd *providerData, id string) error {
					return setReplicaSetPooler(ctx, pd, serviceID, id, on)
				},
			})
		},
		afterCreate: true,
	},
	{
		attrs: []string{"environment"},
		changed: func(plan, state readReplicaSetModel) bool {
			return !plan.Environment.Equal(state.Environment)
		},
		calls: func(plan, state readReplicaSetModel) []changeAction[readReplicaSetModel] {
			env, serviceID := plan.Environment.ValueString(), plan.ServiceID.ValueString()
			return onlyIf(known(plan.Environment), changeAction[readReplicaSetModel]{Call: "set_environment", Value: api.Environment(env), update: replicaSetUpdateFailed,
				run: func(ctx context.Context, pd *providerData, id string) error {
					return setReplicaSetEnvironment(ctx, pd, serviceID, id, env)
				},
			})
		},
		afterCreate: true,
	},
}

// replicaSetTerraformOnly are the configurable attributes of dbcloud_read_replica_set that are neither
// an entry of replicaSetChanges nor replace the set (RequiresReplace in its schema): the settings of the
// provider's own, which no API call changes. TestReplicaSetAttributesHaveAChange holds every
// configurable attribute to one of these.
var replicaSetTerraformOnly = []string{"timeouts"}
