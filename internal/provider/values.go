package provider

// Small helpers on values: the `timeouts` deadline, import IDs, and conversions between the API's
// optional fields and Terraform values.

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// importIDParts imports by an ID of the form <a>/<b>: it sets the state attributes attrs (the last is
// "id") from its parts, or says which form is expected with an example.
func importIDParts(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, typeName, example string, names, attrs []string) {
	parts, err := splitImportID(req.ID, names...)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID for "+typeName,
			err.Error()+". Example: terraform import "+typeName+".example "+example)
		return
	}
	for i, a := range attrs {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(a), parts[i])...)
	}
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

// ---- top-level attributes, read without a walk of the schema ----

// attrs is the top-level attributes of a state, plan or configuration (its Raw), decoded once. The
// framework's GetAttribute walks the schema for each attribute it reads, and every step of that walk
// copies the schema's attribute map: with dbcloud_service's 35 top-level attributes, the few that the
// provider reads in every plan of every service cost more than all of its own work there. A
// top-level attribute is a lookup in attrs, converted by its type as GetAttribute converts it.
type attrs map[string]tftypes.Value

// attrsOf decodes raw's top-level attributes (nil for a null or unknown value: every attribute of it
// then reads as null, as GetAttribute reads them).
func attrsOf(raw tftypes.Value) attrs {
	var m map[string]tftypes.Value
	if raw.IsKnown() && !raw.IsNull() && raw.Type().Is(tftypes.Object{}) {
		_ = raw.As(&m)
	}
	return m
}

// null reports whether the attribute name is null (or absent).
func (a attrs) null(name string) bool {
	v, ok := a[name]
	return !ok || v.IsNull()
}

// attrValue is the attribute name of a as a T of type typ (types.String and types.StringType, ...).
func attrValue[T attr.Value](ctx context.Context, a attrs, name string, typ attr.Type) (T, diag.Diagnostics) {
	var zero T
	v, ok := a[name]
	if a == nil {
		v, ok = tftypes.NewValue(typ.TerraformType(ctx), nil), true
	}
	if !ok {
		return zero, diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root(name), "Value Conversion Error",
			"The value has no attribute "+name+". This is always an error in the provider.")}
	}
	val, diags := valueOf(ctx, typ, v, path.Root(name))
	t, ok := val.(T)
	if !ok && !diags.HasError() {
		diags.AddAttributeError(path.Root(name), "Value Conversion Error",
			fmt.Sprintf("The attribute %s is a %T, not a %T. This is always an error in the provider.", name, val, zero))
	}
	return t, diags
}

// valueOf converts v by typ as the framework reads an attribute: ValueFromTerraform, then the
// value's own validation (or its type's).
func valueOf(ctx context.Context, typ attr.Type, v tftypes.Value, p path.Path) (attr.Value, diag.Diagnostics) {
	val, err := typ.ValueFromTerraform(ctx, v)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddAttributeError(p, "Value Conversion Error", "The attribute cannot be read: "+err.Error()+". This is always an error in the provider.")
		return nil, diags
	}
	return val, validated(ctx, typ, val, v, p)
}

// validated is the framework's check of a value it reads or writes: the value's own validation, or
// its type's (raw is the value's Terraform form).
func validated(ctx context.Context, typ attr.Type, val attr.Value, raw tftypes.Value, p path.Path) diag.Diagnostics {
	var diags diag.Diagnostics
	switch t := val.(type) {
	case xattr.ValidateableAttribute:
		resp := xattr.ValidateAttributeResponse{}
		t.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: p}, &resp)
		diags.Append(resp.Diagnostics...)
	default:
		//nolint:staticcheck // xattr.TypeWithValidate is deprecated, but the framework still calls it on what it reads and writes
		if tv, ok := typ.(xattr.TypeWithValidate); ok {
			diags.Append(tv.Validate(ctx, raw, p)...)
		}
	}
	return diags
}

func (a attrs) string(ctx context.Context, name string) (types.String, diag.Diagnostics) {
	return attrValue[types.String](ctx, a, name, types.StringType)
}

func (a attrs) bool(ctx context.Context, name string) (types.Bool, diag.Diagnostics) {
	return attrValue[types.Bool](ctx, a, name, types.BoolType)
}

func (a attrs) int64(ctx context.Context, name string) (types.Int64, diag.Diagnostics) {
	return attrValue[types.Int64](ctx, a, name, types.Int64Type)
}

// ---- models: the one reflective helper, its fields found once per model type ----

// modelField is one attr.Value field of a model struct (fields of embedded structs included): where it
// is, its attribute name (tfsdk tag), and whether a record that lacks it keeps the state's value
// (`record:"kept"`, serviceFields).
type modelField struct {
	index []int
	name  string
	kept  bool
}

var (
	modelFieldCache sync.Map // reflect.Type -> []modelField
	attrValueType   = reflect.TypeFor[attr.Value]()
)

// modelFields are the attr.Value fields of the model struct type t, found once per type (every Read
// compares and completes its model through them: no walk of the type and its tags each time).
func modelFields(t reflect.Type) []modelField {
	if f, ok := modelFieldCache.Load(t); ok {
		return f.([]modelField)
	}
	var fields []modelField
	var walk func(t reflect.Type, at []int)
	walk = func(t reflect.Type, at []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			index := append(slices.Clone(at), i)
			switch {
			case sf.Anonymous && sf.Type.Kind() == reflect.Struct:
				walk(sf.Type, index)
			case sf.IsExported() && sf.Type.Implements(attrValueType):
				fields = append(fields, modelField{index: index, name: sf.Tag.Get("tfsdk"), kept: sf.Tag.Get("record") == "kept"})
			}
		}
	}
	walk(t, nil)
	f, _ := modelFieldCache.LoadOrStore(t, fields)
	return f.([]modelField)
}

// modelTypes are the attribute types of a model's schema, by name, and the schema's Terraform type,
// found once per model type; ok is false when the model's fields are not exactly the schema's
// attributes (getState and setState then leave the work to the framework, which says what is wrong).
type modelTypes struct {
	types  map[string]attr.Type
	object tftypes.Object
	ok     bool
}

var modelTypeCache sync.Map // reflect.Type -> modelTypes

// getState decodes a state into the model *dst as the framework's State.Get does: each attribute
// converted by its type (ValueFromTerraform, and its own validation) into the field of its name.
// The model's fields (modelFields) and the schema's attribute types are found once per model type,
// which is always used with the same schema (a resource's model, its resource's). State.Get walks the
// model's struct tags on every call and checks each tag with a regular expression it compiles each
// time: for dbcloud_service, dozens of compilations in every Read of every service.
func getState[M any](ctx context.Context, state tfsdk.State, dst *M) diag.Diagnostics {
	dv := reflect.ValueOf(dst).Elem()
	fields := modelFields(dv.Type())
	mt := typesOf(ctx, dv.Type(), state, fields)
	a := attrsOf(state.Raw)
	if !mt.ok || len(a) != len(fields) {
		return state.Get(ctx, dst)
	}
	var diags diag.Diagnostics
	for _, f := range fields {
		v, ok := a[f.name]
		if !ok {
			return state.Get(ctx, dst)
		}
		val, d := valueOf(ctx, mt.types[f.name], v, path.Root(f.name))
		if val == nil || reflect.TypeOf(val) != dv.FieldByIndex(f.index).Type() {
			return state.Get(ctx, dst) // the framework's error
		}
		diags.Append(d...)
		dv.FieldByIndex(f.index).Set(reflect.ValueOf(val))
	}
	return diags
}

// setState writes the model *m into the state as the framework's State.Set does (each field's value,
// of its attribute's type and checked as the framework checks it, in its Terraform form), with the
// same fields and types as getState: a Read whose record changed the state (an import, drift) no
// longer walks the model's tags either.
func setState[M any](ctx context.Context, state *tfsdk.State, m *M) diag.Diagnostics {
	mv := reflect.ValueOf(m).Elem()
	fields := modelFields(mv.Type())
	mt := typesOf(ctx, mv.Type(), *state, fields)
	if !mt.ok {
		return state.Set(ctx, m)
	}
	vals := make(map[string]tftypes.Value, len(fields))
	var diags diag.Diagnostics
	for _, f := range fields {
		val, _ := mv.FieldByIndex(f.index).Interface().(attr.Value)
		typ := mt.types[f.name]
		if val == nil || !typ.TerraformType(ctx).Equal(val.Type(ctx).TerraformType(ctx)) {
			return state.Set(ctx, m) // the framework's error
		}
		raw, err := val.ToTerraformValue(ctx)
		if err != nil {
			return state.Set(ctx, m)
		}
		diags.Append(validated(ctx, typ, val, raw, path.Root(f.name))...)
		vals[f.name] = raw
	}
	if diags.HasError() {
		return diags
	}
	if err := tftypes.ValidateValue(mt.object, vals); err != nil {
		return state.Set(ctx, m)
	}
	state.Raw = tftypes.NewValue(mt.object, vals)
	return diags
}

// typesOf is the modelTypes of the model type t with the schema of state.
func typesOf(ctx context.Context, t reflect.Type, state tfsdk.State, fields []modelField) modelTypes {
	if mt, ok := modelTypeCache.Load(t); ok {
		return mt.(modelTypes)
	}
	var mt modelTypes
	st := state.Schema.Type()
	if ot, ok := st.(attr.TypeWithAttributeTypes); ok {
		mt.types = ot.AttributeTypes()
		mt.object, ok = st.TerraformType(ctx).(tftypes.Object)
		mt.ok = ok && len(mt.types) == len(fields)
		for _, f := range fields {
			_, found := mt.types[f.name]
			mt.ok = mt.ok && found
		}
	}
	got, _ := modelTypeCache.LoadOrStore(t, mt)
	return got.(modelTypes)
}

// sameValues reports whether every attribute value of a equals b's (attr.Value Equal, nested
// values included): a Read whose record changed nothing can leave the state as it is.
func sameValues[M any](a, b *M) bool {
	av, bv := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for _, f := range modelFields(av.Type()) {
		x, _ := av.FieldByIndex(f.index).Interface().(attr.Value)
		y, _ := bv.FieldByIndex(f.index).Interface().(attr.Value)
		if !x.Equal(y) {
			return false
		}
	}
	return true
}

// nullUnknowns turns the values still unknown (computed ones the API did not report) into nulls:
// state must not hold unknowns.
func nullUnknowns[M any](m *M) {
	mv := reflect.ValueOf(m).Elem()
	for _, f := range modelFields(mv.Type()) {
		fv := mv.FieldByIndex(f.index)
		cur, _ := fv.Interface().(attr.Value)
		if !cur.IsUnknown() {
			continue
		}
		if null := nullOf(cur); null != nil {
			fv.Set(reflect.ValueOf(null))
		}
	}
}

// nullOf is the null value of an unknown value's type (nil for a type it does not know).
func nullOf(v attr.Value) attr.Value {
	switch v := v.(type) {
	case types.String:
		return types.StringNull()
	case types.Int64:
		return types.Int64Null()
	case types.Bool:
		return types.BoolNull()
	case types.Object:
		return types.ObjectNull(v.AttributeTypes(context.Background()))
	case types.Set:
		return types.SetNull(v.ElementType(context.Background()))
	case types.List:
		return types.ListNull(v.ElementType(context.Background()))
	}
	return nil
}

// connectionURI is the vendor's connection string of an endpoint, without a password:
// postgresql://tsdbadmin@host:port/tsdb?sslmode=require. It is unknown while host or port is, and null
// when there is no endpoint.
func connectionURI(host types.String, port types.Int64) types.String {
	switch {
	case host.IsUnknown() || port.IsUnknown():
		return types.StringUnknown()
	case host.IsNull() || host.ValueString() == "" || port.IsNull():
		return types.StringNull()
	}
	u := url.URL{Scheme: "postgresql", User: url.User(serviceDatabaseRole), Host: net.JoinHostPort(host.ValueString(), strconv.FormatInt(port.ValueInt64(), 10)),
		Path: "/" + serviceDatabaseName, RawQuery: "sslmode=require"}
	return types.StringValue(u.String())
}

// readOnlyConnectionOption is the connection option the vendor's CLI adds for a read-only session
// (api-facts: "Connecting to a service"); the service's extension enforces it.
const readOnlyConnectionOption = "-c tsdb_admin.read_only_connection=true"

const readOnlyConnectionURIDescription = "Connection string of the database endpoint for read-only sessions, the vendor's form without a " +
	"password: `connection_uri` with `options=-c tsdb_admin.read_only_connection=true` (percent-encoded). Not sensitive; add the " +
	"password with `provider::dbcloud::with_password`. Sessions opened with it cannot write, with no extra role. Null while the " +
	"service has no endpoint."

// readOnlyConnectionURI is uri with the read-only option. The option is percent-encoded as libpq
// decodes it: a space as %20 (libpq does not read + as a space) and = as %3D.
func readOnlyConnectionURI(uri types.String) types.String {
	if uri.IsNull() || uri.IsUnknown() {
		return uri
	}
	return types.StringValue(uri.ValueString() + readOnlyConnectionQuery)
}

// readOnlyConnectionQuery is the query parameter readOnlyConnectionURI adds, encoded once.
var readOnlyConnectionQuery = "&options=" + strings.ReplaceAll(url.QueryEscape(readOnlyConnectionOption), "+", "%20")

// The role and database every service is reached with (api-facts: "Connecting to a service").
const (
	serviceDatabaseRole = "tsdbadmin"
	serviceDatabaseName = "tsdb"
)

// keepIfNull keeps the previous value of an input the record does not report.
func keepIfNull[T attr.Value](dst *T, prev T) {
	if (*dst).IsNull() {
		*dst = prev
	}
}
