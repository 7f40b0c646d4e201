package provider

// dbcloud_service: what an update can change in place is one list, serviceChanges: each entry
// names its attributes, says when the plan changes them, and gives its calls with the values they take
// from the plan, how a record shows each call applied, what each records once it succeeded, their
// failure summaries, and whether the create call can set it. Derived from the list: the pure plan of
// calls (planServiceActions, run by Update in service_update.go), the plan's paused check
// (serviceChangesNeedingRunning), the calls after a create (serviceCreateActions), the "In place:"
// sentence of the resource's description (serviceInPlaceSentence); the data sources' attributes follow
// the model (withResourceFields), and the drift test's cases follow the list. The list is on the one
// mechanism of in-place changes (changes.go), which the read replica set's list uses too; every
// configurable attribute is an entry, a replacement, paused or Terraform-only (serviceTerraformOnly),
// which TestServiceAttributesHaveAChange holds. The calls go through changeService (service_calls.go).

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// serviceAction is one call of an update of a service (the one mechanism of in-place changes,
// changes.go).
type serviceAction = changeAction[serviceResourceModel]

// serviceChanges is the one list of what an update can change in place, in the order an update makes
// the calls. A new in-place attribute is its model field (with its line in flattenService), its schema
// attribute, one entry here and the API client's method. Start and stop (paused) are not in it: a
// paused service accepts none of these, so start comes first and stop last.
var serviceChanges = changes[serviceResourceModel]{
	{
		attrs: []string{"name"}, note: "rename",
		changed: func(plan, state serviceResourceModel) bool {
			return !plan.Name.IsUnknown() && !plan.Name.Equal(state.Name)
		},
		calls: func(plan, state serviceResourceModel) []serviceAction {
			return onlyIf(changedKnown(plan.Name, state.Name), serviceCall[string]{
				name: "rename", update: "Could not rename the service",
				doing: func(v string) string { return "the new name " + v },
				send: func(ctx context.Context, c *api.Client, id, v string) error {
					_, err := c.RenameService(ctx, id, v)
					return err
				},
				applied: func(f serviceFields, v string) bool { return f.Name.ValueString() == v },
				record:  func(cur *serviceResourceModel, plan serviceResourceModel) { cur.Name = plan.Name },
			}.with(plan.Name.ValueString()))
		},
	},
	{
		attrs: []string{"vpc_id"}, note: "detach/attach",
		changed: func(plan, state serviceResourceModel) bool { return !plan.VpcID.Equal(state.VpcID) },
		calls: func(plan, state serviceResourceModel) []serviceAction {
			return append(onlyIf(known(state.VpcID), serviceCall[string]{
				name: "detach_vpc", update: "Could not detach the service from its VPC", async: true,
				doing:   func(v string) string { return "detaching from VPC " + v },
				send:    func(ctx context.Context, c *api.Client, id, v string) error { return c.DetachFromVPC(ctx, id, v) },
				applied: func(f serviceFields, _ string) bool { return f.VpcID.IsNull() },
				record:  func(cur *serviceResourceModel, _ serviceResourceModel) { cur.VpcID = types.StringNull() },
			}.with(state.VpcID.ValueString())),
				onlyIf(known(plan.VpcID), serviceCall[string]{
					name: "attach_vpc", update: "Could not attach the service to the VPC", create: "Service created but attaching it to the VPC failed", async: true,
					doing:   func(v string) string { return "attaching to VPC " + v },
					send:    func(ctx context.Context, c *api.Client, id, v string) error { return c.AttachToVPC(ctx, id, v) },
					applied: func(f serviceFields, v string) bool { return f.VpcID.ValueString() == v },
					record:  func(cur *serviceResourceModel, plan serviceResourceModel) { cur.VpcID = plan.VpcID },
				}.with(plan.VpcID.ValueString()))...)
		},
		afterCreate: true,
	},
	{
		attrs: []string{"cpu_millis", "memory_gbs"}, note: "resize",
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.CPUMillis, state.CPUMillis) || changedKnown(plan.MemoryGbs, state.MemoryGbs)
		},
		calls: func(plan, _ serviceResourceModel) []serviceAction {
			return onlyIf(known(plan.CPUMillis) && known(plan.MemoryGbs), serviceCall[serviceSize]{
				name: "resize", update: "Could not resize the service", async: true,
				doing: func(serviceSize) string { return "resizing" },
				send: func(ctx context.Context, c *api.Client, id string, v serviceSize) error {
					return c.ResizeService(ctx, id, v.CPUMillis, v.MemoryGbs)
				},
				applied: func(f serviceFields, v serviceSize) bool {
					return f.CPUMillis.ValueInt64() == int64(v.CPUMillis) && f.MemoryGbs.ValueInt64() == int64(v.MemoryGbs)
				},
				record: func(cur *serviceResourceModel, plan serviceResourceModel) {
					cur.CPUMillis, cur.MemoryGbs = plan.CPUMillis, plan.MemoryGbs
				},
			}.with(serviceSize{int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64())}))
		},
	},
	{
		attrs: []string{"ha_replicas", "sync_replicas"},
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.HAReplicas, state.HAReplicas) || changedKnown(plan.SyncReplicas, state.SyncReplicas)
		},
		calls: func(plan, state serviceResourceModel) []serviceAction {
			var ha serviceHA // only the counts that change are sent
			if changedKnown(plan.HAReplicas, state.HAReplicas) {
				ha.Replicas = ptr(int(plan.HAReplicas.ValueInt64()))
			}
			if changedKnown(plan.SyncReplicas, state.SyncReplicas) {
				ha.Sync = ptr(int(plan.SyncReplicas.ValueInt64()))
			}
			return []serviceAction{serviceCall[serviceHA]{
				name: "set_ha", update: "Could not change the HA replicas", create: "Service created but setting HA replicas failed", async: true,
				doing: func(serviceHA) string { return "setting HA replicas" },
				send: func(ctx context.Context, c *api.Client, id string, v serviceHA) error {
					return c.SetHA(ctx, id, api.SetHAInput{ReplicaCount: v.Replicas, SyncReplicaCount: v.Sync})
				},
				applied: func(f serviceFields, v serviceHA) bool {
					return (v.Replicas == nil || f.HAReplicas.ValueInt64() == int64(*v.Replicas)) &&
						(v.Sync == nil || f.SyncReplicas.ValueInt64() == int64(*v.Sync))
				},
			}.with(ha)}
		},
		afterCreate: true,
	},
	{
		attrs: []string{"connection_pooler_enabled"},
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled)
		},
		calls: func(plan, _ serviceResourceModel) []serviceAction {
			return []serviceAction{serviceCall[bool]{
				name: "set_pooler", update: "Could not change the connection pooler", create: "Service created but changing the connection pooler failed",
				doing: func(on bool) string {
					return map[bool]string{true: "enabling", false: "disabling"}[on] + " the connection pooler"
				},
				send: func(ctx context.Context, c *api.Client, id string, on bool) error {
					if on {
						return c.EnablePooler(ctx, id)
					}
					return c.DisablePooler(ctx, id)
				},
				applied: func(f serviceFields, on bool) bool { return f.ConnectionPoolerEnabled.ValueBool() == on },
			}.with(plan.ConnectionPoolerEnabled.ValueBool())}
		},
		afterCreate: true,
	},
	{
		attrs:   []string{"environment"},
		changed: func(plan, state serviceResourceModel) bool { return changedKnown(plan.Environment, state.Environment) },
		calls: func(plan, _ serviceResourceModel) []serviceAction {
			return []serviceAction{serviceCall[api.Environment]{
				name: "set_environment", update: "Could not change the environment",
				doing: func(api.Environment) string { return "setting the environment" },
				send: func(ctx context.Context, c *api.Client, id string, v api.Environment) error {
					return c.SetEnvironment(ctx, id, v)
				},
				applied: func(f serviceFields, v api.Environment) bool { return f.Environment.ValueString() == string(v) },
			}.with(api.Environment(plan.Environment.ValueString()))}
		},
	},
	{
		// A new password, or a new password_wo_version (password_wo is taken from the configuration). No
		// record shows a password: a create sets the one configured (a password_wo without a version too).
		attrs: []string{"password", "password_wo_version"},
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.Password, state.Password) || changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion)
		},
		calls: func(plan, state serviceResourceModel) []serviceAction {
			if changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion) {
				return []serviceAction{setPassword(plan.PasswordWO.ValueString())}
			}
			return onlyIf(plan.Password.ValueString() != "", setPassword(plan.Password.ValueString()))
		},
		afterCreate: true,
		createCalls: func(plan serviceResourceModel) []serviceAction {
			pw := firstKnown(plan.Password, plan.PasswordWO)
			return onlyIf(pw != "", setPassword(pw))
		},
	},
}

// setPassword is the password's call: no record shows it, so it is sent again after a lost answer
// (setting the same value twice is harmless), and its value is never printed.
func setPassword(pw string) serviceAction {
	a := serviceCall[string]{
		name: "set_password", update: "Could not change the password", create: "Service created but setting the password failed",
		doing: func(string) string { return "setting the password" },
		send:  func(ctx context.Context, c *api.Client, id, v string) error { return c.UpdatePassword(ctx, id, v) },
	}.with(pw)
	a.sensitive = true
	return a
}

// serviceSize and serviceHA are the values of the resize and HA calls.
type serviceSize struct{ CPUMillis, MemoryGbs int }

type serviceHA struct{ Replicas, Sync *int }

func (s serviceSize) String() string { return fmt.Sprintf("%d/%d", s.CPUMillis, s.MemoryGbs) }

func (h serviceHA) String() string {
	show := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return "replicas=" + show(h.Replicas) + " sync=" + show(h.Sync)
}

// serviceCall is one kind of call an entry makes: its name in the printed plan, its failure summaries
// (in an update, and after a create: "" where a create never makes it), what the service is asked to
// accept (for messages), whether the change goes on after the call answers (async: wait for READY
// after), the API call, how a record shows it applied (nil: no record shows it, so it is sent again
// after a lost answer), and what it records in the model of what holds so far once it succeeded (nil:
// nothing; the record read after shows it).
type serviceCall[V any] struct {
	name, update, create string
	doing                func(V) string
	async                bool
	send                 func(ctx context.Context, c *api.Client, id string, v V) error
	applied              func(f serviceFields, v V) bool
	record               func(cur *serviceResourceModel, plan serviceResourceModel)
}

// with is the call with the value it sends: one action of the plan.
func (c serviceCall[V]) with(v V) serviceAction {
	return serviceAction{
		Call: c.name, Value: v, update: c.update, create: c.create, record: c.record,
		run: func(ctx context.Context, pd *providerData, id string) error {
			var applied func(*api.Service) bool
			if c.applied != nil {
				applied = func(s *api.Service) bool { return c.applied(flattenService(s), v) }
			}
			return changeService(ctx, pd, id, c.doing(v), c.async,
				func(ctx context.Context) error { return c.send(ctx, pd.client, id, v) }, applied)
		},
	}
}

// Start (resume) and stop (pause): the first and the last call of a plan, never an entry's.
var (
	startAction = serviceAction{
		Call: "start", update: "Could not start (resume) the service",
		run:    serviceStart.run,
		record: func(cur *serviceResourceModel, _ serviceResourceModel) { cur.Paused = types.BoolValue(false) },
	}
	stopAction = serviceAction{
		Call: "stop", update: "Could not stop (pause) the service", create: "Service created but stopping (pausing) it failed",
		run:    serviceStop.run,
		record: func(cur *serviceResourceModel, _ serviceResourceModel) { cur.Paused = types.BoolValue(true) },
	}
)

// planServiceActions is the pure heart of Update: from the prior state and the plan (with password_wo
// taken from the configuration) it returns the API calls to make, in order: start (a paused service
// that the plan resumes: every other call needs it running), the calls of serviceChanges in its
// order, and stop last (paused = true). No change means no action.
func planServiceActions(state, plan serviceResourceModel) []serviceAction {
	var out []serviceAction
	statePaused := state.isPaused()
	if statePaused && known(plan.Paused) && !plan.Paused.ValueBool() {
		out = append(out, startAction)
	}
	out = append(out, serviceChanges.actions(plan, state)...)
	if !statePaused && known(plan.Paused) && plan.Paused.ValueBool() {
		out = append(out, stopAction)
	}
	return out
}

// serviceCreateActions are the calls a create makes once the service is READY (afterCreate): the
// entries marked afterCreate, from the created record to the plan (with password_wo from the
// configuration), in the order of serviceChanges.
func serviceCreateActions(plan, created serviceResourceModel) []serviceAction {
	return serviceChanges.afterCreate(plan, created)
}

// serviceChangesNeedingRunning names the planned changes that make an API call a paused service
// refuses: every entry of serviceChanges (start/stop and the Terraform-only settings are not in it).
func serviceChangesNeedingRunning(plan, state serviceResourceModel) []string {
	return serviceChanges.changedAttrs(plan, state)
}

// serviceUpdateCallsAPI reports whether an update from state to plan makes an API call (other than
// start and stop).
func serviceUpdateCallsAPI(plan, state serviceResourceModel) bool {
	return len(serviceChangesNeedingRunning(plan, state)) > 0
}

// serviceInPlaceSentence is the resource description's "In place:" sentence, from serviceChanges.
func serviceInPlaceSentence() string {
	return "**In place:** " + strings.Join(serviceChanges.inPlace(), ", ") + ", `paused` (stop/start), `deletion_protection`, `allow_replacement` and `timeouts`."
}

// serviceTerraformOnly are the configurable attributes of dbcloud_service that are neither an entry
// of serviceChanges, nor replace the service (serviceReplacements), nor are paused (start and stop,
// planServiceActions): the settings of the provider's own, which no API call changes, and
// password_wo, which is never in state (write-only): the password entry sends it when
// password_wo_version changes. TestServiceAttributesHaveAChange holds every configurable
// attribute to one of these.
var serviceTerraformOnly = []string{"deletion_protection", "allow_replacement", "timeouts", "password_wo"}

// firstKnown returns the first known, non-empty string.
func firstKnown(vals ...types.String) string {
	for _, v := range vals {
		if known(v) && v.ValueString() != "" {
			return v.ValueString()
		}
	}
	return ""
}
