package provider

// The service actions (Terraform >= 1.14: `action` blocks, `terraform apply -invoke=action.<type>.<name>`
// and `lifecycle { action_trigger { ... } }`): dbcloud_service_restart, dbcloud_service_pause and
// dbcloud_service_resume. One type serves all three; each is a list of steps (stop, wait for PAUSED,
// start, wait for READY). The steps are the only place the actions call the service's stop, start and
// wait functions (the one busy-retry, wait.WhileBusy, and the one waiter): see serviceActionSteps.
//
// Choices: resume of a READY service and pause of a PAUSED service do nothing and warn (the goal, a
// running or a paused service, already holds: a scheduled pipeline must not fail because someone was
// earlier). Resume of a service that is RESUMING, or pause of one that is PAUSING, sends nothing, warns
// and waits for the end (unless wait = false). Restart of a PAUSED or PAUSING service is an error
// (restarting would start a service someone paused; dbcloud_service_resume says that on purpose), and
// so is any action on a service that does not exist or is being deleted.

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

var _ actionImpl = (*serviceStateAction)(nil)

// defaultActionTimeout bounds an action without a `timeouts { invoke = ... }`.
const defaultActionTimeout = 30 * time.Minute

// serviceIDPattern is the form of a service id (10 lower-case letters and digits).
var serviceIDPattern = regexp.MustCompile(`^[a-z0-9]{10}$`)

// serviceOp is what one action does.
type serviceOp int

const (
	opRestart serviceOp = iota
	opPause
	opResume
)

// NewServiceRestartAction is dbcloud_service_restart.
func NewServiceRestartAction() action.Action { return manageAction(&serviceStateAction{op: opRestart}) }

// NewServicePauseAction is dbcloud_service_pause.
func NewServicePauseAction() action.Action { return manageAction(&serviceStateAction{op: opPause}) }

// NewServiceResumeAction is dbcloud_service_resume.
func NewServiceResumeAction() action.Action { return manageAction(&serviceStateAction{op: opResume}) }

type serviceStateAction struct {
	pd *providerData
	op serviceOp
}

type serviceActionModel struct {
	ServiceID types.String   `tfsdk:"service_id"`
	Wait      types.Bool     `tfsdk:"wait"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (a *serviceStateAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + map[serviceOp]string{opRestart: "_service_restart", opPause: "_service_pause", opResume: "_service_resume"}[a.op]
}

func (a *serviceStateAction) dataSlot() **providerData { return &a.pd }

func (a *serviceStateAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	descriptions := map[serviceOp]struct{ action, wait string }{
		opRestart: {"Restarts a service: stops it (`POST .../stop`), waits for `PAUSED`, starts it (`POST .../start`) and waits " +
			"for `READY`. The service must be running: restarting a `PAUSED` service is an error (use `dbcloud_service_resume`).",
			"Whether to wait for `READY` after the start. With `false` the action still waits for `PAUSED` between the stop " +
				"and the start (the API accepts the start only then), and returns once the API accepted the start. Default `true`."},
		opPause: {"Pauses (stops) a service: `POST .../stop`, then waits for `PAUSED`. A paused service keeps its data. " +
			"Pausing a `PAUSED` service does nothing and warns; a `PAUSING` one is only waited for.",
			"Whether to wait for `PAUSED`. With `false` the action returns once the API accepted the stop. Default `true`."},
		opResume: {"Resumes (starts) a paused service: `POST .../start`, then waits for `READY`. " +
			"Resuming a service that is not paused (`READY`, or still being created or changed) does nothing and warns; a " +
			"`RESUMING` one is only waited for.",
			"Whether to wait for `READY`. With `false` the action returns once the API accepted the start. Default `true`."},
	}[a.op]
	resp.Schema = schema.Schema{
		MarkdownDescription: descriptions.action + "\n\nA service that is busy (being configured, or answering 409) is waited " +
			"for first; progress (each status change) shows as the action runs. Needs Terraform 1.14 or later. How this works " +
			"with the `paused` argument of `dbcloud_service`, scheduled pauses and action triggers: the " +
			"[Day-2 operations guide](../guides/day2-operations.md).",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the service (10 lower-case letters and digits), e.g. `dbcloud_service.example.id`.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(serviceIDPattern, "must be a service id: 10 lower-case letters and digits"),
				},
			},
			"wait": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: descriptions.wait,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
				InvokeDescription: "How long the action may take, waits included (a duration such as `45m`). Default `30m`.",
			}),
		},
	}
}

func (a *serviceStateAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m serviceActionModel
	progress := actionProgress(ctx, resp)
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, m.Timeouts.Invoke, defaultActionTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	id, andWait := m.ServiceID.ValueString(), m.Wait.IsNull() || m.Wait.ValueBool()
	var last string
	ctx = reportStatusChanges(ctx, progress, &last)
	start := time.Now()

	svc, err := a.pd.client.GetService(ctx, id)
	if err != nil {
		if api.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("service_id"), "Service not found",
				fmt.Sprintf("No service %s exists in project %s, so nothing was sent. Check service_id (a service deleted "+
					"since the plan, or one of another project?).\n\n%s", id, a.pd.client.ProjectID(), errorDetail(err)))
			return
		}
		a.pd.addError(ctx, &resp.Diagnostics, "Could not read service "+id, err)
		return
	}
	if err := notStandby(id, svc); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("service_id"), standbySummary, err.Error())
		return
	}
	status := serviceStatus(svc)
	last = status
	steps, warning, err := serviceActionSteps(a.op, id, status, andWait)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("service_id"), a.summary(), err.Error())
		return
	}
	if warning != "" {
		resp.Diagnostics.AddWarning(a.summary()+": nothing to do", warning)
	}
	progress("service %s is %s", id, status)
	for _, s := range steps {
		if !s.wait {
			progress("%s", s.what)
		}
		if err := s.run(ctx, a.pd, id); err != nil {
			a.fail(ctx, &resp.Diagnostics, s.what, err)
			return
		}
	}
	if len(steps) > 0 {
		progress("done after %s", time.Since(start).Round(100*time.Millisecond))
	}
}

// summary is the diagnostic summary of a failed action.
func (a *serviceStateAction) summary() string {
	return map[serviceOp]string{opRestart: "Could not restart the service", opPause: "Could not pause the service",
		opResume: "Could not resume the service"}[a.op]
}

// fail reports a failed step (actionFailed): what the step did, the API's answer and what to do.
func (a *serviceStateAction) fail(ctx context.Context, diags *diag.Diagnostics, step string, err error) {
	a.pd.actionFailed(ctx, diags, a.summary(), err,
		fmt.Sprintf("Interrupted while %s: %s\n\nA call the API already accepted "+
			"goes on without Terraform (the service keeps pausing or resuming). Invoke the action again to finish: "+
			"a pause of a PAUSING service, or a resume of a RESUMING one, only waits.", step, err),
		fmt.Sprintf("While %s: %s\n\nThe API may still complete what it accepted. "+
			"Raise timeouts.invoke if this routinely takes longer, or invoke the action again: it continues from the "+
			"service's status.", step, err),
		fmt.Errorf("while %s: %w", step, err))
}

// serviceActionStep is one step of an action.
type serviceActionStep struct {
	what string // for progress and errors: "stopping service abc"
	run  func(ctx context.Context, pd *providerData, id string) error
	wait bool // a wait: its status changes are its progress
}

// serviceActionSteps is the plan of an action for a service in status: its steps, or a warning and
// no steps (nothing to do), or an error (the action makes no sense now). It makes no call itself.
func serviceActionSteps(op serviceOp, id, status string, andWait bool) ([]serviceActionStep, string, error) {
	stop := serviceActionStep{what: "stopping service " + id, run: serviceStop.request}
	start := serviceActionStep{what: "starting service " + id, run: serviceStart.request}
	waitPaused := serviceActionStep{what: "waiting for service " + id + " to be PAUSED", wait: true, run: func(ctx context.Context, pd *providerData, id string) error {
		_, err := waitServicePaused(ctx, pd, id)
		return err
	}}
	waitReady := serviceActionStep{what: "waiting for service " + id + " to be READY", wait: true, run: func(ctx context.Context, pd *providerData, id string) error {
		_, err := waitServiceResumed(ctx, pd, id)
		return err
	}}
	switch status {
	case string(api.DELETING), string(api.DELETED):
		return nil, "", fmt.Errorf("service %s is %s: it is being or was deleted, so nothing was sent", id, status)
	}
	switch op {
	case opPause:
		switch status {
		case string(api.PAUSED):
			return nil, fmt.Sprintf("Service %s is already PAUSED: nothing was sent.", id), nil
		case string(api.PAUSING):
			return onlyIf(andWait, waitPaused), fmt.Sprintf("Service %s is already PAUSING (a stop is under way): no stop was sent.", id), nil
		}
		return append([]serviceActionStep{stop}, onlyIf(andWait, waitPaused)...), "", nil
	case opResume:
		switch {
		case api.ServiceStatus(status).Paused():
			return append([]serviceActionStep{start}, onlyIf(andWait, waitReady)...), "", nil
		case status == string(api.RESUMING):
			return onlyIf(andWait, waitReady), fmt.Sprintf("Service %s is already RESUMING (a start is under way): no start was sent.", id), nil
		}
		return nil, fmt.Sprintf("Service %s is %s, not paused: nothing was sent.", id, status), nil
	}
	if api.ServiceStatus(status).Paused() {
		return nil, "", fmt.Errorf("service %s is %s: a restart stops and starts a running service, and starting a paused "+
			"service is not its job. Nothing was sent. Use the dbcloud_service_resume action to start it", id, status)
	}
	return append([]serviceActionStep{stop, waitPaused, start}, onlyIf(andWait, waitReady)...), "", nil
}

// actionProgress is the progress messages of an action's Invoke (ctx is the request's). After Ctrl-C
// nobody reads them any more (the plugin server has ended the action), and a send would block for
// good: the action goes on (a lost answer is still looked for, say) without them.
func actionProgress(ctx context.Context, resp *action.InvokeResponse) func(format string, args ...any) {
	return func(format string, args ...any) {
		if resp.SendProgress != nil && ctx.Err() == nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf(format, args...)})
		}
	}
}

// reportStatusChanges makes every wait under ctx (the one before each call included) say each status
// once through progress, not again when the next wait starts where the last one ended; *last is the
// status said last, which the action sets too when it read one itself.
func reportStatusChanges(ctx context.Context, progress func(format string, args ...any), last *string) context.Context {
	return wait.WithStatusReporter(ctx, func(what, status string) {
		if status != *last {
			*last = status
			progress("waiting for %s: %s", what, status)
		}
	})
}
