package provider

// dbcloud_service: Update as a pure plan of API actions (planServiceActions) and their execution.

import (
	"context"
	"fmt"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var plan, state serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var passwordWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &passwordWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, serviceUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pd := r.pd
	id := state.ID.ValueString()

	// cur is what holds so far: the prior state, with each input updated once its change succeeded.
	cur := state
	cur.Timeouts, cur.DeletionProtection = plan.Timeouts, plan.DeletionProtection
	fail := func(summary string, err error) {
		addError(&resp.Diagnostics, summary, err)
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
	}
	called := false

	// 1. VPC: detach from the old one before attaching to the new one.
	if !plan.VpcID.Equal(state.VpcID) {
		if known(state.VpcID) {
			old := state.VpcID.ValueString()
			called = true
			if err := changeService(ctx, pd, id, "detaching from VPC "+old, true, func(ctx context.Context) error { return pd.client.DetachFromVPC(ctx, id, old) }, vpcDetached); err != nil {
				fail("Could not detach the service from its VPC", err)
				return
			}
			cur.VpcID = types.StringNull()
		}
		if known(plan.VpcID) {
			vpcID := plan.VpcID.ValueString()
			called = true
			if err := changeService(ctx, pd, id, "attaching to VPC "+vpcID, true, func(ctx context.Context) error { return pd.client.AttachToVPC(ctx, id, vpcID) }, vpcAttached(vpcID)); err != nil {
				fail("Could not attach the service to the VPC", err)
				return
			}
			cur.VpcID = plan.VpcID
		}
	}

	// 2. Resize.
	if known(plan.CPUMillis) && known(plan.MemoryGbs) && (!plan.CPUMillis.Equal(state.CPUMillis) || !plan.MemoryGbs.Equal(state.MemoryGbs)) {
		cpu, mem := int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64())
		called = true
		if err := changeService(ctx, pd, id, "resizing", true, func(ctx context.Context) error { return pd.client.ResizeService(ctx, id, cpu, mem) }, resized(cpu, mem)); err != nil {
			fail("Could not resize the service", err)
			return
		}
		cur.CPUMillis, cur.MemoryGbs = plan.CPUMillis, plan.MemoryGbs
	}

	// 3. HA replicas.
	var ha api.SetHAInput
	if changedKnown(plan.HAReplicas, state.HAReplicas) {
		ha.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	if changedKnown(plan.SyncReplicas, state.SyncReplicas) {
		ha.SyncReplicaCount = ptr(int(plan.SyncReplicas.ValueInt64()))
	}
	if ha.ReplicaCount != nil || ha.SyncReplicaCount != nil {
		called = true
		if err := changeService(ctx, pd, id, "setting HA replicas", true, func(ctx context.Context) error { return pd.client.SetHA(ctx, id, ha) }, haApplied(ha)); err != nil {
			fail("Could not change the HA replicas", err)
			return
		}
	}

	// 4. Connection pooler.
	if changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled) {
		called = true
		if err := r.setPooler(ctx, id, plan.ConnectionPoolerEnabled.ValueBool()); err != nil {
			fail("Could not change the connection pooler", err)
			return
		}
	}

	// 5. Environment.
	if changedKnown(plan.Environment, state.Environment) {
		env := api.Environment(plan.Environment.ValueString())
		called = true
		if err := changeService(ctx, pd, id, "setting the environment", false, func(ctx context.Context) error { return pd.client.SetEnvironment(ctx, id, env) }, environmentIs(env)); err != nil {
			fail("Could not change the environment", err)
			return
		}
	}

	// 6. Password: a new password, or a new password_wo_version.
	pw := ""
	switch {
	case changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion):
		if !known(passwordWO) || passwordWO.ValueString() == "" {
			resp.Diagnostics.AddAttributeError(path.Root("password_wo"), "Missing password_wo",
				"password_wo_version changed but password_wo is not set: set password_wo to the new password.")
			r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
			return
		}
		pw = passwordWO.ValueString()
	case changedKnown(plan.Password, state.Password):
		pw = plan.Password.ValueString()
	}
	if pw != "" {
		called = true
		if err := changeService(ctx, pd, id, "setting the password", false, func(ctx context.Context) error { return pd.client.UpdatePassword(ctx, id, pw) }, nil); err != nil {
			fail("Could not change the password", err)
			return
		}
	}

	// 7. Final state. After API calls, wait for READY (the plan says READY); otherwise just read.
	var (
		svc *api.Service
		err error
	)
	if called {
		svc, err = waitServiceReady(ctx, pd, id, false)
	} else {
		svc, err = pd.client.GetService(ctx, id)
	}
	if err != nil {
		fail("Could not read the service after the update", err)
		return
	}
	out := plan
	out.applyRecord(svc, pd.client.ProjectID())
	if known(plan.Status) {
		// The plan promised this status (READY after API calls, else the state's): the next refresh shows any later change.
		out.Status = plan.Status
	}
	out.InitialPassword = state.InitialPassword
	out.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
	if !plan.Addons.Equal(state.Addons) {
		// The configured addons were adopted: they are no longer derived.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, nil)...)
	}
	pd.analytics.track(ctx, serviceTypeResource, "update")
}

// saveProgress records what exists after a failed create or update: the record as the API shows it
// now (best effort), over the model of what was done so far. The caller has added the error.
func (r *serviceResource) saveProgress(ctx context.Context, m serviceResourceModel, state interface {
	Set(context.Context, any) diag.Diagnostics
}, diags *diag.Diagnostics,
) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if svc, err := r.pd.client.GetService(rctx, m.ID.ValueString()); err == nil {
		m.applyRecord(svc, r.pd.client.ProjectID())
	} else {
		tflog.Debug(ctx, "dbcloud: could not read the service to record progress", map[string]any{"error": err.Error()})
	}
	m.forState()
	diags.Append(state.Set(ctx, &m)...)
}

func (r *serviceResource) setPooler(ctx context.Context, id string, on bool) error {
	if on {
		return changeService(ctx, r.pd, id, "enabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.EnablePooler(ctx, id) }, poolerIs(true))
	}
	return changeService(ctx, r.pd, id, "disabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.DisablePooler(ctx, id) }, poolerIs(false))
}

// ---- busy service: one state-changing call at a time ----

// maxServiceConflictRetries bounds how often a state-changing call is tried again after a 409 or a
// lost answer.
const maxServiceConflictRetries = 4

// changeService makes one state-changing call of a service through retryWhileBusy: before each
// attempt it waits for READY (DELETING, DELETED, PAUSING and PAUSED fail at once), it tries again after
// a 409 or a lost answer (at most maxServiceConflictRetries times), and when async it waits for READY
// after. applied says whether a service record shows the change; it is nil for a change that cannot be
// observed (the password), which is re-sent: setting the same value twice is harmless.
func changeService(ctx context.Context, pd *providerData, id, what string, async bool, call func(context.Context) error, applied func(*api.Service) bool) error {
	c := busyCall{
		What: fmt.Sprintf("service %s to accept %s", id, what),
		Call: call,
		Before: func(ctx context.Context) error {
			if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
				return fmt.Errorf("before %s: %w", what, err)
			}
			return nil
		},
		MaxRetries: maxServiceConflictRetries,
	}
	if applied != nil {
		c.Applied = func(ctx context.Context) bool {
			svc, err := pd.client.GetService(ctx, id)
			return err == nil && applied(svc)
		}
	}
	if err := retryWhileBusy(ctx, pd, c); err != nil {
		return err
	}
	if async {
		if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
			return fmt.Errorf("after %s: %w", what, err)
		}
	}
	return nil
}

// Predicates for changeService: whether a service record shows a change applied.

// ---- predicates for changeService: whether a record shows a change applied ----

func vpcAttached(vpcID string) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).VpcID.ValueString() == vpcID }
}

func vpcDetached(s *api.Service) bool { return flattenService(s).VpcID.IsNull() }

func resized(cpu, mem int) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return f.CPUMillis.ValueInt64() == int64(cpu) && f.MemoryGbs.ValueInt64() == int64(mem)
	}
}

func haApplied(in api.SetHAInput) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return (in.ReplicaCount == nil || f.HAReplicas.ValueInt64() == int64(*in.ReplicaCount)) &&
			(in.SyncReplicaCount == nil || f.SyncReplicas.ValueInt64() == int64(*in.SyncReplicaCount))
	}
}

func poolerIs(on bool) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).PoolerEnabled.ValueBool() == on }
}

func environmentIs(env api.Environment) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).Environment.ValueString() == string(env) }
}
