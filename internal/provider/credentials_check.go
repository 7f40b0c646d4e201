package provider

// The plan-time check of the credentials and the project: a plan that only creates makes no other
// request, so a wrong base_url, a wrong key, an expired token or a project the credentials may not
// use would first show at apply. The first create a provider run plans asks the API once (GET
// /auth/info, then the project's list of services, which the refresh shares: reads that ride the
// client's retries) whether it accepts the credentials for the project.

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// credentialsCheckTimeout bounds the check (and outage_timeout, when shorter): a plan that would
// have passed without the check is not held up longer than this by an outage.
const credentialsCheckTimeout = 30 * time.Second

// refusedAtPlan checks, the first time a provider run plans a create, that the API can be reached and
// accepts the credentials for the project; when it cannot be reached (first contact, api.UnreachableError),
// answers 401, or answers 403 for the project, it adds the error (the same text as the apply would
// give) and returns true. It is a no-op for any other plan (an update or a destroy: the refresh has
// asked the API already), before the provider is configured (validate) and after the first call of
// the run. The check never passes silently when it could not ask: any other failure (an outage that
// outlasted the check, a 5xx) is a warning that says so, and the plan goes on.
func (pd *providerData) refusedAtPlan(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) bool {
	if pd == nil || pd.client == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return false
	}
	refused := false
	pd.credentials.once.Do(func() {
		cctx, cancel := context.WithTimeout(ctx, min(credentialsCheckTimeout, pd.client.OutageBudget()))
		defer cancel()
		_, err := pd.client.GetAuthInfo(cctx)
		if err == nil {
			_, err = pd.read().ListServices(cctx)
		}
		switch {
		case err == nil:
		case api.IsUnreachable(err):
			refused = true
			diags.AddError("Could not reach the dbcloud API", errorDetail(err))
		case api.StatusCode(err) == http.StatusUnauthorized:
			refused = true
			diags.AddError("The API refused the provider's credentials", errorDetail(err))
		case api.StatusCode(err) == http.StatusForbidden:
			refused = true
			pd.addError(ctx, diags, "The credentials may not use the provider's project", err)
		default:
			diags.AddWarning("Could not check the credentials at plan",
				"The plan asks the API once whether it accepts the provider's credentials and project_id, and could not "+
					"get an answer: "+errorDetail(err)+"\n\nThe plan goes on without that check: the apply reports any problem.")
		}
	})
	return refused
}
