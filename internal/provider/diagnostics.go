package provider

// Diagnostics: every error a resource, data source or list resource reports goes through
// providerData.addError (or readFailed), which names the operation, the HTTP status, the API's code,
// message and details, explains a 403 with the projects the credentials may use, and says what to do.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// errorDetail is the text of a diagnostic for err: the operation, HTTP status, the API's code, message and
// details (all in err's text), then what to do.
func errorDetail(err error) string {
	var unreachable *api.UnreachableError
	if errors.As(err, &unreachable) {
		return err.Error() + "\n\n" + unreachable.Hint()
	}
	var outage *api.OutageError
	if errors.As(err, &outage) {
		return err.Error() + "\n\n" + outage.Hint()
	}
	var apiErr *api.APIError
	if errors.As(err, &apiErr) {
		if hint := apiErr.Hint(); hint != "" {
			return err.Error() + "\n\n" + hint
		}
		return err.Error()
	}
	var wErr *wait.TimeoutError
	if errors.As(err, &wErr) && wait.Interrupted(wErr.Cause) {
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
func (pd *providerData) readFailed(ctx context.Context, diags *diag.Diagnostics, err error, attr path.Path, notFound, summary, notFoundDetail string) bool {
	switch {
	case err == nil:
		return false
	case api.IsNotFound(err):
		diags.AddAttributeError(attr, notFound, notFoundDetail)
	default:
		pd.addError(ctx, diags, summary, err)
	}
	return true
}

// addError adds err as an error diagnostic with a summary such as "Could not create service", a 403
// explained: the provider's project_id is checked lazily, only when an API call answers 403 (never on
// every plan), by listing the projects the credentials may use once. pd may be nil.
func (pd *providerData) addError(ctx context.Context, diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, errorDetail(pd.explainForbidden(ctx, err)))
}

// updateFailed reports a failed update of object (e.g. "Service rp1pz7uyae"): a 404 (or a service
// found DELETING or DELETED) says the object was deleted outside Terraform after the plan was made,
// and that a new plan creates it; any other error is addError's.
func (pd *providerData) updateFailed(ctx context.Context, diags *diag.Diagnostics, summary, object string, err error) {
	if api.IsNotFound(err) || errors.Is(err, errDeletedOutside) {
		diags.AddError(summary, fmt.Sprintf("%s no longer exists: it was deleted outside Terraform after this plan was made, so the "+
			"saved plan cannot be applied. Run terraform plan again: the refresh sees it gone, and the new plan creates it.\n\n%s", object, err.Error()))
		return
	}
	pd.addError(ctx, diags, summary, err)
}

// explainForbidden turns a 403 into "project_id X is not one the credentials may use (projects you may
// use: a, b)", calling ListProjects once; any other error is returned as it is.
func (pd *providerData) explainForbidden(ctx context.Context, err error) error {
	var already *projectForbiddenError
	if pd == nil || pd.client == nil || api.StatusCode(err) != http.StatusForbidden || errors.As(err, &already) {
		return err
	}
	lctx, cancel := wait.Detached(ctx, min(30*time.Second, pd.client.OutageBudget()))
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

// errDeletedOutside is the cause named when a wait finds the service being deleted or deleted: like
// a 404, it ends an update (updateFailed says so).
var errDeletedOutside = errors.New("deleted outside Terraform")

// serviceStatusSettled reports whether a status in state needs no wait: READY, PAUSED, or none known
// (and DELETING/DELETED, which no wait can fix).
func serviceStatusSettled(st string) bool {
	switch st {
	case "", string(api.READY), string(api.PAUSED), string(api.DELETING), string(api.DELETED):
		return true
	}
	return false
}
