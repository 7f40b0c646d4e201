package provider

// dbcloud_service: the resource type and its CRUD, top to bottom, then how the provider finds,
// reads the status of, and waits for a service. Schema: service_schema.go; plan logic: service_plan.go;
// update actions: service_update.go; record mapping: service_flatten.go; model: service_model.go.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Default timeouts of dbcloud_service.
const (
	serviceCreateTimeout = 30 * time.Minute
	serviceUpdateTimeout = 30 * time.Minute
	serviceDeleteTimeout = 20 * time.Minute
)

// privateAddonsDerived is the private-state key set when `addons` was derived from service_type (on
// import) rather than taken from configuration. While it is set, a configured addons set that is
// consistent with the service type is adopted in place instead of replacing the service.
const privateAddonsDerived = "addons_derived"

var (
	_ resource.ResourceWithImportState    = (*serviceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serviceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serviceResource)(nil)
)

// NewServiceResource is the dbcloud_service resource.
func NewServiceResource() resource.Resource {
	return manageResource(&serviceResource{resourceBase{typeName: serviceTypeName}})
}

type serviceResource struct{ resourceBase }

// Create creates (or forks) the service, records its id in state at once, waits for READY, makes the
// calls the create call cannot (HA, pooler, VPC, password), and pauses it when asked.
func (r *serviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var passwordWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &passwordWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, plan.Timeouts.Create, serviceCreateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	var fork *serviceForkModel
	if !plan.Fork.IsNull() {
		fork = &serviceForkModel{}
		resp.Diagnostics.Append(plan.Fork.As(ctx, fork, basetypes.ObjectAsOptions{})...)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	// 1. Create (or fork), and save the id at once: from here on, any failure leaves the service in
	// state (tainted, or kept when interrupted), never orphaned.
	cur, ok := r.createAndRecord(ctx, plan, fork, resp)
	if !ok {
		return
	}
	id := cur.ID.ValueString()
	fail := func(summary string, err error) { r.createFailed(ctx, resp, cur, summary, err) }

	// 2. Wait for READY, then the steps the create call cannot take.
	ready, err := waitServiceReady(ctx, r.pd, id, true)
	if err != nil {
		fail("Service created but did not become READY", err)
		return
	}
	if fork != nil && !r.checkFork(ctx, plan, ready, resp) {
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
		return
	}
	if summary, err := r.afterCreate(ctx, id, plan, ready, passwordWO); err != nil {
		fail(summary, err)
		return
	}

	// 3. paused = true: stop it now that it is READY and set up; otherwise read the READY record.
	var final *api.Service
	if plan.Paused.ValueBool() {
		if err := serviceStop.run(ctx, r.pd, id); err != nil {
			fail(serviceCalls[actionStop].create, err)
			return
		}
		final, err = waitServicePaused(ctx, r.pd, id)
	} else {
		final, err = waitServiceReady(ctx, r.pd, id, false)
	}
	if err != nil {
		fail("Service created but did not become "+map[bool]string{true: "PAUSED", false: "READY"}[plan.Paused.ValueBool()], err)
		return
	}
	out := plan
	out.applyRecord(final, r.pd.client.ProjectID())
	out.InitialPassword = cur.InitialPassword
	if !known(out.Addons) {
		out.Addons = serviceAddonsSet([]string{})
	}
	out.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}

// createAndRecord sends the create (or fork) and records the new service in state. ok is false when
// the create failed (the diagnostics say why) or the state could not be set.
func (r *serviceResource) createAndRecord(ctx context.Context, plan serviceResourceModel, fork *serviceForkModel, resp *resource.CreateResponse) (serviceResourceModel, bool) {
	name := plan.Name.ValueString()
	svc, adopted := r.createOrFork(ctx, plan, fork, resp)
	if resp.Diagnostics.HasError() {
		return plan, false
	}
	if deref(svc.ServiceID) == "" {
		resp.Diagnostics.AddError("Could not create service", "The API answered the create without a service_id: the provider cannot track the service. "+
			"Look for a service named "+strconv.Quote(name)+" and import it if it exists.")
		return plan, false
	}
	if adopted {
		resp.Diagnostics.AddWarning("Service adopted after a lost create answer",
			fmt.Sprintf("The API did not answer the create of %q, but exactly one service with this name appeared since the attempt started: %s. "+
				"The provider adopted it instead of creating another. Its initial_password is unknown (null): set password or password_wo to choose one.", name, *svc.ServiceID))
	}
	cur := plan
	cur.applyRecord(svc, r.pd.client.ProjectID())
	if adopted {
		cur.InitialPassword = types.StringNull()
	}
	cur.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
	return cur, !resp.Diagnostics.HasError()
}

// createFailed reports a failed step after the service exists. An interrupt (Ctrl-C) keeps the
// service in state without an error, so Terraform does not taint it: the state holds what the plan
// promised (the wrapper keeps the planned values, planned.go; Terraform checks them, and an
// inconsistency is an error, which taints), the record's values where the plan left them unknown,
// and the private flag makes the next plan run an update that waits for the service and applies the
// rest (the password, which no refresh can show). Any other error is an error, with the progress
// saved (Terraform taints the service).
func (r *serviceResource) createFailed(ctx context.Context, resp *resource.CreateResponse, cur serviceResourceModel, summary string, err error) {
	pd, id := r.pd, cur.ID.ValueString()
	if !interruptedWait(&resp.Diagnostics, err, diag.SeverityWarning, "Interrupted while waiting; the next apply resumes the wait",
		fmt.Sprintf("%s: %s\n\nService %s exists and is kept in state (not tainted). The next apply waits for it "+
			"and applies the settings that were not applied yet; nothing is created twice.", summary, err.Error(), id)) {
		pd.addError(ctx, &resp.Diagnostics, summary, err)
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
		return
	}
	rctx, cancel := wait.Detached(ctx, 30*time.Second)
	defer cancel()
	if svc, gerr := pd.client.GetService(rctx, id); gerr == nil {
		cur.applyRecord(svc, pd.client.ProjectID())
	}
	cur.forState() // the wrapper writes the plan's known values over it (planned.go)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateResumeCreate, []byte("true"))...)
}

// checkFork checks a READY fork against the configuration: a region_code other than the source's is
// an error (false), addons that do not match the inherited type a warning.
func (r *serviceResource) checkFork(ctx context.Context, plan serviceResourceModel, ready *api.Service, resp *resource.CreateResponse) bool {
	id := deref(ready.ServiceID)
	if known(plan.RegionCode) && deref(ready.RegionCode) != "" && plan.RegionCode.ValueString() != deref(ready.RegionCode) {
		resp.Diagnostics.AddAttributeError(path.Root("region_code"), "Fork region differs from region_code",
			fmt.Sprintf("A fork inherits the region of its source: service %s is in %s, but region_code is %s. Remove region_code or set it to %s.",
				id, deref(ready.RegionCode), plan.RegionCode.ValueString(), deref(ready.RegionCode)))
		return false
	}
	if addons, _ := setStrings(ctx, plan.Addons); !addonsMatchServiceType(addons, deref(ready.ServiceType)) {
		resp.Diagnostics.AddAttributeWarning(path.Root("addons"), "Fork type differs from addons",
			fmt.Sprintf("A fork inherits the type of its source: service %s is %s, which does not match addons %v. "+
				"Set addons to match the source service.", id, deref(ready.ServiceType), addons))
	}
	return true
}

// createOrFork sends the create (or fork) call. A lost answer is resolved by looking
// (findCreatedService), never by sending the call again: adopted says the service was found so.
func (r *serviceResource) createOrFork(ctx context.Context, plan serviceResourceModel, fork *serviceForkModel, resp *resource.CreateResponse) (_ *api.Service, adopted bool) {
	pd, diags := r.pd, &resp.Diagnostics
	name := plan.Name.ValueString()
	started := time.Now()
	var (
		svc  *api.Service
		err  error
		sent bool // whether err is the fork call's own (a create's lost answer is resolved by wait.Create)
	)
	if fork != nil {
		body, berr := forkBody(plan, fork)
		if berr != nil {
			diags.AddAttributeError(path.Root("fork").AtName("target_time"), "Invalid fork.target_time", berr.Error())
			return nil, false
		}
		svc, sent, err = r.forkWhenReady(ctx, fork.SourceServiceID.ValueString(), body)
	} else {
		body, d := createBody(ctx, plan)
		diags.Append(d...)
		if diags.HasError() {
			return nil, false
		}
		// A lost answer is resolved by looking, and the create sent again only when it was not made.
		svc, adopted, err = wait.Create(ctx, func(ctx context.Context) (*api.Service, error) { return pd.client.CreateService(ctx, body) },
			func(ctx context.Context, cause error) (*api.Service, error) {
				return findCreatedService(ctx, pd, name, started, cause)
			})
		adopted = adopted && err == nil
	}
	if err != nil && sent && api.IsAmbiguous(err) {
		tflog.Warn(ctx, "dbcloud: the create answer was lost; looking for the service instead of creating it again", map[string]any{"name": name, "error": err.Error()})
		svc, err = findCreatedService(ctx, pd, name, started, err)
		adopted = err == nil
	}
	if err != nil {
		summary := "Could not create service"
		if fork != nil {
			summary = "Could not fork service"
		}
		if !savePlaceholder(ctx, pd, resp, &plan, lostCreate{Started: started}, summary, err) {
			pd.addError(ctx, diags, summary, err)
		}
		return nil, false
	}
	return svc, adopted
}

// afterCreate makes the calls the create call cannot: the changes of serviceChanges marked afterCreate
// (HA replicas, connection pooler) from the created record to the plan, then the VPC and the password
// (a password_wo without a version too). These are the actions of an update (service_update.go). It
// returns the diagnostic summary of the step that failed.
func (r *serviceResource) afterCreate(ctx context.Context, id string, plan serviceResourceModel, ready *api.Service, passwordWO types.String) (string, error) {
	var actions []serviceAction
	created := serviceResourceModel{serviceFields: flattenService(ready)}
	for _, c := range serviceChanges {
		if c.afterCreate && c.changed(plan, created) {
			actions = append(actions, c.actions(plan, created)...)
		}
	}
	if known(plan.VpcID) {
		actions = append(actions, serviceAction{Kind: actionAttachVPC, VpcID: plan.VpcID.ValueString()})
	}
	if pw := firstKnown(plan.Password, passwordWO); pw != "" {
		actions = append(actions, serviceAction{Kind: actionSetPassword, Password: pw})
	}
	for _, a := range actions {
		if err := a.run(ctx, r, id); err != nil {
			return serviceCalls[a.Kind].create, err
		}
	}
	return "", nil
}

// forkWhenReady forks the source once it is READY (the API refuses with 409 otherwise), and waits
// again and retries after a 409 (which provably did not fork). sent reports whether the error (if
// any) is the fork call's own, so that only a fork call's ambiguous failure is resolved by looking.
func (r *serviceResource) forkWhenReady(ctx context.Context, sourceID string, body api.ForkServiceCreate) (svc *api.Service, sent bool, err error) {
	for attempt := 0; ; attempt++ {
		if _, err := waitServiceReady(ctx, r.pd, sourceID, false); err != nil {
			if api.IsNotFound(err) {
				return nil, false, fmt.Errorf("fork source service %s does not exist: %w", sourceID, err)
			}
			return nil, false, fmt.Errorf("the fork source must be READY: %w", err)
		}
		svc, err := r.pd.client.ForkService(ctx, sourceID, body)
		if err == nil || !api.IsConflict(err) || attempt >= maxServiceConflictRetries || ctx.Err() != nil {
			return svc, true, err
		}
		tflog.Debug(ctx, "dbcloud: fork answered 409; waiting for the source to be READY and trying again",
			map[string]any{"source_service_id": sourceID, "attempt": attempt + 1})
	}
}

// createBody builds the create request from the plan.
func createBody(ctx context.Context, plan serviceResourceModel) (api.ServiceCreate, diag.Diagnostics) {
	addons, diags := setStrings(ctx, plan.Addons)
	apiAddons := make([]api.Addon, 0, len(addons))
	for _, a := range addons {
		apiAddons = append(apiAddons, api.Addon(a))
	}
	body := api.ServiceCreate{Name: plan.Name.ValueString(), Addons: &apiAddons}
	if known(plan.RegionCode) {
		body.RegionCode = ptr(plan.RegionCode.ValueString())
	}
	if known(plan.HAReplicas) {
		body.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	setSizesAndEnvironment(&body, plan)
	return body, diags
}

// forkBody builds the fork request.
func forkBody(plan serviceResourceModel, fork *serviceForkModel) (api.ForkServiceCreate, error) {
	strategy := api.LASTSNAPSHOT
	if known(fork.Strategy) {
		strategy = api.ForkStrategy(fork.Strategy.ValueString())
	}
	body := api.ForkServiceCreate{Name: ptr(plan.Name.ValueString()), ForkStrategy: strategy}
	if known(fork.TargetTime) {
		t, err := time.Parse(time.RFC3339, fork.TargetTime.ValueString())
		if err != nil {
			return body, fmt.Errorf("fork.target_time %q is not an RFC 3339 timestamp: %w", fork.TargetTime.ValueString(), err)
		}
		body.TargetTime = &t
	}
	setSizesAndEnvironment(&body, plan)
	return body, nil
}

// sizesAndEnvironment is a create or a fork body: both take the sizes and the environment tag from
// the plan (the client writes the sizes as the API wants them).
type sizesAndEnvironment interface {
	SetSizes(cpuMillis, memoryGbs int)
	SetEnvironment(env api.Environment)
}

// setSizesAndEnvironment sets a create's or a fork's sizes (when both are known) and environment.
func setSizesAndEnvironment(body sizesAndEnvironment, plan serviceResourceModel) {
	if known(plan.CPUMillis) && known(plan.MemoryGbs) {
		body.SetSizes(int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64()))
	}
	if known(plan.Environment) {
		body.SetEnvironment(api.Environment(plan.Environment.ValueString()))
	}
}

// firstKnown returns the first known, non-empty string.
func firstKnown(vals ...types.String) string {
	for _, v := range vals {
		if known(v) && v.ValueString() != "" {
			return v.ValueString()
		}
	}
	return ""
}

func (r *serviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	svc, err := r.pd.reads.GetService(ctx, r.pd.client, id)
	if api.IsNotFound(err) || (err == nil && serviceIsGone(svc)) {
		tflog.Warn(ctx, "dbcloud: service no longer exists; removing it from state", map[string]any{"service_id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		r.pd.addError(ctx, &resp.Diagnostics, "Could not read service", err)
		return
	}
	if err := notStandby(id, svc); err != nil {
		// A read replica set's id (service_standby.go): refused on import and on refresh; the state is kept.
		resp.Diagnostics.AddError(standbySummary, err.Error())
		return
	}
	prior := state
	state, derived := readRecord(state, svc, r.pd.client.ProjectID())
	if derived {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, []byte("true"))...)
	}
	// The framework starts resp.State as the prior state: an unchanged service (most services of most
	// refreshes) needs no Set, which is most of a Read's cost.
	if derived || !sameValues(&state, &prior) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// readRecord is what Read makes of a state and the record the API answered for it: the new state,
// and whether addons were derived from service_type (an import: the record has only service_type).
func readRecord(state serviceResourceModel, svc *api.Service, projectID string) (serviceResourceModel, bool) {
	state.applyRecord(svc, projectID)
	derived := false
	if state.Addons.IsNull() || state.Addons.IsUnknown() {
		state.Addons = serviceAddonsSet(addonsForServiceType(state.ServiceType.ValueString()))
		derived = true
	}
	if state.DeletionProtection.IsNull() || state.DeletionProtection.IsUnknown() {
		state.DeletionProtection = types.BoolValue(false)
	}
	state.forState()
	return state, derived
}

func (r *serviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, state.Timeouts.Delete, serviceDeleteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	pd := r.pd
	id := state.ID.ValueString()
	if pd.copies.refuseDelete(ctx, id, &resp.Diagnostics) {
		return
	}

	err := wait.Delete(ctx, pd.backoff, fmt.Sprintf("service %s to be deleted", id),
		func(ctx context.Context) (string, bool, error) {
			svc, err := pd.client.GetService(ctx, id)
			if err != nil {
				return "", false, err
			}
			if err := notStandby(id, svc); err != nil {
				return "", false, err // never DELETE a read replica set's id on the service path
			}
			st := serviceStatus(svc)
			if serviceIsGone(svc) {
				return st, false, wait.ErrGone
			}
			return st, st == string(api.DELETING), nil
		},
		func(ctx context.Context) error { return pd.client.DeleteService(ctx, id) },
		func(ctx context.Context, conflict error) error { return serviceDeleteBlocked(ctx, pd, id, conflict) })
	if err != nil {
		pd.addError(ctx, &resp.Diagnostics, "Could not delete service", err)
		return
	}
}

func (r *serviceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := strings.TrimSpace(req.ID)
	if id == "" || strings.Contains(id, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Import a service by its id, e.g. rp1pz7uyae; got %q.", req.ID))
		return
	}
	// Everything else, timeouts included, starts null; Read fills in what the API knows.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// privateResumeCreate is the private-state key set when create was interrupted (Ctrl-C) before it
// finished: the next plan plans an update that waits for the service and applies what create did not.
const privateResumeCreate = "resume_create"

// ---- find, status, wait ----

// ambiguousClockSkew widens the "created after the attempt started" window of a lost create.
const ambiguousClockSkew = time.Minute

// findCreatedService resolves an ambiguous create (5xx, or the connection broke after sending) by
// looking (wait.FindCreated), never by sending the create again: a service named name created at or
// after started (minus clock skew) that is not being deleted.
func findCreatedService(ctx context.Context, pd *providerData, name string, started time.Time, cause error) (*api.Service, error) {
	since := started.Add(-ambiguousClockSkew)
	return wait.FindCreated(ctx, pd.backoff, wait.Created[api.Service]{
		Kind: "service", Name: name, List: pd.client.ListServices,
		Match: func(s *api.Service) bool {
			return deref(s.Name) == name && deref(s.ServiceID) != "" && !serviceIsGone(s) && !isStandbyRecord(s) && serviceStatus(s) != string(api.DELETING) &&
				(s.Created == nil || !s.Created.Before(since))
		},
		ID: func(s *api.Service) string { return deref(s.ServiceID) },
	}, cause)
}

// findPlaceholder looks for the service a lost create made (placeholder.go).
func (r *serviceResource) findPlaceholder(ctx context.Context, state tfsdk.State, lc lostCreate) (string, error) {
	return lookForPlaceholder(ctx, state, func(m *serviceResourceModel) (*api.Service, error) {
		return findCreatedService(ctx, r.pd, m.Name.ValueString(), lc.Started, errPlaceholder)
	}, func(s *api.Service) string { return deref(s.ServiceID) })
}

// serviceStatus is the record's status, "" when missing.
func serviceStatus(svc *api.Service) string {
	if svc == nil || svc.Status == nil {
		return ""
	}
	return string(*svc.Status)
}

// serviceIsGone reports whether a record means the service no longer exists.
func serviceIsGone(svc *api.Service) bool {
	return serviceStatus(svc) == string(api.DELETED)
}

// maxServiceNotFoundWhileCreating is how many 404s in a row a wait after create tolerates (the new
// service may not be visible to GET at once).
const maxServiceNotFoundWhileCreating = 3

// waitServiceReady polls until the service is READY and returns its record. creating tolerates a few
// 404s right after create; DELETING/DELETED always fail the wait, and so do PAUSING/PAUSED: nothing
// asked for a pause, so the service was paused outside Terraform, and waiting would only run out the
// timeout. Every other status (QUEUED, CONFIGURING, UPGRADING, OPTIMIZING, RESUMING, UNSTABLE, which
// usually recovers, and any status this provider does not know) is waited out.
func waitServiceReady(ctx context.Context, pd *providerData, id string, creating bool) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.READY, creating, 0)
}

// waitServiceResumed waits for READY after a start: a few polls may still show PAUSED before the
// start shows.
func waitServiceResumed(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.READY, false, maxServiceStaleAfterCall)
}

// waitServicePaused waits for PAUSED after a stop: PAUSING (and READY for a few polls, before the
// stop shows) is waited out; DELETING/DELETED fail the wait.
func waitServicePaused(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.PAUSED, false, maxServiceStaleAfterCall)
}

// maxServiceStaleAfterCall is how many polls in a row may still show the status before a stop or
// start call (READY, PAUSED) before the wait fails.
const maxServiceStaleAfterCall = 5

func waitServiceStatus(ctx context.Context, pd *providerData, id string, target api.ServiceStatus, creating bool, staleOK int) (*api.Service, error) {
	notFound, stale := 0, 0
	return wait.For(ctx, pd.backoff, fmt.Sprintf("service %s to become %s", id, target), func(ctx context.Context) (wait.PollResult[*api.Service], error) {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			if creating && api.IsNotFound(err) && notFound < maxServiceNotFoundWhileCreating {
				notFound++
				return wait.PollResult[*api.Service]{Status: "NOT_FOUND"}, nil
			}
			return wait.PollResult[*api.Service]{}, err
		}
		notFound = 0
		if err := notStandby(id, svc); err != nil {
			// Every state-changing call on the service path waits here first: none goes to a replica set's id.
			return wait.PollResult[*api.Service]{}, wait.Stop(err)
		}
		st := serviceStatus(svc)
		switch {
		case st == string(target):
			return wait.PollResult[*api.Service]{Value: svc, Status: st, Done: true}, nil
		case st == string(api.DELETED), st == string(api.DELETING):
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is %s: it is being or was %w", id, st, errDeletedOutside)
		case target == api.READY && st == string(api.PAUSED) && stale < staleOK:
			stale++
		case target == api.READY && (st == string(api.PAUSED) || st == string(api.PAUSING)):
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is %s: it was paused outside Terraform while Terraform waited for it "+
				"to be READY, and a paused service accepts no change. Set paused = false in the configuration to have Terraform "+
				"start it (or start it elsewhere), then apply again", id, st)
		case target == api.PAUSED && st == string(api.READY):
			if stale++; stale > staleOK {
				return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s stayed READY after the stop call: it did not start pausing; apply again", id)
			}
		case target == api.PAUSED && st == string(api.RESUMING):
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is RESUMING: it was started outside Terraform while Terraform waited for it to pause; apply again", id)
		}
		return wait.PollResult[*api.Service]{Value: svc, Status: st}, nil
	})
}

// serviceDeleteBlocked says, after a DELETE answered 409, whether the conflict will not clear by
// waiting: read replica sets that are not being deleted hold the service (a set Terraform does not
// know: made outside Terraform, or left by an interrupted apply). Any other 409 (the service is busy)
// is waited out.
func serviceDeleteBlocked(ctx context.Context, pd *providerData, id string, conflict error) error {
	sets, err := pd.client.ListReplicaSets(ctx, id)
	if err != nil {
		return nil
	}
	var holding []string
	for _, rs := range sets {
		if deref(rs.Status) != api.ReplicaSetStatusDeleting {
			holding = append(holding, fmt.Sprintf("%s (%q, %s)", deref(rs.ID), deref(rs.Name), deref(rs.Status)))
		}
	}
	if len(holding) == 0 {
		return nil
	}
	return fmt.Errorf("%w\n\nService %s still has read replica sets that this configuration does not delete: %s. "+
		"Delete them first: add them to the configuration with `terraform import dbcloud_read_replica_set.<name> %s/<replica_set_id>` "+
		"and remove them, or delete them in the console; then destroy again", conflict, id, strings.Join(holding, ", "), id)
}
