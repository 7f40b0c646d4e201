package provider

// The plan-time check of the credentials: a plan that only creates makes no other request, so a wrong
// key or an expired token would first show at apply. The first create a provider run plans asks the
// API once (GET /auth/info, a read: it rides the client's retries) whether it accepts the credentials.

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// credentialsCheckTimeout bounds the check: an API that does not answer is the apply's to report, and
// a plan that would have passed without the check is not held up longer than this.
const credentialsCheckTimeout = 30 * time.Second

// refusedAtPlan checks, the first time a provider run plans a create, that the API accepts the
// credentials; when it answers 401 it adds the error (the same text as a refused create's at apply)
// and returns true. It is a no-op for any other plan (an update or a destroy: the refresh has asked
// the API already), before the provider is configured (validate) and after the first call of the run,
// so a run makes at most one request for it. Any other failure of the check (no answer, a 5xx after
// the retries) is left to the apply: it is logged, and the plan goes on as it did without the check.
func (pd *providerData) refusedAtPlan(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) bool {
	if pd == nil || pd.client == nil || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return false
	}
	refused := false
	pd.credentials.once.Do(func() {
		cctx, cancel := context.WithTimeout(ctx, credentialsCheckTimeout)
		defer cancel()
		_, err := pd.client.GetAuthInfo(cctx)
		switch {
		case api.StatusCode(err) == http.StatusUnauthorized:
			refused = true
			diags.AddError("The API refused the provider's credentials", errorDetail(err))
		case err != nil:
			tflog.Debug(ctx, "dbcloud: the plan-time check of the credentials got no answer; the apply reports any failure", map[string]any{"error": err.Error()})
		}
	})
	return refused
}
