package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// maxTransientPollErrors is how many transient errors in a row a waiter tolerates.
const maxTransientPollErrors = 5

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

// addError adds err as an error diagnostic with a summary such as "Could not create service".
func addError(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, errorDetail(err))
}

// waitFor polls with the provider's backoff and the ctx deadline (set from the `timeouts` block).
func waitFor[T any](ctx context.Context, pd *providerData, what string, poll func(ctx context.Context) (PollResult[T], error)) (T, error) {
	w := Waiter[T]{What: what, Backoff: pd.backoff, MaxTransient: maxTransientPollErrors, Poll: poll}
	return w.Wait(api.WithPoll(ctx)) // under a rate limit, status polls wait behind creates and changes
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

func stringValue(p *string) types.String {
	if p == nil {
		return types.StringNull()
	}
	return types.StringValue(*p)
}

func int64Value(p *int) types.Int64 {
	if p == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*p))
}

func int64FromFloat(p *float64) types.Int64 {
	if p == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(math.Round(*p)))
}

func boolValue(p *bool) types.Bool {
	if p == nil {
		return types.BoolNull()
	}
	return types.BoolValue(*p)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
