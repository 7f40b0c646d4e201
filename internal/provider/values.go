package provider

// Small helpers on values: the `timeouts` deadline, import IDs, and conversions between the API's
// optional fields and Terraform values.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

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

// known reports whether a value is neither null nor unknown.
func known(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// changedKnown reports whether a planned value is known and differs from the state's.
func changedKnown(plan, state attr.Value) bool { return known(plan) && !plan.Equal(state) }

// setStrings returns the known string elements of a set.
func setStrings(ctx context.Context, s types.Set) ([]string, diag.Diagnostics) {
	var out []string
	if s.IsNull() || s.IsUnknown() {
		return out, nil
	}
	diags := s.ElementsAs(ctx, &out, false)
	sort.Strings(out)
	return out, diags
}
