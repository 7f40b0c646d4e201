package provider

// dbcloud_service: Update as a pure plan of API actions (planServiceActions) and their execution.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// serviceActionKind names one API call of an update.
type serviceActionKind int

// The kinds of update calls, in the order an update makes them.
const (
	actionDetachVPC serviceActionKind = iota
	actionAttachVPC
	actionResize
	actionSetHA
	actionSetPooler
	actionSetEnvironment
	actionSetPassword
	actionRename
	actionStart
	actionStop
)

// serviceAction is one API call of an update, with the values it sets.
type serviceAction struct {
	Kind      serviceActionKind
	VpcID     string // detach_vpc: the old VPC; attach_vpc: the new one
	CPUMillis int
	MemoryGbs int
	HA        api.SetHAInput
	Pooler    bool
	Env       api.Environment
	Password  string
	Name      string
}

// planServiceActions is the pure heart of Update: from the prior state and the plan (with password_wo
// taken from the configuration) it returns the API calls to make, in order: start (a paused service
// that the plan resumes: every other call needs it running), rename, VPC (detach from the old one,
// then attach to the new one), resize, HA replicas, connection pooler, environment, password (a new
// password, or a new password_wo_version), and stop last (paused = true). No change means no action.
func planServiceActions(state, plan serviceResourceModel) []serviceAction {
	var out []serviceAction
	statePaused := serviceModelPaused(state)
	if statePaused && known(plan.Paused) && !plan.Paused.ValueBool() {
		out = append(out, serviceAction{Kind: actionStart})
	}
	if changedKnown(plan.Name, state.Name) {
		out = append(out, serviceAction{Kind: actionRename, Name: plan.Name.ValueString()})
	}
	if !plan.VpcID.Equal(state.VpcID) {
		if known(state.VpcID) {
			out = append(out, serviceAction{Kind: actionDetachVPC, VpcID: state.VpcID.ValueString()})
		}
		if known(plan.VpcID) {
			out = append(out, serviceAction{Kind: actionAttachVPC, VpcID: plan.VpcID.ValueString()})
		}
	}
	if known(plan.CPUMillis) && known(plan.MemoryGbs) && (!plan.CPUMillis.Equal(state.CPUMillis) || !plan.MemoryGbs.Equal(state.MemoryGbs)) {
		out = append(out, serviceAction{Kind: actionResize, CPUMillis: int(plan.CPUMillis.ValueInt64()), MemoryGbs: int(plan.MemoryGbs.ValueInt64())})
	}
	var ha api.SetHAInput
	if changedKnown(plan.HAReplicas, state.HAReplicas) {
		ha.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	if changedKnown(plan.SyncReplicas, state.SyncReplicas) {
		ha.SyncReplicaCount = ptr(int(plan.SyncReplicas.ValueInt64()))
	}
	if ha.ReplicaCount != nil || ha.SyncReplicaCount != nil {
		out = append(out, serviceAction{Kind: actionSetHA, HA: ha})
	}
	if changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled) {
		out = append(out, serviceAction{Kind: actionSetPooler, Pooler: plan.ConnectionPoolerEnabled.ValueBool()})
	}
	if changedKnown(plan.Environment, state.Environment) {
		out = append(out, serviceAction{Kind: actionSetEnvironment, Env: api.Environment(plan.Environment.ValueString())})
	}
	switch {
	case changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion):
		out = append(out, serviceAction{Kind: actionSetPassword, Password: plan.PasswordWO.ValueString()})
	case changedKnown(plan.Password, state.Password) && plan.Password.ValueString() != "":
		out = append(out, serviceAction{Kind: actionSetPassword, Password: plan.Password.ValueString()})
	}
	if !statePaused && known(plan.Paused) && plan.Paused.ValueBool() {
		out = append(out, serviceAction{Kind: actionStop})
	}
	return out
}

// sortServiceActions puts actions in the order planServiceActions makes them (stop last).
func sortServiceActions(actions []serviceAction) {
	for i, a := range actions {
		if a.Kind == actionStop && i != len(actions)-1 {
			copy(actions[i:], actions[i+1:])
			actions[len(actions)-1] = a
			return
		}
	}
}

// serviceModelPaused reports whether a model (state) says the service is paused.
func serviceModelPaused(m serviceResourceModel) bool {
	return m.Paused.ValueBool() || m.Status.ValueString() == string(api.PAUSED)
}

// serviceActionSummaries are the diagnostic summaries of a failed action, in an update and after a create.
var serviceActionSummaries = map[serviceActionKind]struct{ update, create string }{
	actionDetachVPC:      {"Could not detach the service from its VPC", ""},
	actionAttachVPC:      {"Could not attach the service to the VPC", "Service created but attaching it to the VPC failed"},
	actionResize:         {"Could not resize the service", ""},
	actionSetHA:          {"Could not change the HA replicas", "Service created but setting HA replicas failed"},
	actionSetPooler:      {"Could not change the connection pooler", "Service created but changing the connection pooler failed"},
	actionSetEnvironment: {"Could not change the environment", ""},
	actionSetPassword:    {"Could not change the password", "Service created but setting the password failed"},
	actionRename:         {"Could not rename the service", ""},
	actionStart:          {"Could not start (resume) the service", ""},
	actionStop:           {"Could not stop (pause) the service", "Service created but stopping (pausing) it failed"},
}

// run makes the action's API call through changeService (wait for READY, retry while busy, look
// after a lost answer).
func (a serviceAction) run(ctx context.Context, r *serviceResource, id string) error {
	pd := r.pd
	switch a.Kind {
	case actionDetachVPC:
		return changeService(ctx, pd, id, "detaching from VPC "+a.VpcID, true,
			func(ctx context.Context) error { return pd.client.DetachFromVPC(ctx, id, a.VpcID) }, vpcDetached)
	case actionAttachVPC:
		return changeService(ctx, pd, id, "attaching to VPC "+a.VpcID, true,
			func(ctx context.Context) error { return pd.client.AttachToVPC(ctx, id, a.VpcID) }, vpcAttached(a.VpcID))
	case actionResize:
		return changeService(ctx, pd, id, "resizing", true,
			func(ctx context.Context) error { return pd.client.ResizeService(ctx, id, a.CPUMillis, a.MemoryGbs) }, serviceResizedTo(a.CPUMillis, a.MemoryGbs))
	case actionSetHA:
		return changeService(ctx, pd, id, "setting HA replicas", true,
			func(ctx context.Context) error { return pd.client.SetHA(ctx, id, a.HA) }, serviceHAIs(a.HA))
	case actionSetPooler:
		return r.setPooler(ctx, id, a.Pooler)
	case actionSetEnvironment:
		return changeService(ctx, pd, id, "setting the environment", false,
			func(ctx context.Context) error { return pd.client.SetEnvironment(ctx, id, a.Env) }, serviceEnvironmentIs(a.Env))
	case actionSetPassword:
		return changeService(ctx, pd, id, "setting the password", false,
			func(ctx context.Context) error { return pd.client.UpdatePassword(ctx, id, a.Password) }, nil)
	case actionRename:
		return changeService(ctx, pd, id, "the new name "+a.Name, false,
			func(ctx context.Context) error { _, err := pd.client.RenameService(ctx, id, a.Name); return err },
			func(s *api.Service) bool { return deref(s.Name) == a.Name })
	case actionStop:
		return stopService(ctx, pd, id)
	case actionStart:
		return startService(ctx, pd, id)
	}
	return fmt.Errorf("unknown update action %d: this is a bug in the provider", a.Kind)
}

// record updates cur, what holds so far, once the action succeeded.
func (a serviceAction) record(cur *serviceResourceModel, plan serviceResourceModel) {
	switch a.Kind {
	case actionDetachVPC:
		cur.VpcID = types.StringNull()
	case actionAttachVPC:
		cur.VpcID = plan.VpcID
	case actionResize:
		cur.CPUMillis, cur.MemoryGbs = plan.CPUMillis, plan.MemoryGbs
	case actionRename:
		cur.Name = plan.Name
	case actionStart:
		cur.Paused = types.BoolValue(false)
	case actionStop:
		cur.Paused = types.BoolValue(true)
	}
}

func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
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
	actions, resumeCreate := updateActions(ctx, req, state, plan, passwordWO)
	for _, a := range actions {
		if err := a.run(ctx, r, id); err != nil {
			pd.updateFailed(ctx, &resp.Diagnostics, serviceActionSummaries[a.Kind].update, "Service "+id, err)
			r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
			return
		}
		a.record(&cur, plan)
	}

	// Final state. After API calls, wait for READY (the plan says READY); otherwise just read.
	var (
		svc *api.Service
		err error
	)
	// A status other than READY/PAUSED in state (an interrupted create) planned this update: wait for it.
	resume := resumeCreate || !serviceStatusSettled(state.Status.ValueString())
	switch {
	case plan.Paused.ValueBool() && (len(actions) > 0 || resume):
		svc, err = waitServicePaused(ctx, pd, id)
	case len(actions) > 0 || resume:
		svc, err = waitServiceReady(ctx, pd, id, false)
	default:
		svc, err = pd.client.GetService(ctx, id)
	}
	if err != nil {
		pd.updateFailed(ctx, &resp.Diagnostics, "Could not read the service after the update", "Service "+id, err)
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
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

// updateActions are the API calls of an update: those the change from state to plan needs
// (planServiceActions), and the password when the update finishes an interrupted create (no record
// shows whether it was set). resumeCreate says it does.
func updateActions(ctx context.Context, req resource.UpdateRequest, state, plan serviceResourceModel, passwordWO types.String) (_ []serviceAction, resumeCreate bool) {
	actions := planServiceActions(state, plan)
	if b, d := req.Private.GetKey(ctx, privateResumeCreate); d.HasError() || string(b) != "true" {
		return actions, false
	}
	hasPassword := false
	for _, a := range actions {
		hasPassword = hasPassword || a.Kind == actionSetPassword
	}
	if pw := firstKnown(plan.Password, passwordWO); pw != "" && !hasPassword {
		actions = append(actions, serviceAction{Kind: actionSetPassword, Password: pw})
		sortServiceActions(actions)
	}
	return actions, true
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
		return changeService(ctx, r.pd, id, "enabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.EnablePooler(ctx, id) }, servicePoolerIs(true))
	}
	return changeService(ctx, r.pd, id, "disabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.DisablePooler(ctx, id) }, servicePoolerIs(false))
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
	c := wait.Busy{
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
	if err := wait.WhileBusy(ctx, pd.backoff, c); err != nil {
		return err
	}
	if async {
		if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
			return fmt.Errorf("after %s: %w", what, err)
		}
	}
	return nil
}

// stopService stops (pauses) a service and waits for PAUSED. It waits for READY first (the API answers
// 409 otherwise), retries after a 409 or a lost answer, and is done at once when the service is
// already PAUSING or PAUSED.
func stopService(ctx context.Context, pd *providerData, id string) error {
	c := wait.Busy{
		What: fmt.Sprintf("service %s to accept the stop", id),
		Call: func(ctx context.Context) error { _, err := pd.client.StopService(ctx, id); return err },
		Before: func(ctx context.Context) error {
			svc, err := pd.client.GetService(ctx, id)
			if err == nil && (serviceStatus(svc) == string(api.PAUSED) || serviceStatus(svc) == string(api.PAUSING)) {
				return errAlreadyThere
			}
			if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
				return fmt.Errorf("before stopping: %w", err)
			}
			return nil
		},
		Applied: func(ctx context.Context) bool {
			svc, err := pd.client.GetService(ctx, id)
			return err == nil && (serviceStatus(svc) == string(api.PAUSING) || serviceStatus(svc) == string(api.PAUSED))
		},
		MaxRetries: maxServiceConflictRetries,
	}
	if err := wait.WhileBusy(ctx, pd.backoff, c); err != nil && !errors.Is(err, errAlreadyThere) {
		return err
	}
	if _, err := waitServicePaused(ctx, pd, id); err != nil {
		return fmt.Errorf("after stopping: %w", err)
	}
	return nil
}

// startService starts (resumes) a paused service and waits for READY. It waits for PAUSED first (a
// stop may still be under way), and is done at once when the service is already RESUMING or READY.
func startService(ctx context.Context, pd *providerData, id string) error {
	c := wait.Busy{
		What: fmt.Sprintf("service %s to accept the start", id),
		Call: func(ctx context.Context) error { _, err := pd.client.StartService(ctx, id); return err },
		Before: func(ctx context.Context) error {
			svc, err := pd.client.GetService(ctx, id)
			if err == nil && (serviceStatus(svc) == string(api.READY) || serviceStatus(svc) == string(api.RESUMING)) {
				return errAlreadyThere
			}
			if _, err := waitServicePaused(ctx, pd, id); err != nil {
				return fmt.Errorf("before starting: %w", err)
			}
			return nil
		},
		Applied: func(ctx context.Context) bool {
			svc, err := pd.client.GetService(ctx, id)
			return err == nil && (serviceStatus(svc) == string(api.RESUMING) || serviceStatus(svc) == string(api.READY))
		},
		MaxRetries: maxServiceConflictRetries,
	}
	if err := wait.WhileBusy(ctx, pd.backoff, c); err != nil && !errors.Is(err, errAlreadyThere) {
		return err
	}
	if _, err := waitServiceResumed(ctx, pd, id); err != nil {
		return fmt.Errorf("after starting: %w", err)
	}
	return nil
}

// errAlreadyThere ends a stop or start before its call: the service is already where it should go.
var errAlreadyThere = errors.New("already in the wanted state")

// ---- predicates for changeService: whether a record shows a change applied ----

func vpcAttached(vpcID string) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).VpcID.ValueString() == vpcID }
}

func vpcDetached(s *api.Service) bool { return flattenService(s).VpcID.IsNull() }

func serviceResizedTo(cpu, mem int) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return f.CPUMillis.ValueInt64() == int64(cpu) && f.MemoryGbs.ValueInt64() == int64(mem)
	}
}

func serviceHAIs(in api.SetHAInput) func(*api.Service) bool {
	return func(s *api.Service) bool {
		f := flattenService(s)
		return (in.ReplicaCount == nil || f.HAReplicas.ValueInt64() == int64(*in.ReplicaCount)) &&
			(in.SyncReplicaCount == nil || f.SyncReplicas.ValueInt64() == int64(*in.SyncReplicaCount))
	}
}

func servicePoolerIs(on bool) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).ConnectionPoolerEnabled.ValueBool() == on }
}

func serviceEnvironmentIs(env api.Environment) func(*api.Service) bool {
	return func(s *api.Service) bool { return flattenService(s).Environment.ValueString() == string(env) }
}
