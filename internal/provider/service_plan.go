package provider

// dbcloud_service: plan logic (ValidateConfig, ModifyPlan) and the replacement rules.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

func (r *serviceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	// Only the fork block is checked here: reading it alone spares every plan of every service the
	// decoding of its whole configuration.
	if attrsOf(req.Config.Raw).null("fork") {
		return
	}
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

// ModifyPlan is the plan logic of dbcloud_service, in three parts: planCreate, planUpdate (with the
// replacement rules, serviceReplacements, the one place that decides a replacement) and planDestroy.
func (r *serviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	switch {
	case req.State.Raw.IsNull() && req.Plan.Raw.IsNull():
	case req.State.Raw.IsNull():
		r.planCreate(ctx, req, resp)
		planInitialPassword(ctx, req, resp)
	case req.Plan.Raw.IsNull():
		r.planDestroy(ctx, req, resp)
	default:
		r.planUpdate(ctx, req, resp)
		planInitialPassword(ctx, req, resp)
		r.recordPause(ctx, req)
	}
	// Only the plan of an existing service that stays: Terraform plans a replacement's new object as a
	// create of its own (no prior state), which replaces nothing but is the replacement.
	if !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() && len(resp.RequiresReplace) == 0 {
		warnAllowReplacement(ctx, req, resp)
	}
}

// warnAllowReplacement: the plan of a service that replaces nothing while the configuration sets
// allow_replacement = true warns that the guard is off, so that it is removed once the replacement it was set for is done.
func warnAllowReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if allow, d := attrsOf(req.Config.Raw).bool(ctx, "allow_replacement"); d.HasError() || !allow.ValueBool() {
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("allow_replacement"), "allow_replacement is on: the replacement guard is off",
		"This service sets allow_replacement = true, and this plan replaces nothing. Until allow_replacement is removed, "+
			"a change that replaces the service (region_code, addons, fork) deletes it and its data without the plan "+
			"refusing it first. Remove allow_replacement (or set it to false) now that the replacement it was set for is done.")
}

// recordPause notes in this run's pauses (service_pauses.go) whether the service is paused after the
// apply this plan makes, for the plan of its read replica sets (read_replica_set_resource.go), which
// Terraform plans after it when they refer to it.
func (r *serviceResource) recordPause(ctx context.Context, req resource.ModifyPlanRequest) {
	if r.pd == nil {
		return
	}
	state, plan := attrsOf(req.State.Raw), attrsOf(req.Plan.Raw)
	id, d1 := state.string(ctx, "id")
	status, d2 := state.string(ctx, "status")
	statePaused, d3 := state.bool(ctx, "paused")
	planPaused, d4 := plan.bool(ctx, "paused")
	for _, d := range []diag.Diagnostics{d1, d2, d3, d4} {
		if d.HasError() {
			return
		}
	}
	switch {
	case !known(id):
	case planPaused.IsUnknown():
		r.pd.pauses.unplanned(id.ValueString())
	case !planPaused.IsNull():
		r.pd.pauses.plan(id.ValueString(), planPaused.ValueBool())
	default:
		r.pd.pauses.plan(id.ValueString(), serviceFields{Paused: statePaused, Status: status}.isPaused())
	}
}

// planInitialPassword: initial_password no longer logs in once the configuration sets the password
// (password, or password_wo with its version), so it is planned null then, and no password the
// service does not have is kept in state.
func planInitialPassword(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, config := attrsOf(resp.Plan.Raw), attrsOf(req.Config.Raw)
	initial, d := plan.string(ctx, "initial_password")
	resp.Diagnostics.Append(d...)
	password, d := config.string(ctx, "password")
	resp.Diagnostics.Append(d...)
	version, d := config.int64(ctx, "password_wo_version")
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() || initial.IsNull() || (password.IsNull() && version.IsNull()) {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("initial_password"), types.StringNull())...)
}

// planCreate fills in what is certain at create, so that the plan shows it: the documented defaults
// (plain Postgres, running), the status to wait for, and the endpoints that will not exist.
func (r *serviceResource) planCreate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
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
		planEndpoint(ctx, resp, poolerEndpointAttrs, false)
	}
	if plan.VpcID.IsNull() {
		planEndpoint(ctx, resp, vpcEndpointAttrs, false)
	}
	if plan.Fork.IsNull() {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("forked_from"), types.ObjectNull(serviceForkedFromAttrTypes))...)
	}
}

// planDestroy refuses to destroy a protected service.
func (r *serviceResource) planDestroy(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !resp.Diagnostics.HasError() && state.DeletionProtection.ValueBool() {
		resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Service is protected against deletion",
			fmt.Sprintf("Service %s (%s) has deletion_protection = true, so Terraform will not destroy it. "+
				"To destroy it, set deletion_protection = false and apply first.", state.ID.ValueString(), state.Name.ValueString()))
	}
}

// planUpdate plans a change of an existing service: a replacement (and its protection), or an
// update, which a paused service may refuse, and which moves some computed values and the status.
func (r *serviceResource) planUpdate(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.Equal(req.State.Raw) {
		if b, d := req.Private.GetKey(ctx, privateResumeCreate); d.HasError() || string(b) != "true" {
			planUnchanged(ctx, req, resp)
			return
		}
	}
	var state, plan serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if replaced := serviceReplacements(ctx, plan, state, addonsDerived(ctx, req.Private.GetKey)); len(replaced) > 0 {
		resp.RequiresReplace = append(resp.RequiresReplace, replaced...)
		resp.Diagnostics.Append(replacementGuard(plan, state, replaced)...)
		return
	}

	// Paused: a paused service accepts no change but start (and Terraform-only settings). A plan that
	// resumes it starts it first; any other plan that needs it running fails here, before anything.
	statePaused := state.isPaused()
	wantPaused := statePaused
	if !plan.Paused.IsUnknown() {
		wantPaused = plan.Paused.ValueBool()
	}
	if needsRunning := serviceChangesNeedingRunning(plan, state); statePaused && wantPaused && len(needsRunning) > 0 {
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
	r.planUpdateComputed(ctx, req, resp, plan, state)
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

// planUnchanged is planUpdate when nothing changed (most services of most plans), without decoding
// the whole state and plan: nothing is replaced or refused, and only a status in state that is
// neither READY nor PAUSED (an interrupted create or update) plans the status the configuration
// wants, so that an update runs and waits for it.
func planUnchanged(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	state := attrsOf(req.State.Raw)
	status, d := state.string(ctx, "status")
	resp.Diagnostics.Append(d...)
	paused, d := state.bool(ctx, "paused")
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() || serviceStatusSettled(status.ValueString()) {
		return
	}
	target := string(api.READY)
	if paused.ValueBool() {
		target = string(api.PAUSED)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(target))...)
}

// planUpdateComputed: in an update, computed values keep their state value (UseStateForUnknown),
// except those the update moves.
func (r *serviceResource) planUpdateComputed(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state serviceResourceModel) {
	if !plan.VpcID.Equal(state.VpcID) {
		planEndpoint(ctx, resp, vpcEndpointAttrs, !plan.VpcID.IsNull())
	}
	if !plan.ConnectionPoolerEnabled.Equal(state.ConnectionPoolerEnabled) {
		planEndpoint(ctx, resp, poolerEndpointAttrs, !known(plan.ConnectionPoolerEnabled) || plan.ConnectionPoolerEnabled.ValueBool())
	}
	// Lowering ha_replicas below the synchronous count lowers that too, unless it is configured.
	var cfgSync types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sync_replicas"), &cfgSync)...)
	if cfgSync.IsNull() && !plan.HAReplicas.Equal(state.HAReplicas) &&
		(plan.HAReplicas.IsUnknown() || (known(state.SyncReplicas) && plan.HAReplicas.ValueInt64() < state.SyncReplicas.ValueInt64())) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sync_replicas"), types.Int64Unknown())...)
	}
}

// The host and port attributes of the service's optional endpoints
// (and its connection string, "" for none).
var (
	vpcEndpointAttrs    = [3]string{"vpc_hostname", "vpc_port", ""}
	poolerEndpointAttrs = [3]string{"pooler_hostname", "pooler_port", "pooler_connection_uri"}
)

// planEndpoint plans an endpoint's host, port and connection string: unknown when the apply makes the
// endpoint, null when it removes it.
func planEndpoint(ctx context.Context, resp *resource.ModifyPlanResponse, attrs [3]string, comes bool) {
	host, port, uri := attr.Value(types.StringNull()), attr.Value(types.Int64Null()), attr.Value(types.StringNull())
	if comes {
		host, port, uri = types.StringUnknown(), types.Int64Unknown(), types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrs[0]), host)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrs[1]), port)...)
	if attrs[2] != "" {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attrs[2]), uri)...)
	}
}

// ---- replacement rules: decided here only (ModifyPlan sets RequiresReplace) ----

// serviceReplacements are the attributes whose planned change replaces the service: region_code
// (a service cannot move), addons (addonsReplace) and fork (forkReplace).
func serviceReplacements(ctx context.Context, plan, state serviceResourceModel, addonsWereDerived bool) path.Paths {
	var out path.Paths
	if !plan.RegionCode.Equal(state.RegionCode) {
		out = append(out, path.Root("region_code"))
	}
	if !plan.Addons.Equal(state.Addons) && addonsReplace(ctx, plan.Addons, state.ServiceType, addonsWereDerived) {
		out = append(out, path.Root("addons"))
	}
	if !plan.Fork.Equal(state.Fork) && forkReplace(plan.Fork, state.Fork, state.ForkedFrom) {
		out = append(out, path.Root("fork"))
	}
	return out
}

// replacementGuard is what a planned replacement of an existing service says: an error when the service
// is protected (deletion_protection) or the configuration does not allow replacements (allow_replacement),
// else a warning that the service and its data will be deleted. Terraform deletes the old service before
// it creates the new one, and a provider can neither reorder that nor see `lifecycle`; so a value that
// forces a replacement and that the API then refuses (a region it does not offer, a fork source that
// does not exist) would cost the service and its data, with nothing created in its place. Refusing
// every replacement not asked for is the one plan-time rule that keeps it, whatever the API would say.
func replacementGuard(plan, state serviceResourceModel, replaced path.Paths) diag.Diagnostics {
	var diags diag.Diagnostics
	changes := make([]string, 0, len(replaced))
	for _, p := range replaced {
		changes = append(changes, fmt.Sprintf("%s from %s to %s", p, describeValue(serviceValueAt(state, p)), describeValue(serviceValueAt(plan, p))))
	}
	change := strings.Join(changes, ", and ")
	svc := fmt.Sprintf("service %s (%s)", state.ID.ValueString(), state.Name.ValueString())
	switch {
	case state.DeletionProtection.ValueBool():
		diags.AddAttributeError(path.Root("deletion_protection"), "Service is protected against replacement",
			fmt.Sprintf("Changing %s replaces %s, which destroys it, but it has deletion_protection = true. "+
				"To replace it, set deletion_protection = false and apply first; or undo the change.", change, svc))
	case !plan.AllowReplacement.ValueBool():
		diags.AddAttributeError(replaced[0], "Change would delete the service and its data",
			fmt.Sprintf("Changing %s cannot be done in place: it replaces %s. Terraform would delete the service, with "+
				"every database, table and row in it, and then create a new, empty service; if the API refuses the new value "+
				"(for example a region it does not offer), nothing is created and the data is gone. Nothing was changed.\n\n"+
				"- If the change is a mistake, undo it (a service cannot move to another region, change its addons or become "+
				"another service's fork).\n"+
				"- To keep the data, create the new service as a fork of this one first (a new dbcloud_service with "+
				"fork { source_service_id = %q }), or take a final copy with the dbcloud_service_fork action before the "+
				"replacement.\n"+
				"- To replace the service and delete its data, set allow_replacement = true in its configuration and plan "+
				"again (the plan then warns), with lifecycle { create_before_destroy = true } so that the new service is "+
				"created before this one is deleted; remove allow_replacement afterwards.",
				change, svc, state.ID.ValueString()))
	default:
		diags.AddAttributeWarning(replaced[0], "The service and its data will be deleted",
			fmt.Sprintf("Changing %s replaces %s: the apply deletes the service, with every database, table and row in it, "+
				"and creates a new, empty service in its place (allow_replacement = true). Terraform deletes it first unless "+
				"the resource has lifecycle { create_before_destroy = true }, which creates the new service first, so that a "+
				"value the API refuses deletes nothing. If this is not what you want, do not apply: undo the change, or "+
				"remove allow_replacement.", change, svc))
	}
	return diags
}

// serviceValueAt is the value of a replacing attribute in a model.
func serviceValueAt(m serviceResourceModel, p path.Path) attr.Value {
	switch p.String() {
	case "region_code":
		return m.RegionCode
	case "addons":
		return m.Addons
	case "fork":
		return m.Fork
	}
	return types.StringUnknown()
}

// describeValue writes a value as a configuration would (null: absent), for messages.
func describeValue(v attr.Value) string {
	switch {
	case v == nil || v.IsNull():
		return "null (not set)"
	case v.IsUnknown():
		return "(known after apply)"
	}
	switch v := v.(type) {
	case types.String:
		return strconv.Quote(v.ValueString())
	case types.Set:
		elems := make([]string, 0, len(v.Elements()))
		for _, e := range v.Elements() {
			elems = append(elems, describeValue(e))
		}
		slices.Sort(elems)
		return "[" + strings.Join(elems, ", ") + "]"
	case types.Object:
		attrs := v.Attributes()
		names := make([]string, 0, len(attrs))
		for k, a := range attrs {
			if a != nil && !a.IsNull() {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		parts := make([]string, 0, len(names))
		for _, k := range names {
			parts = append(parts, k+" = "+describeValue(attrs[k]))
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return v.String()
}

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
