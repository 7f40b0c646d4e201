package provider

// List resources (Terraform >= 1.14: `list` blocks in .tfquery.hcl files, `terraform query`): one per
// resource type, each beside its resource (<thing>_list.go); this file holds what they share. Each
// reads the shared lists of the read cache (refresh_cache.go), maps a listed record into its
// resource's model with the resource's own mapping (readRecord, replicaSetData, flattenVPC,
// flattenPeering; no mapping of its own), and derives the identity from that model, as Read does.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// listOf is a list resource: its configuration C and schema, the records T it lists (with the summary
// of a failed list), and each record as its resource's model (ok false skips it) with a display name.
type listOf[C, T any] struct {
	resourceBase
	schema  listschema.Schema
	records func(ctx context.Context, pd *providerData, cfg C) (_ []T, failed string, _ error)
	model   func(pd *providerData, cfg C, timeouts timeouts.Value, rec *T) (_ any, display string, ok bool)
}

// newList is a list resource of typeName, behind the wrapper (manageList).
func newList[C, T any](typeName string, l listOf[C, T]) list.ListResource {
	l.typeName = typeName
	return manageList(&l)
}

func (l *listOf[C, T]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = l.schema
}

func (l *listOf[C, T]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg C
	if !listConfig(ctx, req, &cfg, stream) {
		return
	}
	records, failed, err := l.records(ctx, l.pd, cfg)
	if err != nil {
		stream.Results = l.pd.listError(ctx, failed, err)
		return
	}
	timeouts := nullTimeouts(ctx, req)
	stream.Results = listResults(ctx, req, records, func(rec *T) (any, string, bool) { return l.model(l.pd, cfg, timeouts, rec) })
}

// listConfig decodes a list request's configuration into cfg (a pointer to the list model). When
// the configuration does not decode, it sends the diagnostics as the stream's results and returns
// false. (The configured guard is the wrapper's, manageList in base.go.)
func listConfig(ctx context.Context, req list.ListRequest, cfg any, stream *list.ListResultsStream) bool {
	diags := req.Config.Get(ctx, cfg)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return false
	}
	return true
}

// listResults streams one result per record: model maps a record to its resource model (ok false
// skips the record) and display names it. The identity comes from the model; the model itself is
// sent only when the query asks for it (include_resource = true). Limit is honoured.
func listResults[T any](ctx context.Context, req list.ListRequest, records []T, model func(*T) (any, string, bool)) func(func(list.ListResult) bool) {
	return func(push func(list.ListResult) bool) {
		var n int64
		for i := range records {
			m, display, ok := model(&records[i])
			if !ok {
				continue
			}
			if req.Limit > 0 && n >= req.Limit {
				return
			}
			n++
			if !push(newListResult(ctx, req, display, m)) {
				return
			}
		}
	}
}

// newListResult builds one result from a resource model.
func newListResult(ctx context.Context, req list.ListRequest, display string, model any) list.ListResult {
	res := req.NewListResult(ctx)
	res.DisplayName = display
	res.Diagnostics.Append(res.Resource.Set(ctx, model)...)
	if res.Diagnostics.HasError() {
		return res
	}
	ident, diags := identityValues(ctx, res.Identity, func(name string, v *types.String) diag.Diagnostics {
		return res.Resource.GetAttribute(ctx, path.Root(name), v)
	})
	res.Diagnostics.Append(diags...)
	if res.Diagnostics.HasError() {
		return res
	}
	res.Diagnostics.Append(res.Identity.Set(ctx, ident)...)
	if !req.IncludeResource {
		res.Resource = nil
	}
	return res
}

// listError is a stream of one error result.
func (pd *providerData) listError(ctx context.Context, summary string, err error) func(func(list.ListResult) bool) {
	var diags diag.Diagnostics
	pd.addError(ctx, &diags, summary, err)
	return list.ListResultsStreamDiagnostics(diags)
}

// nullTimeouts is a null `timeouts` block of the listed resource's schema (listed objects have none).
func nullTimeouts(ctx context.Context, req list.ListRequest) timeouts.Value {
	attrTypes := map[string]attr.Type{}
	if t, diags := req.ResourceSchema.TypeAtPath(ctx, path.Root("timeouts")); !diags.HasError() {
		if ot, ok := t.(attr.TypeWithAttributeTypes); ok {
			attrTypes = ot.AttributeTypes()
		}
	}
	return timeouts.Value{Object: types.ObjectNull(attrTypes)}
}

// listFilterMatches reports whether an optional string filter accepts v (an unset filter accepts all).
func listFilterMatches(filter types.String, v string) bool {
	return filter.IsNull() || filter.IsUnknown() || filter.ValueString() == v
}
