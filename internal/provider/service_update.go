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

// serviceChange is one thing an update of a service can change in place: the attributes (as messages
// name them), whether the plan changes them, and the API calls that make the change.
type serviceChange struct {
	attrs   string
	changed func(plan, state serviceResourceModel) bool
	actions func(plan, state serviceResourceModel) []serviceAction // called only when changed
	// afterCreate: the created record may differ from the plan (the create call cannot set it, or
	// not all of it), so that afterCreate makes the change from the created record too.
	afterCreate bool
}

// serviceChanges is the one list of what an update can change in place, in the order an update makes
// the calls. planServiceActions, serviceChangesNeedingRunning and serviceUpdateCallsAPI are derived
// from it: a new in-place attribute is its model field, its schema attribute, one entry here and the
// client call (a kind and its entry in serviceCalls). Start and stop (paused) are not in it: a paused
// service accepts none of these, so start comes first and stop last.
var serviceChanges = []serviceChange{
	{
		attrs: "name",
		changed: func(plan, state serviceResourceModel) bool {
			return !plan.Name.IsUnknown() && !plan.Name.Equal(state.Name)
		},
		actions: func(plan, state serviceResourceModel) []serviceAction {
			return onlyIf(changedKnown(plan.Name, state.Name), serviceAction{Kind: actionRename, Name: plan.Name.ValueString()})
		},
	},
	{
		attrs:   "vpc_id",
		changed: func(plan, state serviceResourceModel) bool { return !plan.VpcID.Equal(state.VpcID) },
		actions: func(plan, state serviceResourceModel) []serviceAction {
			return append(onlyIf(known(state.VpcID), serviceAction{Kind: actionDetachVPC, VpcID: state.VpcID.ValueString()}),
				onlyIf(known(plan.VpcID), serviceAction{Kind: actionAttachVPC, VpcID: plan.VpcID.ValueString()})...)
		},
	},
	{
		attrs: "cpu_millis/memory_gbs",
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.CPUMillis, state.CPUMillis) || changedKnown(plan.MemoryGbs, state.MemoryGbs)
		},
		actions: func(plan, _ serviceResourceModel) []serviceAction {
			return onlyIf(known(plan.CPUMillis) && known(plan.MemoryGbs),
				serviceAction{Kind: actionResize, CPUMillis: int(plan.CPUMillis.ValueInt64()), MemoryGbs: int(plan.MemoryGbs.ValueInt64())})
		},
	},
	{
		attrs: "ha_replicas/sync_replicas",
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.HAReplicas, state.HAReplicas) || changedKnown(plan.SyncReplicas, state.SyncReplicas)
		},
		actions: func(plan, state serviceResourceModel) []serviceAction {
			var ha api.SetHAInput
			if changedKnown(plan.HAReplicas, state.HAReplicas) {
				ha.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
			}
			if changedKnown(plan.SyncReplicas, state.SyncReplicas) {
				ha.SyncReplicaCount = ptr(int(plan.SyncReplicas.ValueInt64()))
			}
			return []serviceAction{{Kind: actionSetHA, HA: ha}}
		},
		afterCreate: true,
	},
	{
		attrs: "connection_pooler_enabled",
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled)
		},
		actions: func(plan, _ serviceResourceModel) []serviceAction {
			return []serviceAction{{Kind: actionSetPooler, Pooler: plan.ConnectionPoolerEnabled.ValueBool()}}
		},
		afterCreate: true,
	},
	{
		attrs:   "environment",
		changed: func(plan, state serviceResourceModel) bool { return changedKnown(plan.Environment, state.Environment) },
		actions: func(plan, _ serviceResourceModel) []serviceAction {
			return []serviceAction{{Kind: actionSetEnvironment, Env: api.Environment(plan.Environment.ValueString())}}
		},
	},
	{
		// A new password, or a new password_wo_version (password_wo is taken from the configuration).
		attrs: "password",
		changed: func(plan, state serviceResourceModel) bool {
			return changedKnown(plan.Password, state.Password) || changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion)
		},
		actions: func(plan, state serviceResourceModel) []serviceAction {
			if changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion) {
				return []serviceAction{{Kind: actionSetPassword, Password: plan.PasswordWO.ValueString()}}
			}
			return onlyIf(plan.Password.ValueString() != "", serviceAction{Kind: actionSetPassword, Password: plan.Password.ValueString()})
		},
	},
}

// onlyIf returns the actions when cond holds, else none.
func onlyIf[T any](cond bool, a ...T) []T {
	if cond {
		return a
	}
	return nil
}

// planServiceActions is the pure heart of Update: from the prior state and the plan (with password_wo
// taken from the configuration) it returns the API calls to make, in order: start (a paused service
// that the plan resumes: every other call needs it running), the calls of serviceChanges in its
// order, and stop last (paused = true). No change means no action.
func planServiceActions(state, plan serviceResourceModel) []serviceAction {
	var out []serviceAction
	statePaused := serviceModelPaused(state)
	if statePaused && known(plan.Paused) && !plan.Paused.ValueBool() {
		out = append(out, serviceAction{Kind: actionStart})
	}
	for _, c := range serviceChanges {
		if c.changed(plan, state) {
			out = append(out, c.actions(plan, state)...)
		}
	}
	if !statePaused && known(plan.Paused) && plan.Paused.ValueBool() {
		out = append(out, serviceAction{Kind: actionStop})
	}
	return out
}

// serviceChangesNeedingRunning names the planned changes that make an API call a paused service
// refuses: every entry of serviceChanges (start/stop and the Terraform-only settings are not in it).
func serviceChangesNeedingRunning(plan, state serviceResourceModel) []string {
	var out []string
	for _, c := range serviceChanges {
		if c.changed(plan, state) {
			out = append(out, c.attrs)
		}
	}
	return out
}

// serviceUpdateCallsAPI reports whether an update from state to plan makes an API call (other than
// start and stop).
func serviceUpdateCallsAPI(plan, state serviceResourceModel) bool {
	return len(serviceChangesNeedingRunning(plan, state)) > 0
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

// serviceCall is what an update knows of one kind of call: the diagnostic summaries of its failure
// (in an update, and after a create: "" where a create never makes it), the call, and what it records
// in the model of what holds so far once it succeeded (nil: nothing; the record read after shows it).
type serviceCall struct {
	update, create string
	call           func(ctx context.Context, pd *providerData, id string, a serviceAction) error
	record         func(cur *serviceResourceModel, plan serviceResourceModel)
}

// serviceCalls are the calls of an update, one per kind. Every call but start and stop goes through
// changeService (wait for READY, retry while busy, look after a lost answer).
var serviceCalls = map[serviceActionKind]serviceCall{
	actionDetachVPC: {
		update: "Could not detach the service from its VPC",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "detaching from VPC "+a.VpcID, true,
				func(ctx context.Context) error { return pd.client.DetachFromVPC(ctx, id, a.VpcID) }, vpcDetached)
		},
		record: func(cur *serviceResourceModel, _ serviceResourceModel) { cur.VpcID = types.StringNull() },
	},
	actionAttachVPC: {
		update: "Could not attach the service to the VPC", create: "Service created but attaching it to the VPC failed",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "attaching to VPC "+a.VpcID, true,
				func(ctx context.Context) error { return pd.client.AttachToVPC(ctx, id, a.VpcID) }, vpcAttached(a.VpcID))
		},
		record: func(cur *serviceResourceModel, plan serviceResourceModel) { cur.VpcID = plan.VpcID },
	},
	actionResize: {
		update: "Could not resize the service",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "resizing", true,
				func(ctx context.Context) error { return pd.client.ResizeService(ctx, id, a.CPUMillis, a.MemoryGbs) },
				serviceResizedTo(a.CPUMillis, a.MemoryGbs))
		},
		record: func(cur *serviceResourceModel, plan serviceResourceModel) {
			cur.CPUMillis, cur.MemoryGbs = plan.CPUMillis, plan.MemoryGbs
		},
	},
	actionSetHA: {
		update: "Could not change the HA replicas", create: "Service created but setting HA replicas failed",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "setting HA replicas", true,
				func(ctx context.Context) error { return pd.client.SetHA(ctx, id, a.HA) }, serviceHAIs(a.HA))
		},
	},
	actionSetPooler: {
		update: "Could not change the connection pooler", create: "Service created but changing the connection pooler failed",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			if a.Pooler {
				return changeService(ctx, pd, id, "enabling the connection pooler", false,
					func(ctx context.Context) error { return pd.client.EnablePooler(ctx, id) }, servicePoolerIs(true))
			}
			return changeService(ctx, pd, id, "disabling the connection pooler", false,
				func(ctx context.Context) error { return pd.client.DisablePooler(ctx, id) }, servicePoolerIs(false))
		},
	},
	actionSetEnvironment: {
		update: "Could not change the environment",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "setting the environment", false,
				func(ctx context.Context) error { return pd.client.SetEnvironment(ctx, id, a.Env) }, serviceEnvironmentIs(a.Env))
		},
	},
	actionSetPassword: {
		update: "Could not change the password", create: "Service created but setting the password failed",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "setting the password", false,
				func(ctx context.Context) error { return pd.client.UpdatePassword(ctx, id, a.Password) }, nil)
		},
	},
	actionRename: {
		update: "Could not rename the service",
		call: func(ctx context.Context, pd *providerData, id string, a serviceAction) error {
			return changeService(ctx, pd, id, "the new name "+a.Name, false,
				func(ctx context.Context) error { _, err := pd.client.RenameService(ctx, id, a.Name); return err },
				func(s *api.Service) bool { return deref(s.Name) == a.Name })
		},
		record: func(cur *serviceResourceModel, plan serviceResourceModel) { cur.Name = plan.Name },
	},
	actionStart: {
		update: "Could not start (resume) the service",
		call: func(ctx context.Context, pd *providerData, id string, _ serviceAction) error {
			return serviceStart.run(ctx, pd, id)
		},
		record: func(cur *serviceResourceModel, _ serviceResourceModel) { cur.Paused = types.BoolValue(false) },
	},
	actionStop: {
		update: "Could not stop (pause) the service", create: "Service created but stopping (pausing) it failed",
		call: func(ctx context.Context, pd *providerData, id string, _ serviceAction) error {
			return serviceStop.run(ctx, pd, id)
		},
		record: func(cur *serviceResourceModel, _ serviceResourceModel) { cur.Paused = types.BoolValue(true) },
	},
}

// run makes the action's API call (serviceCalls).
func (a serviceAction) run(ctx context.Context, r *serviceResource, id string) error {
	c, ok := serviceCalls[a.Kind]
	if !ok {
		return fmt.Errorf("unknown update action %d: this is a bug in the provider", a.Kind)
	}
	return c.call(ctx, r.pd, id, a)
}

// record updates cur, what holds so far, once the action succeeded.
func (a serviceAction) record(cur *serviceResourceModel, plan serviceResourceModel) {
	if rec := serviceCalls[a.Kind].record; rec != nil {
		rec(cur, plan)
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
			pd.updateFailed(ctx, &resp.Diagnostics, serviceCalls[a.Kind].update, "Service "+id, err)
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
	rctx, cancel := wait.Detached(ctx, 30*time.Second)
	defer cancel()
	if svc, err := r.pd.client.GetService(rctx, m.ID.ValueString()); err == nil {
		m.applyRecord(svc, r.pd.client.ProjectID())
	} else {
		tflog.Debug(ctx, "dbcloud: could not read the service to record progress", map[string]any{"error": err.Error()})
	}
	m.forState()
	diags.Append(state.Set(ctx, &m)...)
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

// serviceSwitch is a stop (pause) or a start (resume) of a service: the one way either is sent
// (request, for the actions) and waited for (run, for create and update).
type serviceSwitch struct {
	name, doing string                                                                       // "stop", "stopping"
	call        func(ctx context.Context, c *api.Client, id string) error                    // the API call
	from        func(ctx context.Context, pd *providerData, id string) (*api.Service, error) // waits for the status the call needs
	to          func(ctx context.Context, pd *providerData, id string) (*api.Service, error) // waits for the status it ends in
	there       []api.ServiceStatus                                                          // the call took effect, or is not needed
}

var (
	// serviceStop waits for READY first (the API answers 409 otherwise) and ends in PAUSED.
	serviceStop = serviceSwitch{
		name: "stop", doing: "stopping",
		call: func(ctx context.Context, c *api.Client, id string) error {
			_, err := c.StopService(ctx, id)
			return err
		},
		from: func(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
			return waitServiceReady(ctx, pd, id, false)
		},
		to:    waitServicePaused,
		there: []api.ServiceStatus{api.PAUSING, api.PAUSED},
	}
	// serviceStart waits for PAUSED first (a stop may still be under way) and ends in READY.
	serviceStart = serviceSwitch{
		name: "start", doing: "starting",
		call: func(ctx context.Context, c *api.Client, id string) error {
			_, err := c.StartService(ctx, id)
			return err
		},
		from:  waitServicePaused,
		to:    waitServiceResumed,
		there: []api.ServiceStatus{api.RESUMING, api.READY},
	}
)

// request sends the stop or start through the one busy-retry: it is done at once when the service is
// already on its way there (PAUSING or PAUSED for a stop), else it waits for the status the call
// needs, sends the call again after a 409, and after a lost answer looks whether the call took effect
// before sending it again. It does not wait for the status the call ends in.
func (s serviceSwitch) request(ctx context.Context, pd *providerData, id string) error {
	there := serviceStatusIn(pd, id, s.there...)
	err := wait.WhileBusy(ctx, pd.backoff, wait.Busy{
		What: fmt.Sprintf("service %s to accept the %s", id, s.name),
		Call: func(ctx context.Context) error { return s.call(ctx, pd.client, id) },
		Before: func(ctx context.Context) error {
			if there(ctx) {
				return errAlreadyThere
			}
			if _, err := s.from(ctx, pd, id); err != nil {
				return fmt.Errorf("before %s: %w", s.doing, err)
			}
			return nil
		},
		Applied:    there,
		MaxRetries: maxServiceConflictRetries,
	})
	if errors.Is(err, errAlreadyThere) {
		return nil
	}
	return err
}

// run requests the stop or start and waits for the status it ends in (PAUSED, READY).
func (s serviceSwitch) run(ctx context.Context, pd *providerData, id string) error {
	if err := s.request(ctx, pd, id); err != nil {
		return err
	}
	if _, err := s.to(ctx, pd, id); err != nil {
		return fmt.Errorf("after %s: %w", s.doing, err)
	}
	return nil
}

// serviceStatusIn is a wait.Busy Applied: whether the service's status is one of statuses.
func serviceStatusIn(pd *providerData, id string, statuses ...api.ServiceStatus) func(context.Context) bool {
	return func(ctx context.Context) bool {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			return false
		}
		for _, s := range statuses {
			if serviceStatus(svc) == string(s) {
				return true
			}
		}
		return false
	}
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
