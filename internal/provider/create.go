package provider

// The one create skeleton of every resource (and, its first half, of the fork action): the objects
// before the create, the create call, an ambiguous answer (5xx, a broken connection) resolved by
// looking for the new object (wait.FindCreated), and the call sent again only when the look proves it
// was not made (wait.Create); an unresolved look leaves a placeholder (placeholder.go); then the id
// saved in state at once, the wait (and the calls that follow it), the record, and a wait that Ctrl-C
// interrupted (interrupt.go). Each resource gives only its call, its messages (as data) and its
// wait; how to find the object of a lost create is the resource's one lookup (lostCreateFinder,
// placeholder.go), which the placeholder's resolution uses too.

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// createCall is a create: what a lost answer needs to know of the time before it (before; nil: the
// start time is enough) and the call. The call fills in lc itself when it lists only once it may send
// (a replica set, after its service is READY); sent says whether its error is the create call's own (a
// call that waits first may fail before it sends anything, and only a sent call is looked for). How a
// lost answer finds the object is the resource's one lookup (lostCreateFinder, placeholder.go), given
// to do. A lost answer is resolved by wait.Create, for every create and fork alike: found, the object
// is adopted; proven not made, the call is sent again (a fork's call waits for its source to be READY
// again first).
type createCall[T any] struct {
	before func(ctx context.Context) (lostCreate, error)
	call   func(ctx context.Context, lc *lostCreate) (_ *T, sent bool, _ error)
}

// unsentError is a create's error from before its call was sent (a wait that failed): never a lost
// answer to look for.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }

// do sends the create; find looks for the object after a lost answer (through wait.FindCreated).
// adopted says the object was found by a look after a lost answer (not made by a call sent again,
// whose answer is the object's own); sent, that the last error is the create call's own. budget (the
// API client) bounds the sending again when ctx has no deadline.
func (c createCall[T]) do(ctx context.Context, budget wait.Budget, find func(ctx context.Context, lc lostCreate, cause error) (*T, error)) (obj *T, lc lostCreate, sent, adopted bool, err error) {
	lc.Started = time.Now()
	if c.before != nil {
		if lc, err = c.before(ctx); err != nil {
			return nil, lc, false, false, err
		}
		lc.Started = time.Now()
	}
	obj, adopted, err = wait.Create(ctx, budget, func(ctx context.Context) (*T, error) {
		o, s, e := c.call(ctx, &lc)
		if sent = s; e != nil && !s {
			return o, &unsentError{e}
		}
		return o, e
	}, func(ctx context.Context, cause error) (*T, error) { return find(ctx, lc, cause) })
	if unsent := (*unsentError)(nil); errors.As(err, &unsent) {
		err = unsent.err
	}
	return obj, lc, sent, adopted, err
}

// createMessages are a create's messages, as data: the summary of its failure, the detail of an
// answer without the object's id, the warning (and detail) when a look after a lost answer adopted
// the object ("": none), and the warning (and detail) when Ctrl-C interrupted the wait. In the
// warnings and details, {id} is the object's id and {status} its status (as state holds them), and,
// in an interrupted wait's, {summary} is the failed step's summary, {error} the error and {detail}
// the error with the API's hint (errorDetail).
type createMessages struct {
	summary, noID                  string
	adopted, adoptedDetail         string
	interrupted, interruptedDetail string
}

// fill is text with its {names} replaced: {id} and {status} from state, the others from more (pairs).
func (createMessages) fill(ctx context.Context, text string, state tfsdk.State, more ...string) string {
	for _, name := range []string{"id", "status"} {
		if strings.Contains(text, "{"+name+"}") {
			v, _ := stateString(ctx, state, name)
			more = append(more, "{"+name+"}", v.ValueString())
		}
	}
	return strings.NewReplacer(more...).Replace(text)
}

// createSteps is what a resource gives createResource: its create call, its messages, the model from
// the created record (record), and optionally what follows: the wait and the calls after it (wait
// records into the model as it goes and returns the summary of the step that failed, "" for
// messages.summary), and kept, which updates the model after a failed wait (interrupted or not)
// before it is saved. The id of a record, and how a lost answer finds the object, are the resource's
// (lostCreateFinder).
type createSteps[T, M any] struct {
	create   createCall[T]
	messages createMessages
	record   func(m *M, obj *T, adopted bool)
	wait     func(ctx context.Context, m *M, diags *diag.Diagnostics) (summary string, err error)
	kept     func(ctx context.Context, m *M, resp *resource.CreateResponse, interrupted bool)
}

// createResource is the one create of the resources (r): the plan, ctx bounded by its create timeout
// (nil: the resource has none, and the client's outage budget bounds it, outage_timeout), then the
// resource's steps (steps builds them from the plan; false:
// the diagnostics say why nothing is created), a lost answer looked for by r's lookup.
func createResource[T, M any](ctx context.Context, r resourceOf[M, T], req resource.CreateRequest, resp *resource.CreateResponse,
	timeout func(M) timeoutOf, def time.Duration, steps func(ctx context.Context, plan *M, diags *diag.Diagnostics) (createSteps[T, M], bool)) {
	var plan M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pd := r.base().pd
	var cancel context.CancelFunc
	if timeout != nil {
		var ok bool
		if ctx, cancel, ok = withTimeout(ctx, timeout(plan), def, &resp.Diagnostics); !ok {
			return
		}
	} else {
		ctx, cancel = pd.withOutageBudget(ctx)
	}
	defer cancel()
	s, ok := steps(ctx, &plan, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	msg := s.messages
	obj, lc, _, adopted, err := s.create.do(ctx, pd.client, func(ctx context.Context, lc lostCreate, cause error) (*T, error) {
		return r.findCreated(ctx, &plan, lc, cause)
	})
	if savePlaceholder(ctx, pd, resp, &plan, lc, msg.summary, err) {
		return
	}
	if err != nil {
		pd.addError(ctx, &resp.Diagnostics, msg.summary, err)
		return
	}
	if r.createdID(obj) == "" {
		resp.Diagnostics.AddError(msg.summary, msg.noID)
		return
	}
	// Save the id at once: from here on, any failure leaves the object in state (tainted, or kept
	// when interrupted), never orphaned.
	state := plan
	s.record(&state, obj, adopted)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	if adopted && msg.adopted != "" {
		resp.Diagnostics.AddWarning(msg.adopted, msg.fill(ctx, msg.adoptedDetail, resp.State))
	}
	if resp.Diagnostics.HasError() || s.wait == nil {
		return
	}
	summary, err := s.wait(ctx, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	if err == nil && !resp.Diagnostics.HasError() {
		return
	}
	if summary == "" {
		summary = msg.summary
	}
	interrupted := false
	if err != nil {
		detail := msg.fill(ctx, msg.interruptedDetail, resp.State, "{summary}", summary, "{error}", err.Error(), "{detail}", errorDetail(err))
		interrupted = interruptedWait(&resp.Diagnostics, err, diag.SeverityWarning, msg.interrupted, detail)
	}
	if err != nil && !interrupted {
		pd.addError(ctx, &resp.Diagnostics, summary, err)
	}
	if s.kept != nil {
		s.kept(ctx, &state, resp, interrupted)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// ---- Read and Delete, for the resources whose record maps straight into their model ----

// readResource is a resource's Read: the record (get, through the read cache), the object removed from
// state when the API no longer has it (a 404, or gone(record)), any other error reported; else the
// model with the record (apply), saved when apply says so (false: nothing changed, or apply refused
// the record with an error: the prior state stays).
func readResource[M, T any](ctx context.Context, pd *providerData, req resource.ReadRequest, resp *resource.ReadResponse, what string,
	get func(m M) (*T, error), gone func(*T) bool, apply func(m *M, rec *T, resp *resource.ReadResponse) (save bool)) {
	var m M
	resp.Diagnostics.Append(getState(ctx, req.State, &m)...) // State.Get, without its walk of the model's tags (values.go)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, err := get(m)
	if api.IsNotFound(err) || (err == nil && gone != nil && gone(rec)) {
		tflog.Warn(ctx, "dbcloud: "+what+" no longer exists (or is being deleted): removing it from state")
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		pd.addError(ctx, &resp.Diagnostics, "Could not read "+what, err)
		return
	}
	if apply(&m, rec, resp) {
		resp.Diagnostics.Append(setState(ctx, &resp.State, &m)...) // State.Set, without its walk of the model's tags
	}
}

// withRecord is an apply of readResource that maps the record into the model and saves it.
func withRecord[M, T any](apply func(m *M, rec *T)) func(*M, *T, *resource.ReadResponse) bool {
	return func(m *M, rec *T, _ *resource.ReadResponse) bool {
		apply(m, rec)
		return true
	}
}

// timeoutOf is a model's `timeouts` value of one operation (e.g. m.Timeouts.Delete).
type timeoutOf = func(context.Context, time.Duration) (time.Duration, diag.Diagnostics)

// deleteResource is a resource's Delete: the model from state, ctx bounded by its delete timeout (or
// def), and the deletion (del: wait.Delete, or the resource's own wait), whose error is reported.
func deleteResource[M any](ctx context.Context, pd *providerData, req resource.DeleteRequest, resp *resource.DeleteResponse, summary string,
	timeout func(M) timeoutOf, def time.Duration, del func(ctx context.Context, m M, diags *diag.Diagnostics) error) {
	var m M
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, timeout(m), def, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	if err := del(ctx, m, &resp.Diagnostics); err != nil {
		pd.addError(ctx, &resp.Diagnostics, summary, err)
	}
}
