package provider

// dbcloud_service_fork (Terraform >= 1.14; in a `before_destroy` action trigger >= 1.16): forks a
// service into a new one, a full copy, and optionally pauses the copy so that it costs storage only.
// Its purpose is a final copy before a destroy (see the "Final copies before destroy" guide), but it
// works from `terraform apply -invoke` too.
//
// The fork request is the resource's (forkBody, forkWhenReady), and so is the one lost-create rule: a
// fork whose answer was lost (5xx, a broken connection, Ctrl-C while the request was out) is resolved
// by looking for the fork by its name (findCreatedService, on a context Ctrl-C does not cancel), and
// sent again only when the look proves it was not made (and the action was not interrupted). Nothing
// is sent when the source cannot be forked: missing, not READY (PAUSED included), a read replica set's
// id. The copy's password is the API's new one (initial_password of
// the fork answer): actions have no outputs and secrets are never logged, so it is not shown.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
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

var (
	_ actionImpl                      = (*serviceForkAction)(nil)
	_ action.ActionWithValidateConfig = (*serviceForkAction)(nil)
)

// serviceNameMaxLength is the API's limit on a service name, in characters.
const serviceNameMaxLength = 128

// forkNameTimeFormat is the UTC timestamp that ends a default fork name: orders-20261125T172442Z.
const forkNameTimeFormat = "20060102T150405Z"

// NewServiceForkAction is dbcloud_service_fork.
func NewServiceForkAction() action.Action { return manageAction(&serviceForkAction{}) }

type serviceForkAction struct {
	pd *providerData
}

type serviceForkActionModel struct {
	ServiceID  types.String   `tfsdk:"service_id"`
	Strategy   types.String   `tfsdk:"strategy"`
	TargetTime types.String   `tfsdk:"target_time"`
	Name       types.String   `tfsdk:"name"`
	CPUMillis  types.Int64    `tfsdk:"cpu_millis"`
	MemoryGbs  types.Int64    `tfsdk:"memory_gbs"`
	Pause      types.Bool     `tfsdk:"pause"`
	Wait       types.Bool     `tfsdk:"wait"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
}

func (a *serviceForkAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service_fork"
}

func (a *serviceForkAction) dataSlot() **providerData { return &a.pd }

func (a *serviceForkAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Forks a service: `POST .../forkService` makes a new service, a full copy of the source (roles, " +
			"extensions, data) at the chosen point, then the action waits for the copy to be `READY` and, with `pause = true`, " +
			"stops it so that it costs storage only. The source must be `READY`: a source that does not exist, is paused, or " +
			"is still being created or changed is an error, and nothing is sent.\n\n" +
			"Progress shows the copy's name before the request, its id as soon as the API answers, each status change, and " +
			"where to find the copy afterwards. A fork whose answer was lost (a server error, a broken connection, Ctrl-C) is " +
			"looked for by its name once the API answers, and sent again only when no such copy appeared (never after Ctrl-C). The copy is not managed by Terraform: find it with the " +
			"`dbcloud_services` data source, import it, or delete it in the console. Its `tsdbadmin` password is the new one " +
			"the API chose (not shown: actions have no outputs); other roles keep theirs.\n\n" +
			"Needs Terraform 1.14 or later; as a final copy in a `before_destroy` action trigger (with `caller.id`), 1.16 or " +
			"later. Then a service whose copy failed or was interrupted is not deleted in that run, by `terraform destroy` " +
			"too: see the [Final copies before destroy guide](../guides/final-copies.md).",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Id of the service to fork (10 lower-case letters and digits), e.g. `dbcloud_service.example.id`, " +
					"or `caller.id` in an action trigger.",
				Validators: []validator.String{
					stringvalidator.RegexMatches(serviceIDPattern, "must be a service id: 10 lower-case letters and digits"),
				},
			},
			"strategy": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "What the copy holds: `NOW` (default: the service as it is when the action runs), " +
					"`LAST_SNAPSHOT` (the service's latest snapshot: without the writes since) or `PITR` " +
					"(the point in time `target_time`).",
				Validators: []validator.String{stringvalidator.OneOf(serviceForkStrategies...)},
			},
			"target_time": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Point in time to copy, RFC 3339 (e.g. `2026-01-31T12:00:00Z`). Required with " +
					"`strategy = \"PITR\"` and only allowed with it.",
				Validators: []validator.String{rfc3339StringValidator{}},
			},
			"name": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Name of the copy, 1 to 128 characters. Default: the source's name followed by the UTC " +
					"time of the fork, e.g. `orders-20261125T172442Z` (the source's name is shortened to fit 128 characters).",
				Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, serviceNameMaxLength)},
			},
			"cpu_millis": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "CPU of the copy in thousandths of a core; set together with `memory_gbs`. Default: the " +
					"source's size. The API accepts fixed size pairs (e.g. 500/2, 1000/4, 2000/8) and says which when it rejects one.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("memory_gbs")),
				},
			},
			"memory_gbs": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: "Memory of the copy in GB; set together with `cpu_millis`. Default: the source's size.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("cpu_millis")),
				},
			},
			"pause": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Whether to stop the copy once it is `READY` (`POST .../stop`), so that it costs storage " +
					"only; it keeps its data and can be started later. Default `false`.",
			},
			"wait": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Whether to wait for the copy to be `READY` (`PAUSED` with `pause = true`). With `false` the " +
					"action returns once the API accepted the fork (with `pause = true`: once it accepted the stop, which it " +
					"accepts only from a `READY` service). Default `true`; keep it for a copy before a destroy, which " +
					"would otherwise start while the copy is still being made.",
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
				InvokeDescription: "How long the action may take, waits included (a duration such as `45m`). Default `30m`.",
			}),
		},
	}
}

// ValidateConfig: target_time with PITR and only with it (the other checks are the attributes' validators).
func (a *serviceForkAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var strategy, targetTime types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("strategy"), &strategy)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("target_time"), &targetTime)...)
	if resp.Diagnostics.HasError() || strategy.IsUnknown() || targetTime.IsUnknown() {
		return
	}
	s := forkActionStrategy(strategy)
	switch {
	case s == string(api.PITR) && targetTime.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("target_time"), "Missing target_time",
			"target_time is required when strategy is PITR: give the point in time to copy as an RFC 3339 timestamp.")
	case s != string(api.PITR) && !targetTime.IsNull():
		resp.Diagnostics.AddAttributeError(path.Root("target_time"), "target_time needs strategy PITR",
			fmt.Sprintf("target_time is only used with strategy = \"PITR\" (the strategy is %s): remove it or set the strategy to PITR.", s))
	}
}

// forkActionStrategy is the configured strategy, NOW when unset.
func forkActionStrategy(s types.String) string {
	if known(s) {
		return s.ValueString()
	}
	return string(api.NOW)
}

// defaultForkName is the source's name followed by the UTC time, shortened (by characters, at the
// end of the source's name) to the API's limit.
func defaultForkName(source string, now time.Time) string {
	suffix := "-" + now.UTC().Format(forkNameTimeFormat)
	room := serviceNameMaxLength - utf8.RuneCountInString(suffix)
	if utf8.RuneCountInString(source) > room {
		source = string([]rune(source)[:room])
	}
	return source + suffix
}

func (a *serviceForkAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m serviceForkActionModel
	progress := actionProgress(ctx, resp) // the request's context: done after Ctrl-C
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, m.Timeouts.Invoke, defaultActionTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	run := &forkRun{a: a, m: m, diags: &resp.Diagnostics, progress: progress, start: time.Now()}
	// Until the copy is made, the provider refuses to delete the source in this run (finalCopies).
	end := a.pd.copies.start(m.ServiceID.ValueString())
	defer func() { end(firstErrorOf(resp.Diagnostics)) }()
	ctx = reportStatusChanges(ctx, run.progress, &run.last)
	src, ok := run.source(ctx)
	if !ok {
		return
	}
	forkID, name, ok := run.fork(ctx, src)
	if !ok {
		return
	}
	run.settle(ctx, forkID, name)
}

// forkRun is one invocation of the fork action: its configuration, diagnostics, progress messages
// and the last status it reported.
type forkRun struct {
	a        *serviceForkAction
	m        serviceForkActionModel
	diags    *diag.Diagnostics
	progress func(format string, args ...any)
	last     string
	start    time.Time
}

// source reads the service to fork: it must exist and be READY. Nothing is sent otherwise.
func (r *forkRun) source(ctx context.Context) (*api.Service, bool) {
	pd, sourceID := r.a.pd, r.m.ServiceID.ValueString()
	src, err := pd.client.GetService(ctx, sourceID)
	if err != nil {
		if api.IsNotFound(err) {
			r.diags.AddAttributeError(path.Root("service_id"), "Could not fork the service: not found",
				fmt.Sprintf("No service %s exists in project %s, so nothing was forked. Check service_id (a service deleted "+
					"since the plan, or one of another project?).\n\n%s", sourceID, pd.client.ProjectID(), errorDetail(err)))
			return nil, false
		}
		pd.addError(ctx, r.diags, "Could not fork the service: could not read service "+sourceID, err)
		return nil, false
	}
	if msg := forkSourceProblem(src); msg != "" {
		r.diags.AddAttributeError(path.Root("service_id"), "Could not fork the service", msg)
		return nil, false
	}
	return src, true
}

// fork sends the fork: a lost answer is resolved by looking for the name, and the fork sent again only
// when the look proves it was not made.
func (r *forkRun) fork(ctx context.Context, src *api.Service) (forkID, name string, ok bool) {
	pd, m, sourceID := r.a.pd, r.m, r.m.ServiceID.ValueString()
	name = m.Name.ValueString()
	if !known(m.Name) {
		name = defaultForkName(deref(src.Name), time.Now())
	}
	strategy := forkActionStrategy(m.Strategy)
	r.last = serviceStatus(src) // forkWhenReady reads it again: READY, already said
	body, err := forkBody(serviceResourceModel{serviceFields: serviceFields{
		Name: types.StringValue(name), CPUMillis: m.CPUMillis, MemoryGbs: m.MemoryGbs, Environment: types.StringNull(),
	}}, &serviceForkModel{SourceServiceID: m.ServiceID, Strategy: types.StringValue(strategy), TargetTime: m.TargetTime})
	if err != nil {
		r.diags.AddAttributeError(path.Root("target_time"), "Invalid target_time", err.Error())
		return "", "", false
	}
	r.progress("forking service %s (%q, %s) into a new service %q, strategy %s", sourceID, deref(src.Name), serviceStatus(src), name, strategy)
	// The resources' create (create.go): a lost answer is looked for by the name, and the fork sent
	// again only when the look proves it was not made.
	attempt := 0
	fork, _, sent, _, err := createCall[api.Service]{
		call: func(ctx context.Context, _ *lostCreate) (*api.Service, bool, error) {
			if attempt++; attempt > 1 {
				r.progress("no service %q appeared, so the fork was not made: forking again", name)
			}
			return forkWhenReady(ctx, pd, sourceID, body)
		},
	}.do(ctx, pd.client, func(ctx context.Context, lc lostCreate, cause error) (*api.Service, error) {
		r.progress("the answer to the fork was lost: looking for a new service %q instead of forking again", name)
		return findCreatedService(ctx, pd, name, lc.Started, cause)
	})
	if err != nil {
		r.a.forkFailed(ctx, r.diags, sourceID, name, sent, err)
		return "", "", false
	}
	forkID = deref(fork.ServiceID)
	if forkID == "" {
		r.diags.AddError("Could not fork the service", fmt.Sprintf("The API answered the fork of %s without a service_id. "+
			"Look for a service named %q (the dbcloud_services data source) before forking again.", sourceID, name))
		return "", "", false
	}
	r.last = serviceStatus(fork)
	r.progress("fork %s (%q) of service %s: %s", forkID, name, sourceID, serviceStatus(fork))
	if ctx.Err() != nil {
		r.a.failAfterFork(ctx, r.diags, forkID, name, "forking", ctx.Err())
		return "", "", false
	}
	return forkID, name, true
}

// settle waits for the fork to be READY (the API accepts the stop only then), then pauses it when
// asked, and says where to find it.
func (r *forkRun) settle(ctx context.Context, forkID, name string) {
	pd, where := r.a.pd, forkWhereToFind(forkID, name)
	andWait, pause := r.m.Wait.IsNull() || r.m.Wait.ValueBool(), r.m.Pause.ValueBool()
	if !andWait && !pause {
		r.progress("the API accepted the fork; not waiting (wait = false). %s", where)
		return
	}
	if _, err := waitServiceReady(ctx, pd, forkID, true); err != nil {
		r.a.failAfterFork(ctx, r.diags, forkID, name, "waiting for it to be READY", err)
		return
	}
	if pause {
		r.progress("stopping fork %s (pause = true)", forkID)
		if err := serviceStop.request(ctx, pd, forkID); err != nil {
			r.a.failAfterFork(ctx, r.diags, forkID, name, "stopping it", err)
			return
		}
		if andWait {
			if _, err := waitServicePaused(ctx, pd, forkID); err != nil {
				r.a.failAfterFork(ctx, r.diags, forkID, name, "waiting for it to be PAUSED", err)
				return
			}
		}
	}
	final := "READY"
	switch {
	case pause && andWait:
		final = "PAUSED"
	case pause:
		final = "PAUSING (the API accepted the stop; not waiting, wait = false)"
	}
	r.progress("fork %s (%q) is %s after %s. %s", forkID, name, final, time.Since(r.start).Round(100*time.Millisecond), where)
}

// forkSourceProblem says why a service cannot be forked now ("" when it can): the API forks a READY
// service only, and a read replica set's id is not a service.
func forkSourceProblem(svc *api.Service) string {
	id, st := deref(svc.ServiceID), serviceStatus(svc)
	if svc.ForkedFrom != nil && deref(svc.ForkedFrom.IsStandby) {
		return fmt.Sprintf("%s is a read replica set of service %s, not a service: nothing was forked. Fork the service itself.",
			id, deref(svc.ForkedFrom.ServiceID))
	}
	switch {
	case st == string(api.READY):
		return ""
	case svc.Paused():
		return fmt.Sprintf("Service %s is %s: the API forks only a running (READY) service, so nothing was forked. "+
			"Resume it first (the dbcloud_service_resume action, or paused = false), then fork it.", id, st)
	case st == string(api.DELETING) || st == string(api.DELETED):
		return fmt.Sprintf("Service %s is %s: it is being or was deleted, so nothing was forked.", id, st)
	}
	return fmt.Sprintf("Service %s is %s, not READY: the API forks only a READY service, so nothing was forked. "+
		"Wait until it is READY (it is being created or changed), then fork it.", id, st)
}

// forkWhereToFind says where to find the copy afterwards.
func forkWhereToFind(id, name string) string {
	return fmt.Sprintf("Terraform does not manage the copy: find it with data \"dbcloud_services\" { name = %s }, "+
		"import it with terraform import dbcloud_service.<name> %s, or delete it in the console.", strconv.Quote(name), id)
}

// forkFailed reports a fork that made nothing, or whose answer was lost and not resolved.
func (a *serviceForkAction) forkFailed(ctx context.Context, diags *diag.Diagnostics, sourceID, name string, sent bool, err error) {
	const summary = "Could not fork the service"
	var notCreated *wait.NotCreatedError
	switch {
	case !sent && wait.Interrupted(err):
		diags.AddError(summary+": interrupted", fmt.Sprintf("Interrupted before the fork of %s was sent: nothing was forked.\n\n%s", sourceID, err))
	case errors.As(err, &notCreated):
		diags.AddError(summary, fmt.Sprintf("%s\n\nNothing was forked: invoke the action again.", err))
	case sent && api.IsAmbiguous(err):
		// Looking did not settle it (the list failed, or several services of that name appeared).
		diags.AddError(summary+": the outcome is unknown", fmt.Sprintf("%s\n\nA new service %q may exist. Look for it (the "+
			"dbcloud_services data source with name = %q) before forking again.", err, name, name))
	default:
		a.pd.addError(ctx, diags, summary, fmt.Errorf("forking service %s into %q: %w", sourceID, name, err))
	}
}

// failAfterFork reports a failure once the copy exists (actionFailed): it names the copy and where to
// find it.
func (a *serviceForkAction) failAfterFork(ctx context.Context, diags *diag.Diagnostics, forkID, name, step string, err error) {
	where := forkWhereToFind(forkID, name)
	a.pd.actionFailed(ctx, diags, "Could not finish the fork", err,
		fmt.Sprintf("The fork %s (%q) exists; interrupted while %s. The API goes on "+
			"without Terraform (the copy becomes READY; a stop that was accepted goes on). %s", forkID, name, step, where),
		fmt.Sprintf("The fork %s (%q) exists; while %s: %s\n\nRaise timeouts.invoke if "+
			"this routinely takes longer. %s", forkID, name, step, err, where),
		fmt.Errorf("the fork %s (%q) exists; while %s: %w\n\n%s", forkID, name, step, err, where))
}

// firstErrorOf is the first error of diags as one line ("" when there is none).
func firstErrorOf(diags diag.Diagnostics) string {
	for _, d := range diags.Errors() {
		detail, _, _ := strings.Cut(d.Detail(), "\n")
		return strings.TrimSpace(d.Summary() + ": " + detail)
	}
	return ""
}
