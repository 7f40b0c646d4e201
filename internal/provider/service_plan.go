package provider

// dbcloud_service: plan logic (ValidateConfig, ModifyPlan) and the replacement rules.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

func (r *serviceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	// Only the fork block is checked here: reading it alone spares every plan of every service the
	// decoding of its whole configuration.
	var forkObj types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("fork"), &forkObj)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if forkObj.IsNull() || forkObj.IsUnknown() {
		return
	}
	var fork serviceForkModel
	resp.Diagnostics.Append(forkObj.As(ctx, &fork, basetypes.ObjectAsOptions{})...)
	if resp.Diagnostics.HasError() {
		return
	}
	if fork.SourceServiceID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("fork").AtName("source_service_id"), "Missing fork.source_service_id",
			"The fork block needs source_service_id: the id of the service to fork.")
	}
	if fork.Strategy.IsUnknown() {
		return
	}
	strategy := fork.Strategy.ValueString()
	if fork.Strategy.IsNull() {
		strategy = string(api.LASTSNAPSHOT)
	}
	tt := path.Root("fork").AtName("target_time")
	switch {
	case strategy == string(api.PITR) && fork.TargetTime.IsNull():
		resp.Diagnostics.AddAttributeError(tt, "Missing fork.target_time",
			"fork.target_time is required when fork.strategy is PITR: give the point in time to fork from as an RFC 3339 timestamp.")
	case strategy != string(api.PITR) && !fork.TargetTime.IsNull():
		resp.Diagnostics.AddAttributeError(tt, "fork.target_time needs strategy PITR",
			fmt.Sprintf("fork.target_time is only used with fork.strategy = \"PITR\" (the strategy is %s): remove it or set the strategy to PITR.", strategy))
	}
}

func (r *serviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// Create: fill in what is certain, so that the plan shows it.
	if req.State.Raw.IsNull() {
		if req.Plan.Raw.IsNull() {
			return
		}
		var plan serviceResourceModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if resp.Diagnostics.HasError() {
			return
		}
		// Absent at create: the documented defaults (plain Postgres, running).
		var cfgAddons types.Set
		var cfgPaused types.Bool
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("addons"), &cfgAddons)...)
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("paused"), &cfgPaused)...)
		if cfgAddons.IsNull() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("addons"), serviceAddonsSet([]string{}))...)
		}
		if cfgPaused.IsNull() {
			plan.Paused = types.BoolValue(false)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("paused"), plan.Paused)...)
		}
		switch {
		case plan.Paused.IsUnknown():
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
		case plan.Paused.ValueBool():
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.PAUSED)))...)
		default:
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.READY)))...)
		}
		if known(plan.ConnectionPoolerEnabled) && !plan.ConnectionPoolerEnabled.ValueBool() {
			r.setPoolerEndpointsNull(ctx, resp)
		}
		if plan.VpcID.IsNull() {
			r.setVPCEndpointsNull(ctx, resp)
		}
		if plan.Fork.IsNull() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("forked_from"), types.ObjectNull(serviceForkedFromAttrTypes))...)
		}
		return
	}

	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	protected := state.DeletionProtection.ValueBool()

	// Destroy.
	if req.Plan.Raw.IsNull() {
		if protected {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Service is protected against deletion",
				fmt.Sprintf("Service %s (%s) has deletion_protection = true, so Terraform will not destroy it. "+
					"To destroy it, set deletion_protection = false and apply first.", state.ID.ValueString(), state.Name.ValueString()))
		}
		return
	}

	var plan serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// Replacement: the attribute plan modifiers decide it; resp.RequiresReplace does not show their
	// decision here, so the same rules are applied again.
	var replaced []string
	if !plan.RegionCode.Equal(state.RegionCode) {
		replaced = append(replaced, "region_code")
	}
	if !plan.Addons.Equal(state.Addons) && addonsReplace(ctx, plan.Addons, state.ServiceType, addonsDerived(ctx, req.Private.GetKey)) {
		replaced = append(replaced, "addons")
	}
	if !plan.Fork.Equal(state.Fork) && forkReplace(plan.Fork, state.Fork, state.ForkedFrom) {
		replaced = append(replaced, "fork")
	}
	if len(replaced) > 0 {
		if protected {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Service is protected against replacement",
				fmt.Sprintf("Changing %s replaces service %s (%s), which destroys it, but it has deletion_protection = true. "+
					"To replace it, set deletion_protection = false and apply first; or undo the change.",
					strings.Join(replaced, ", "), state.ID.ValueString(), state.Name.ValueString()))
		}
		return
	}

	// Paused: a paused service accepts no change but start (and Terraform-only settings). A plan that
	// resumes it starts it first; any other plan that needs it running fails here, before anything.
	statePaused := serviceModelPaused(state)
	wantPaused := statePaused
	if !plan.Paused.IsUnknown() {
		wantPaused = plan.Paused.ValueBool()
	}
	needsRunning := serviceChangesNeedingRunning(plan, state)
	if statePaused && wantPaused && len(needsRunning) > 0 {
		resp.Diagnostics.AddAttributeError(path.Root("paused"), "Service is paused",
			fmt.Sprintf("Service %s (%s) is paused, and changing %s needs it running: a paused service accepts no change. "+
				"Set paused = false in the configuration (Terraform then starts it first and applies the changes; set paused = true "+
				"again afterwards to pause it), or undo the change.",
				state.ID.ValueString(), state.Name.ValueString(), strings.Join(needsRunning, ", ")))
		return
	}

	// A status in state that is neither READY nor PAUSED (a create or update that was interrupted while
	// it waited): plan the status the configuration wants, so that an update runs and waits for it.
	if !serviceStatusSettled(state.Status.ValueString()) && !plan.Paused.IsUnknown() {
		target := string(api.READY)
		if wantPaused {
			target = string(api.PAUSED)
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(target))...)
	}

	// An interrupted create: plan an update (status known after it) that waits and finishes the create.
	resume, d := req.Private.GetKey(ctx, privateResumeCreate)
	resumeCreate := !d.HasError() && string(resume) == "true"
	if resumeCreate {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
	}

	// No change at all: nothing to adjust (a refresh-only difference must not become a diff).
	if req.Plan.Raw.Equal(req.State.Raw) && !resumeCreate {
		return
	}

	// Update: computed values keep their state value (UseStateForUnknown), except those the update moves.
	if !plan.VpcID.Equal(state.VpcID) {
		if plan.VpcID.IsNull() {
			r.setVPCEndpointsNull(ctx, resp)
		} else {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_hostname"), types.StringUnknown())...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_port"), types.Int64Unknown())...)
		}
	}
	if !plan.ConnectionPoolerEnabled.Equal(state.ConnectionPoolerEnabled) {
		if known(plan.ConnectionPoolerEnabled) && !plan.ConnectionPoolerEnabled.ValueBool() {
			r.setPoolerEndpointsNull(ctx, resp)
		} else {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_hostname"), types.StringUnknown())...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_port"), types.Int64Unknown())...)
		}
	}
	// Lowering ha_replicas below the synchronous count lowers that too, unless it is configured.
	var cfgSync types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sync_replicas"), &cfgSync)...)
	if cfgSync.IsNull() && !plan.HAReplicas.Equal(state.HAReplicas) &&
		(plan.HAReplicas.IsUnknown() || (known(state.SyncReplicas) && plan.HAReplicas.ValueInt64() < state.SyncReplicas.ValueInt64())) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sync_replicas"), types.Int64Unknown())...)
	}
	// An update that calls the API ends by waiting for READY, or PAUSED when it pauses the service.
	switch {
	case plan.Paused.IsUnknown():
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
	case wantPaused && !statePaused:
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.PAUSED)))...)
	case !wantPaused && (statePaused || serviceUpdateCallsAPI(plan, state)):
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.READY)))...)
	}
}

// serviceChangesNeedingRunning names the planned changes that make an API call a paused service
// refuses (everything but start/stop and the Terraform-only settings).
func serviceChangesNeedingRunning(plan, state serviceResourceModel) []string {
	var out []string
	add := func(name string, changed bool) {
		if changed {
			out = append(out, name)
		}
	}
	add("name", !plan.Name.IsUnknown() && !plan.Name.Equal(state.Name))
	add("vpc_id", !plan.VpcID.Equal(state.VpcID))
	add("cpu_millis/memory_gbs", changedKnown(plan.CPUMillis, state.CPUMillis) || changedKnown(plan.MemoryGbs, state.MemoryGbs))
	add("ha_replicas/sync_replicas", changedKnown(plan.HAReplicas, state.HAReplicas) || changedKnown(plan.SyncReplicas, state.SyncReplicas))
	add("connection_pooler_enabled", changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled))
	add("environment", changedKnown(plan.Environment, state.Environment))
	add("password", changedKnown(plan.Password, state.Password) || changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion))
	return out
}

func (r *serviceResource) setVPCEndpointsNull(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_hostname"), types.StringNull())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_port"), types.Int64Null())...)
}

func (r *serviceResource) setPoolerEndpointsNull(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_hostname"), types.StringNull())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_port"), types.Int64Null())...)
}

// serviceUpdateCallsAPI reports whether an update from state to plan makes an API call.
func serviceUpdateCallsAPI(plan, state serviceResourceModel) bool {
	return !plan.VpcID.Equal(state.VpcID) || changedKnown(plan.Name, state.Name) ||
		changedKnown(plan.CPUMillis, state.CPUMillis) || changedKnown(plan.MemoryGbs, state.MemoryGbs) ||
		changedKnown(plan.HAReplicas, state.HAReplicas) || changedKnown(plan.SyncReplicas, state.SyncReplicas) ||
		changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled) ||
		changedKnown(plan.Environment, state.Environment) ||
		changedKnown(plan.Password, state.Password) ||
		changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion)
}

// ---- replacement rules (shared by the plan modifiers and ModifyPlan) ----

// addonsReplace decides whether an addons change replaces the service: always, unless the state's
// addons were derived from service_type (import) and the new addons are consistent with it.
func addonsReplace(ctx context.Context, planAddons types.Set, stateServiceType types.String, derived bool) bool {
	if !derived || planAddons.IsUnknown() || stateServiceType.IsNull() || stateServiceType.IsUnknown() {
		return true
	}
	addons, diags := setStrings(ctx, planAddons)
	if diags.HasError() {
		return true
	}
	return !addonsMatchServiceType(addons, stateServiceType.ValueString())
}

// forkReplace decides whether a fork block change replaces the service: always, unless the state has
// no fork block (after import) and the configured source is the service's forked_from.
func forkReplace(planFork, stateFork, stateForkedFrom types.Object) bool {
	if !stateFork.IsNull() || planFork.IsNull() || planFork.IsUnknown() || stateForkedFrom.IsNull() || stateForkedFrom.IsUnknown() {
		return true
	}
	src, ok := planFork.Attributes()["source_service_id"].(types.String)
	from, ok2 := stateForkedFrom.Attributes()["service_id"].(types.String)
	if !ok || !ok2 || src.IsUnknown() || src.IsNull() || from.IsNull() {
		return true
	}
	return src.ValueString() != from.ValueString()
}

func addonsDerived(ctx context.Context, get func(context.Context, string) ([]byte, diag.Diagnostics)) bool {
	b, diags := get(ctx, privateAddonsDerived)
	return !diags.HasError() && len(b) > 0 && string(b) == "true"
}

func addonsRequiresReplaceIf(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
	derived := req.Private != nil && addonsDerived(ctx, req.Private.GetKey)
	var st types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("service_type"), &st)...)
	resp.RequiresReplace = addonsReplace(ctx, req.PlanValue, st, derived)
}

func forkRequiresReplaceIf(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	var ff types.Object
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("forked_from"), &ff)...)
	resp.RequiresReplace = forkReplace(req.PlanValue, req.StateValue, ff)
}

// addonsForServiceType derives the addons from a service type (after import, or for data sources):
// POSTGRES -> [], TIMESERIESDB/TIMESCALEDB -> [time-series], VECTOR -> [ai]; unknown types -> [].
// A service created with both addons reports TIMESERIESDB, so `ai` cannot be recovered from it.
func addonsForServiceType(serviceType string) []string {
	switch strings.ToUpper(strings.TrimSpace(serviceType)) {
	case serviceTypeTimeseriesDB, serviceTypeTimescaleDB:
		return []string{addonTimeSeries}
	case serviceTypeVector:
		return []string{addonAI}
	}
	return []string{}
}

// addonsMatchServiceType reports whether a service created with addons could report serviceType.
// Unknown service types match anything: the provider cannot tell.
func addonsMatchServiceType(addons []string, serviceType string) bool {
	ts, ai := slices.Contains(addons, addonTimeSeries), slices.Contains(addons, addonAI)
	switch strings.ToUpper(strings.TrimSpace(serviceType)) {
	case serviceTypePostgres:
		return !ts && !ai
	case serviceTypeTimeseriesDB, serviceTypeTimescaleDB:
		return ts
	case serviceTypeVector:
		return ai && !ts
	}
	return true
}
