package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// maxTransientPollErrors is how many transient errors in a row a waiter tolerates.
const maxTransientPollErrors = 5

// resourceBase gives a resource its Metadata and Configure: embed it and set typeName (the type name
// after the provider's, e.g. "_vpc"). pd is nil until the provider is configured.
type resourceBase struct {
	pd       *providerData
	typeName string
}

func (b *resourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.typeName
}

func (b *resourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// dataSourceBase is resourceBase for data sources.
type dataSourceBase struct {
	pd       *providerData
	typeName string
}

func (b *dataSourceBase) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.typeName
}

func (b *dataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// providerDataFrom extracts the configured provider data in Configure of a resource or data source.
// It returns nil (and no error) while the provider is not configured yet.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerData, got %T: this is a bug in the provider", data))
		return nil
	}
	return pd
}

// notConfigured reports (as an error diagnostic) a resource used before the provider was configured.
func notConfigured(pd *providerData, diags *diag.Diagnostics) bool {
	if pd == nil {
		diags.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
	}
	return pd == nil
}

// withTimeout bounds ctx by the `timeouts` value of an operation (get is e.g. plan.Timeouts.Create),
// or def when it is not set. ok is false when the value is invalid (the diagnostic is added).
func withTimeout(ctx context.Context, get func(context.Context, time.Duration) (time.Duration, diag.Diagnostics), def time.Duration,
	diags *diag.Diagnostics) (_ context.Context, _ context.CancelFunc, ok bool) {
	timeout, d := get(ctx, def)
	diags.Append(d...)
	if d.HasError() {
		return ctx, func() {}, false
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	return ctx, cancel, true
}

// errorDetail is the text of a diagnostic for err: the operation, HTTP status, the API's code, message and
// details (all in err's text), then what to do.
func errorDetail(err error) string {
	var apiErr *api.APIError
	if errors.As(err, &apiErr) {
		if hint := apiErr.Hint(); hint != "" {
			return err.Error() + "\n\n" + hint
		}
		return err.Error()
	}
	var wErr *WaitTimeoutError
	if errors.As(err, &wErr) && errors.Is(wErr.Cause, context.Canceled) {
		return err.Error() + "\n\nThe operation may still complete on the API side; Terraform keeps the object in state, so the next apply continues from there."
	}
	if errors.As(err, &wErr) {
		return err.Error() + "\n\nThe operation may still complete on the API side. Raise the matching `timeouts` value if it " +
			"routinely takes longer. Terraform keeps the object in state: after a create it is marked tainted and the next " +
			"apply replaces it (or `terraform untaint` keeps it once it is ready); after an update the next apply continues from there."
	}
	var tErr *api.TransportError
	if errors.As(err, &tErr) {
		if tErr.NotSent {
			return err.Error() + "\n\nCheck base_url and the network path to the API, then apply again."
		}
		return err.Error() + "\n\nApply again: the provider checks what exists before creating anything."
	}
	return err.Error()
}

// readFailed reports a failed read of the object a data source names: a 404 as an error on attr with
// the summary notFound and the detail text notFoundDetail, any other error under summary. It returns
// whether err was an error.
func readFailed(diags *diag.Diagnostics, err error, attr path.Path, notFound, summary, notFoundDetail string) bool {
	switch {
	case err == nil:
		return false
	case api.IsNotFound(err):
		diags.AddAttributeError(attr, notFound, notFoundDetail)
	default:
		addError(diags, summary, err)
	}
	return true
}

// addError adds err as an error diagnostic with a summary such as "Could not create service".
func addError(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, errorDetail(err))
}

// addError is addError with a 403 explained: the provider's project_id is checked lazily, only when an
// API call answers 403 (never on every plan), by listing the projects the credentials may use once.
func (pd *providerData) addError(ctx context.Context, diags *diag.Diagnostics, summary string, err error) {
	addError(diags, summary, pd.explainForbidden(ctx, err))
}

// explainForbidden turns a 403 into "project_id X is not one the credentials may use (projects you may
// use: a, b)", calling ListProjects once; any other error is returned as it is.
func (pd *providerData) explainForbidden(ctx context.Context, err error) error {
	var already *projectForbiddenError
	if pd == nil || pd.client == nil || api.StatusCode(err) != http.StatusForbidden || errors.As(err, &already) {
		return err
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	projects, lerr := pd.client.ListProjects(lctx)
	ids := make([]string, 0, len(projects))
	for _, p := range projects {
		ids = append(ids, p.ID)
	}
	return &projectForbiddenError{cause: err, project: pd.client.ProjectID(), allowed: ids, listErr: lerr}
}

// projectForbiddenError is a 403 with the projects the credentials may use.
type projectForbiddenError struct {
	cause   error
	project string
	allowed []string
	listErr error
}

func (e *projectForbiddenError) Error() string {
	var may string
	switch {
	case e.listErr != nil:
		may = "the list of projects they may use could not be read: " + e.listErr.Error()
	case len(e.allowed) == 0:
		may = "they may use no project"
	default:
		may = "projects you may use: " + strings.Join(e.allowed, ", ")
	}
	return fmt.Sprintf("project_id %s is not one the credentials may use (%s). Set project_id (or DBCLOUD_PROJECT_ID) "+
		"to one of them, or use credentials of that project.\n\n%s", e.project, may, e.cause.Error())
}

func (e *projectForbiddenError) Unwrap() error { return e.cause }

// waitFor polls with the provider's backoff and the ctx deadline (set from the `timeouts` block).
func waitFor[T any](ctx context.Context, pd *providerData, what string, poll func(ctx context.Context) (PollResult[T], error)) (T, error) {
	w := Waiter[T]{What: what, Backoff: pd.backoff, MaxTransient: maxTransientPollErrors, Poll: poll}
	return w.Wait(api.WithPoll(ctx)) // under a rate limit, status polls wait behind creates and changes
}

// ---- busy: 409 "try again later" ----

// busyCall is one state-changing call that the API may answer 409 "busy, try again" (a 409 provably
// changed nothing). Every such call sets a target value, so a lost answer (5xx, no answer) is resolved
// by looking (Applied) before the call is sent again.
type busyCall struct {
	// What is waited for, in words: "the API to accept the resize of ...".
	What string
	Call func(context.Context) error
	// Before, when set, runs before each attempt: it waits until the object can take the call and
	// fails when it never will (a service must be READY). Its error ends the retry as it is.
	Before func(context.Context) error
	// Stuck, when set, says after a 409 whether the conflict can still clear: an error ends the retry.
	Stuck func(context.Context) error
	// Applied, when set, says after a lost answer whether the call took effect after all.
	Applied func(context.Context) bool
	// MaxRetries bounds the attempts after the first (409s and lost answers); zero means until the
	// timeout.
	MaxRetries int
}

// retryWhileBusy makes a busy call: it sends the call until it succeeds, waiting with the provider's
// backoff while the API answers 409, and looking (Applied) after a lost answer. It is the one way the
// provider waits out a busy object.
func retryWhileBusy(ctx context.Context, pd *providerData, c busyCall) error {
	lost, attempt := false, 0
	_, err := waitFor(ctx, pd, c.What, func(ctx context.Context) (PollResult[struct{}], error) {
		if c.Before != nil {
			if err := c.Before(ctx); err != nil {
				return PollResult[struct{}]{}, stopWaiting(err)
			}
		}
		if lost && c.Applied != nil && c.Applied(ctx) {
			tflog.Info(ctx, "dbcloud: the answer to a change was lost, but the object shows it applied", map[string]any{"what": c.What})
			return PollResult[struct{}]{Done: true}, nil
		}
		err := c.Call(ctx)
		lost = api.IsAmbiguous(err)
		if err == nil {
			return PollResult[struct{}]{Done: true}, nil
		}
		if attempt++; c.MaxRetries > 0 && attempt > c.MaxRetries {
			return PollResult[struct{}]{}, stopWaiting(err)
		}
		tflog.Debug(ctx, "dbcloud: state-changing call answered 409 or lost; trying again",
			map[string]any{"what": c.What, "attempt": attempt, "error": err.Error()})
		switch {
		case api.IsConflict(err):
			if c.Stuck != nil {
				if serr := c.Stuck(ctx); serr != nil {
					return PollResult[struct{}]{}, stopWaiting(fmt.Errorf("%w\n\nThe API answered: %w", serr, err))
				}
			}
			return PollResult[struct{}]{Status: conflictPollStatus(err)}, nil
		case IsTransient(err):
			return PollResult[struct{}]{}, err
		}
		return PollResult[struct{}]{}, stopWaiting(err)
	})
	return err
}

// conflictPollStatus is the waiter status shown for a 409 answer.
func conflictPollStatus(err error) string {
	var apiErr *api.APIError
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return "busy (HTTP 409: " + apiErr.Message + ")"
	}
	return "busy (HTTP 409)"
}

// deleteAndWait deletes an object and waits until it is gone. get reads the object (a 404 means gone)
// and says whether it is already being deleted; del asks for the deletion, and is asked again only
// while the object is neither gone nor being deleted (DELETE is idempotent). A 404 on DELETE is
// success, a 409 (busy) is waited out, transient errors are polled through, others end the wait.
func deleteAndWait(ctx context.Context, pd *providerData, what string,
	get func(context.Context) (status string, deleting bool, err error), del func(context.Context) error) error {
	_, err := waitFor(ctx, pd, what, func(ctx context.Context) (PollResult[struct{}], error) {
		status, deleting, err := get(ctx)
		switch {
		case api.IsNotFound(err):
			return PollResult[struct{}]{Done: true}, nil
		case err != nil:
			return PollResult[struct{}]{}, err
		case deleting:
			return PollResult[struct{}]{Status: status}, nil
		}
		err = del(ctx)
		switch {
		case err == nil:
			return PollResult[struct{}]{Status: "delete requested"}, nil
		case api.IsNotFound(err):
			return PollResult[struct{}]{Done: true}, nil
		case api.IsConflict(err):
			return PollResult[struct{}]{Status: conflictPollStatus(err)}, nil
		case IsTransient(err):
			return PollResult[struct{}]{}, err
		}
		return PollResult[struct{}]{}, stopWaiting(err)
	})
	return err
}

// ---- lost create answers: find what the create made ----

// findMatching lists objects and returns those that match: the lookup behind every "the create's
// answer was lost, did it create something?" (never answered by sending the create again).
func findMatching[T any](ctx context.Context, list func(context.Context) ([]T, error), match func(*T) bool) ([]T, error) {
	all, err := list(ctx)
	if err != nil {
		return nil, err
	}
	var found []T
	for i := range all {
		if match(&all[i]) {
			found = append(found, all[i])
		}
	}
	return found, nil
}

// findOne returns the one listed object that matches, or nil when none or several do or the list
// fails: then the caller cannot tell which object is its own.
func findOne[T any](ctx context.Context, list func(context.Context) ([]T, error), match func(*T) bool) *T {
	found, err := findMatching(ctx, list, match)
	if err != nil || len(found) != 1 {
		return nil
	}
	return &found[0]
}

// idSet is the set of ids of objects (those that existed before a create).
func idSet[T any](objs []T, id func(*T) *string) map[string]bool {
	ids := make(map[string]bool, len(objs))
	for i := range objs {
		ids[deref(id(&objs[i]))] = true
	}
	return ids
}

// splitImportID splits an import ID of the form a/b into its parts, naming the expected form on error.
func splitImportID(id string, names ...string) ([]string, error) {
	parts := strings.Split(id, "/")
	ok := len(parts) == len(names)
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			ok = false
		}
	}
	if !ok {
		form := "<" + strings.Join(names, ">/<") + ">"
		return nil, fmt.Errorf("expected an import ID of the form %s, got %q", form, id)
	}
	return parts, nil
}

// ---- conversions from the API's optional fields ----

func int64Value(p *int) types.Int64 {
	if p == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*p))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
