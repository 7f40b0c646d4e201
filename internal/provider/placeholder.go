package provider

// A create whose answer was lost, and whose look (wait.FindCreated) could not finish because listing
// kept failing, leaves a placeholder in state: the planned values with an empty id, and private state
// saying what existed before the create. Create reports it as an error, so Terraform keeps it tainted;
// the next refresh (the wrapper's Read, base.go) looks for what the lost create made (the resource's one lookup,
// lostCreateFinder, the same its create uses):
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

// lostCreateFinder is the one lookup of a lost create, part of what every resource implements
// (resourceOf: manageResource takes no resource without it). findCreated looks, from a model (the
// plan of the create, or a placeholder's state) and what was known before the create (lc), for the
// object the create made; createdID is the id of a record. The create skeleton (create.go) uses it
// after a lost answer, and placeholder resolution on the next refresh or destroy (placeholderLookup).
type lostCreateFinder[M, T any] interface {
	findCreated(ctx context.Context, m *M, lc lostCreate, cause error) (*T, error)
	createdID(obj *T) string
}

// placeholderLookup is a resource's lookup for a placeholder: its model read from the placeholder's
// state, and the id of what the create made ("" when there is none).
func placeholderLookup[M, T any](f lostCreateFinder[M, T]) func(ctx context.Context, state tfsdk.State, lc lostCreate) (string, error) {
	return func(ctx context.Context, state tfsdk.State, lc lostCreate) (string, error) {
		var m M
		if d := state.Get(ctx, &m); d.HasError() {
			return "", fmt.Errorf("reading the placeholder: %v", d)
		}
		found, err := f.findCreated(ctx, &m, lc, errPlaceholder)
		if err != nil {
			return "", err
		}
		return f.createdID(found), nil
	}
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
	id, d := stateString(ctx, state, "id")
	if d.HasError() {
		return false
	}
	return !id.IsUnknown() && !id.IsNull() && id.ValueString() == ""
}

// stateString is a string attribute of a state (a placeholder's id, a create message's {id} and
// {status}), read without a walk of the schema (attrs, values.go): isPlaceholder reads it in every
// Read.
func stateString(ctx context.Context, state tfsdk.State, name string) (types.String, diag.Diagnostics) {
	return attrsOf(state.Raw).string(ctx, name)
}

// resolvePlaceholder finds (find: the resource's placeholderLookup) what a placeholder's create made,
// for Read and Delete: the state with its id filled in, or found false when nothing was created
// (diags say when the look failed).
func resolvePlaceholder(ctx context.Context, pd *providerData, find func(context.Context, tfsdk.State, lostCreate) (string, error), state tfsdk.State,
	private func(context.Context, string) ([]byte, diag.Diagnostics)) (_ tfsdk.State, found bool, diags diag.Diagnostics) {
	var lc lostCreate
	if b, d := private(ctx, privateLostCreate); !d.HasError() && len(b) > 0 {
		_ = json.Unmarshal(b, &lc)
	}
	id, err := find(ctx, state, lc)
	var notCreated *wait.NotCreatedError
	switch {
	case errors.As(err, &notCreated):
		return state, false, diags
	case err != nil:
		pd.addError(ctx, &diags, "Could not find what an earlier create made", err)
		return state, false, diags
	case id == "":
		return state, false, diags
	}
	diags.Append(state.SetAttribute(ctx, path.Root("id"), id)...)
	return state, true, diags
}

// errPlaceholder is the cause named when a placeholder is resolved.
var errPlaceholder = errors.New("an earlier apply's create lost its answer and left a placeholder")
