package provider

// A create whose answer was lost, and whose look (wait.FindCreated) could not finish because listing
// kept failing, leaves a placeholder in state: the planned values with an empty id, and private state
// saying what existed before the create. Create reports it as an error, so Terraform keeps it tainted;
// the next refresh (the wrapper's Read, base.go) looks for what the lost create made (findPlaceholder):
// found, the state gets its id (and identity), and the apply replaces the tainted object; not found, the
// placeholder leaves state and the apply creates the object. A Delete of a placeholder (a destroy, or
// -refresh=false) looks the same way and deletes what it finds. Nothing is orphaned or created twice.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// privateLostCreate is the private-state key of a placeholder.
const privateLostCreate = "lost_create"

// lostCreate is what a placeholder remembers of its create: the ids of the objects of its kind
// before it, and when it started.
type lostCreate struct {
	Before  []string  `json:"before,omitempty"`
	Started time.Time `json:"started"`
}

func (lc lostCreate) before() map[string]bool {
	m := make(map[string]bool, len(lc.Before))
	for _, id := range lc.Before {
		m[id] = true
	}
	return m
}

// placeholderFinder is implemented by a resource whose Create can leave a placeholder: it looks for
// the object the lost create made, and answers its id, or "" when there is none.
type placeholderFinder interface {
	findPlaceholder(ctx context.Context, state tfsdk.State, lc lostCreate) (string, error)
}

// savePlaceholder records an unresolved create (a *wait.UnresolvedError in err) as a placeholder:
// model (with an empty id and no unknown values) in state, lc in private state, and the error. It
// reports whether err was such an error; any other error is left to the caller.
func savePlaceholder[M any](ctx context.Context, pd *providerData, resp *resource.CreateResponse, model *M, lc lostCreate, summary string, err error) bool {
	var unresolved *wait.UnresolvedError
	if !errors.As(err, &unresolved) {
		return false
	}
	nullUnknowns(model)
	resp.Diagnostics.Append(resp.State.Set(ctx, model)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), "")...)
	b, jerr := json.Marshal(lc)
	if jerr == nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateLostCreate, b)...)
	}
	pd.addError(ctx, &resp.Diagnostics, summary, fmt.Errorf("%w\n\nTerraform keeps a placeholder of it in state (tainted, without an id). "+
		"The next apply looks for it first: it deletes it if the create made it, and creates it once", err))
	return true
}

// isPlaceholder reports whether a state is a placeholder: its id is empty.
func isPlaceholder(ctx context.Context, state tfsdk.State) bool {
	if state.Raw.IsNull() {
		return false
	}
	var id types.String
	if d := state.GetAttribute(ctx, path.Root("id"), &id); d.HasError() {
		return false
	}
	return !id.IsUnknown() && !id.IsNull() && id.ValueString() == ""
}

// resolvePlaceholder finds what a placeholder's create made, for Read and Delete: the state with its
// id filled in, or found false when nothing was created (diags say when the look failed).
func resolvePlaceholder(ctx context.Context, impl resourceImpl, state tfsdk.State,
	private func(context.Context, string) ([]byte, diag.Diagnostics)) (_ tfsdk.State, found bool, diags diag.Diagnostics) {
	finder, ok := impl.(placeholderFinder)
	if !ok {
		return state, false, diags
	}
	var lc lostCreate
	if b, d := private(ctx, privateLostCreate); !d.HasError() && len(b) > 0 {
		_ = json.Unmarshal(b, &lc)
	}
	id, err := finder.findPlaceholder(ctx, state, lc)
	var notCreated *wait.NotCreatedError
	switch {
	case errors.As(err, &notCreated):
		return state, false, diags
	case err != nil:
		impl.base().pd.addError(ctx, &diags, "Could not find what an earlier create made", err)
		return state, false, diags
	case id == "":
		return state, false, diags
	}
	diags.Append(state.SetAttribute(ctx, path.Root("id"), id)...)
	return state, true, diags
}

// lookForPlaceholder reads a placeholder's model and looks (find) for what its create made: the
// shared part of every findPlaceholder.
func lookForPlaceholder[M, T any](ctx context.Context, state tfsdk.State, find func(*M) (*T, error), id func(*T) string) (string, error) {
	var m M
	if d := state.Get(ctx, &m); d.HasError() {
		return "", fmt.Errorf("reading the placeholder: %v", d)
	}
	found, err := find(&m)
	if err != nil {
		return "", err
	}
	return id(found), nil
}

// errPlaceholder is the cause named when a placeholder is resolved.
var errPlaceholder = errors.New("an earlier apply's create lost its answer and left a placeholder")
