package provider

// dbcloud_service: Update. It makes the calls of the pure plan (planServiceActions, from the one list
// of in-place changes, serviceChanges in service_changes.go), records each once it succeeded, and
// waits for the status the plan says; a service it leaves paused goes in this run's pauses
// (notePause). The calls go through changeService (service_calls.go).

import (
	"context"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer func() { r.notePause(ctx, resp.State) }()
	var plan, state serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var passwordWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &passwordWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion) && (!known(passwordWO) || passwordWO.ValueString() == "") {
		resp.Diagnostics.AddAttributeError(path.Root("password_wo"), "Missing password_wo",
			"password_wo_version changed but password_wo is not set: set password_wo to the new password.")
		return
	}
	plan.PasswordWO = passwordWO
	ctx, cancel, ok := withTimeout(ctx, plan.Timeouts.Update, serviceUpdateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	pd := r.pd
	id := state.ID.ValueString()

	// cur is what holds so far: the prior state, with each input updated once its change succeeded.
	cur := state
	cur.Timeouts, cur.DeletionProtection = plan.Timeouts, plan.DeletionProtection
	actions, resumeCreate := updateActions(ctx, req, state, plan)
	if a, err := runActions(ctx, pd, id, actions, plan, &cur); err != nil {
		pd.updateFailed(ctx, &resp.Diagnostics, a.update, "Service "+id, err)
		recordServiceProgress(ctx, pd, &cur)
		resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
		return
	}

	// Final state. After API calls, wait for READY (the plan says READY); otherwise just read.
	svc, err := settledRecord(ctx, pd, id, plan, len(actions) > 0 || resumeCreate || !serviceStatusSettled(state.Status.ValueString()))
	if err != nil {
		pd.updateFailed(ctx, &resp.Diagnostics, "Could not read the service after the update", "Service "+id, err)
		recordServiceProgress(ctx, pd, &cur)
		resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
		return
	}
	out := plan
	out.applyRecord(svc, pd.client.ProjectID()) // the wrapper keeps what the plan knew, the status included (planned.go)
	out.InitialPassword = state.InitialPassword
	out.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
	if resumeCreate {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateResumeCreate, nil)...)
	}
	if !plan.Addons.Equal(state.Addons) {
		// The configured addons were adopted: they are no longer derived.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, nil)...)
	}
}

// settledRecord is the service's record at the end of an update: once PAUSED (paused = true) or READY
// when the update waits (it made calls, or a status other than READY or PAUSED in state, an
// interrupted create, planned it), else as it is.
func settledRecord(ctx context.Context, pd *providerData, id string, plan serviceResourceModel, waits bool) (*api.Service, error) {
	switch {
	case plan.Paused.ValueBool() && waits:
		return waitServicePaused(ctx, pd, id)
	case waits:
		return waitServiceReady(ctx, pd, id, false)
	}
	return pd.client.GetService(ctx, id)
}

// updateActions are the API calls of an update: those the change from state to plan needs
// (planServiceActions), and, when the update finishes an interrupted create (resumeCreate), the
// create's calls that no record shows (createCalls: the password) unless the plan makes them already.
func updateActions(ctx context.Context, req resource.UpdateRequest, state, plan serviceResourceModel) (_ []serviceAction, resumeCreate bool) {
	actions := planServiceActions(state, plan)
	if b, d := req.Private.GetKey(ctx, privateResumeCreate); d.HasError() || string(b) != "true" {
		return actions, false
	}
	planned := map[string]bool{}
	for _, a := range actions {
		planned[a.Call] = true
	}
	var more []serviceAction
	for _, c := range serviceChanges {
		if c.createCalls == nil {
			continue
		}
		for _, a := range c.createCalls(plan) {
			if !planned[a.Call] {
				more = append(more, a)
			}
		}
	}
	if n := len(actions); n > 0 && actions[n-1].Call == stopAction.Call {
		return append(append(actions[:n-1:n-1], more...), stopAction), true // stop stays last
	}
	return append(actions, more...), true
}
