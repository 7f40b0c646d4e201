package provider

// The one rule for what an apply writes (Terraform's contract, checked by Terraform after every
// apply): every attribute whose planned value is known is written exactly as planned, and the API's
// answer fills only what the plan left unknown. A difference the API shows (someone renamed the
// service between the plan and the apply) is drift for the next refresh to report and the next plan
// to put back, not a new value the apply may write. The wrapper (base.go) applies it after every
// Create and Update that succeeded, so no resource has to: whatever a resource's code sets in state,
// its planned values win.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// keepPlannedState overwrites state with every known value of plan (see the top of this file). It
// does nothing to a removed (null) state or after an error: a failed apply records what exists, for
// the next plan to finish the work.
func keepPlannedState(_ context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	if diags.HasError() || state.Raw.IsNull() || plan.Raw.IsNull() {
		return
	}
	merged, err := plannedOver(plan.Raw, state.Raw)
	if err != nil {
		diags.AddError("Could not keep the planned values", fmt.Sprintf("%s: this is a bug in the provider.", err))
		return
	}
	state.Raw = merged
}

// plannedOver is got (the value the resource's code wrote) with every known part of planned: a wholly
// known planned value wins; an unknown one keeps got; a partly known object, list, tuple or map is
// merged element by element (a set's elements have no identity but their value, so a partly known
// set keeps got, as does a got that is null or unknown, or a list of another length).
func plannedOver(planned, got tftypes.Value) (tftypes.Value, error) {
	switch {
	case !planned.IsKnown():
		return got, nil
	case planned.IsFullyKnown():
		return planned, nil
	case got.IsNull() || !got.IsKnown():
		return got, nil
	}
	typ := got.Type()
	switch {
	case typ.Is(tftypes.Object{}), typ.Is(tftypes.Map{}):
		var p, g map[string]tftypes.Value
		if err := planned.As(&p); err != nil {
			return got, err
		}
		if err := got.As(&g); err != nil {
			return got, err
		}
		for k, gv := range g {
			pv, ok := p[k]
			if !ok {
				continue
			}
			v, err := plannedOver(pv, gv)
			if err != nil {
				return got, err
			}
			g[k] = v
		}
		return tftypes.NewValue(typ, g), nil
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Tuple{}):
		var p, g []tftypes.Value
		if err := planned.As(&p); err != nil {
			return got, err
		}
		if err := got.As(&g); err != nil {
			return got, err
		}
		if len(p) != len(g) {
			return got, nil
		}
		for i := range g {
			v, err := plannedOver(p[i], g[i])
			if err != nil {
				return got, err
			}
			g[i] = v
		}
		return tftypes.NewValue(typ, g), nil
	}
	return got, nil
}
