package provider

// The provider's protocol server: the framework's, with two shortcuts for the calls that every plan
// makes for every resource in state.
//
// A plan of N resources calls UpgradeResourceState, ReadResource, ValidateResourceConfig and
// PlanResourceChange N times each. For a resource whose configuration did not change, the
// framework's answer to UpgradeResourceState (same schema version: the stored state, decoded and
// encoded again) and to PlanResourceChange (the prior state, unchanged) is known before any of its
// per-attribute work, which walks the schema path by path (three value lookups per attribute, each
// copying the schema's attribute map) and dominated the provider's CPU in a plan. The same holds for
// a refresh (ReadResource) that finds the object as it is in state. These three cases are answered
// here; everything else goes to the framework unchanged.
//
// The plan shortcut is taken only when it is certainly the framework's answer:
//   - the proposed new state is the prior state, byte for byte (Terraform encodes both the same way,
//     so no attribute changed, nothing is unknown, and no write-only attribute is set);
//   - the resource type registered a planShortcut, and it accepts the prior state, the configuration
//     and the private state: it declines whatever its ModifyPlan or a schema Default would change in
//     such a plan (for dbcloud_service: an unsettled status, an interrupted create, a default to apply).
//
// TestFastPathMatchesFramework compares both answers over generated states, so that a new Default,
// plan modifier or ModifyPlan rule that the shortcut does not know about fails a test.

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// planShortcut reports whether a plan in which nothing changed is the prior state as it is, for one
// resource type: prior and config are the top-level attributes of the prior state and of the
// configuration, private the prior private state.
type planShortcut func(prior, config map[string]tftypes.Value, private []byte) bool

// planShortcuts are the resource types whose unchanged plans are answered by fastServer.
var planShortcuts = map[string]planShortcut{
	"dbcloud_service": serviceUnchangedPlanIsPrior,
}

// readShortcut reports whether a Read of the prior state (top-level attributes) answers that state
// unchanged, using the provider's configured data; false sends the Read to the framework.
type readShortcut func(ctx context.Context, pd *providerData, prior map[string]tftypes.Value) bool

// readShortcuts are the resource types whose unchanged Reads are answered by fastServer.
var readShortcuts = map[string]readShortcut{
	"dbcloud_service": serviceReadUnchanged,
}

// shortcuts are the shortcuts a server takes.
type shortcuts struct {
	plan map[string]planShortcut
	read map[string]readShortcut
}

// allShortcuts are the shortcuts main.go serves with.
var allShortcuts = shortcuts{plan: planShortcuts, read: readShortcuts}

// NewProtocol6 returns the provider's protocol 6 server factory (main.go and the tests use it).
func NewProtocol6(version string) func() (tfprotov6.ProviderServer, error) {
	return protocol6(New(version)(), allShortcuts)
}

// protocol6 wraps the framework's server for the provider p with the shortcuts.
func protocol6(p provider.Provider, with shortcuts) func() (tfprotov6.ProviderServer, error) {
	framework := providerserver.NewProtocol6WithError(p)
	return func() (tfprotov6.ProviderServer, error) {
		inner, err := framework()
		if err != nil {
			return nil, err
		}
		full, ok := inner.(frameworkServer)
		if !ok { // never: the framework's server implements list resources; keep its answers then
			return inner, nil
		}
		dp, _ := p.(*dbcloudProvider) // nil: no read shortcut
		return &fastServer{frameworkServer: full, shortcuts: with, provider: dp}, nil
	}
}

// frameworkServer is what the framework's protocol server implements that the provider uses.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer // list resources (terraform query)
}

// fastServer is the framework's server with the shortcuts; every other call goes to it.
type fastServer struct {
	frameworkServer
	shortcuts shortcuts
	provider  *dbcloudProvider

	once  sync.Once
	types map[string]resourceTypeInfo // by resource type name; nil when the schemas were not readable
}

// resourceTypeInfo is what the shortcuts need of a resource type's schemas.
type resourceTypeInfo struct {
	version      int64
	typ          tftypes.Type            // the state's type
	writeOnly    []string                // write-only attributes (always null in state)
	identityType tftypes.Type            // nil without identity
	nullIdentity *tfprotov6.DynamicValue // a null identity, for a prior state without one; nil without identity
}

// typeInfo returns the schema facts of a resource type, read once from the framework's server.
func (s *fastServer) typeInfo(ctx context.Context, typeName string) (resourceTypeInfo, bool) {
	s.once.Do(func() {
		schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || schemas == nil || diagsHaveError(schemas.Diagnostics) {
			return
		}
		identities, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
		if err != nil || identities == nil || diagsHaveError(identities.Diagnostics) {
			return
		}
		types := make(map[string]resourceTypeInfo, len(schemas.ResourceSchemas))
		for name, sch := range schemas.ResourceSchemas {
			info := resourceTypeInfo{version: sch.Version, typ: sch.ValueType()}
			if sch.Block != nil {
				for _, a := range sch.Block.Attributes {
					if a.WriteOnly {
						info.writeOnly = append(info.writeOnly, a.Name)
					}
				}
			}
			if id, ok := identities.IdentitySchemas[name]; ok && id != nil {
				idType := id.ValueType()
				info.identityType = idType
				dv, err := tfprotov6.NewDynamicValue(idType, tftypes.NewValue(idType, nil))
				if err != nil {
					continue // no shortcut for this type
				}
				info.nullIdentity = &dv
			}
			types[name] = info
		}
		s.types = types
	})
	info, ok := s.types[typeName]
	return info, ok
}

// UpgradeResourceState: a state stored with the current schema version is the stored JSON decoded
// with the current schema (attributes the schema no longer has are dropped), as the framework does.
func (s *fastServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if req != nil && req.RawState != nil && req.RawState.JSON != nil {
		if info, ok := s.typeInfo(ctx, req.TypeName); ok && req.Version == info.version {
			v, err := req.RawState.UnmarshalWithOpts(info.typ, tfprotov6.UnmarshalOpts{
				ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
			})
			if err == nil {
				if dv, err := tfprotov6.NewDynamicValue(info.typ, v); err == nil {
					return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
				}
			}
		}
	}
	return s.frameworkServer.UpgradeResourceState(ctx, req) // other versions, and the framework's errors
}

// PlanResourceChange: an unchanged plan of a resource type with a shortcut is the prior state.
func (s *fastServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if resp := s.unchangedPlan(ctx, req); resp != nil {
		return resp, nil
	}
	return s.frameworkServer.PlanResourceChange(ctx, req)
}

// unchangedPlan answers an unchanged plan when the shortcut is certain, or returns nil.
func (s *fastServer) unchangedPlan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	if req == nil || req.PriorState == nil || req.ProposedNewState == nil || req.Config == nil {
		return nil
	}
	shortcut := s.shortcuts.plan[req.TypeName]
	priorBytes, proposedBytes := req.PriorState.MsgPack, req.ProposedNewState.MsgPack
	if shortcut == nil || len(priorBytes) == 0 || !bytes.Equal(priorBytes, proposedBytes) {
		return nil
	}
	info, ok := s.typeInfo(ctx, req.TypeName)
	if !ok {
		return nil
	}
	identity := req.PriorIdentity
	if identity == nil || identity.IdentityData == nil {
		if info.nullIdentity == nil {
			return nil
		}
		identity = &tfprotov6.ResourceIdentityData{IdentityData: info.nullIdentity}
	}
	prior, ok := objectAttributes(req.PriorState, info.typ)
	if !ok {
		return nil
	}
	config, ok := objectAttributes(req.Config, info.typ)
	if !ok || !shortcut(prior, config, req.PriorPrivate) {
		return nil
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    req.PriorState,
		PlannedPrivate:  req.PriorPrivate,
		PlannedIdentity: identity,
	}
}

// ReadResource: a Read that finds the object as it is in state answers the state unchanged.
func (s *fastServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if resp := s.unchangedRead(ctx, req); resp != nil {
		return resp, nil
	}
	return s.frameworkServer.ReadResource(ctx, req)
}

// unchangedRead answers a Read whose result is certainly the current state, or returns nil.
func (s *fastServer) unchangedRead(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	if req == nil || req.CurrentState == nil || s.provider == nil {
		return nil
	}
	shortcut := s.shortcuts.read[req.TypeName]
	pd := s.provider.configured.Load()
	// A framework key in the private state (such as the one an import leaves) is the framework's.
	if shortcut == nil || pd == nil || bytes.Contains(req.Private, []byte(`".`)) {
		return nil
	}
	info, ok := s.typeInfo(ctx, req.TypeName)
	if !ok || info.identityType == nil {
		return nil
	}
	prior, ok := objectAttributes(req.CurrentState, info.typ)
	if !ok {
		return nil
	}
	for _, name := range info.writeOnly {
		if !prior[name].IsNull() {
			return nil
		}
	}
	identity, ok := identityFromState(info.identityType, prior)
	if !ok {
		return nil
	}
	if req.CurrentIdentity != nil && req.CurrentIdentity.IdentityData != nil {
		current, err := req.CurrentIdentity.IdentityData.Unmarshal(info.identityType)
		if err != nil || (!current.IsNull() && !current.Equal(identity)) {
			return nil // an identity that is not the state's: the framework says what is wrong
		}
	}
	if !shortcut(ctx, pd, prior) {
		return nil
	}
	idv, err := tfprotov6.NewDynamicValue(info.identityType, identity)
	if err != nil {
		return nil
	}
	return &tfprotov6.ReadResourceResponse{
		NewState:    req.CurrentState,
		Private:     req.Private,
		NewIdentity: &tfprotov6.ResourceIdentityData{IdentityData: &idv},
	}
}

// identityFromState is the identity syncIdentity (identity.go) derives from a state: each identity
// attribute is the state attribute of the same name.
func identityFromState(typ tftypes.Type, state map[string]tftypes.Value) (tftypes.Value, bool) {
	obj, ok := typ.(tftypes.Object)
	if !ok {
		return tftypes.Value{}, false
	}
	vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, at := range obj.AttributeTypes {
		v, ok := state[name]
		if !ok || !v.Type().Equal(at) {
			return tftypes.Value{}, false
		}
		vals[name] = v
	}
	return tftypes.NewValue(obj, vals), true
}

// modelCodec decodes a state's top-level attributes into a model struct (tfsdk tags) without the
// framework's reflection, and compares two models; it serves the read shortcuts. A model it cannot
// decode exactly sends the Read to the framework.
type modelCodec struct {
	fields []codecField
}

type codecField struct {
	name  string
	index int
	typ   attr.Type
}

// newModelCodec maps the fields of the struct type of model (a pointer) to the attribute types of
// a resource schema; every attribute must have a field and every field an attribute.
func newModelCodec(model any, attrTypes map[string]attr.Type) (*modelCodec, error) {
	t := reflect.TypeOf(model).Elem()
	c := &modelCodec{}
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Tag.Get("tfsdk")
		typ, ok := attrTypes[name]
		if !ok || !t.Field(i).Type.Implements(reflect.TypeFor[attr.Value]()) {
			return nil, fmt.Errorf("field %s (%q) has no attribute of its own", t.Field(i).Name, name)
		}
		c.fields = append(c.fields, codecField{name: name, index: i, typ: typ})
	}
	if len(c.fields) != len(attrTypes) {
		return nil, fmt.Errorf("%d fields for %d attributes", len(c.fields), len(attrTypes))
	}
	return c, nil
}

// decode sets the fields of dst (a pointer to the model) from the attributes.
func (c *modelCodec) decode(ctx context.Context, attrs map[string]tftypes.Value, dst any) bool {
	v := reflect.ValueOf(dst).Elem()
	for _, f := range c.fields {
		tv, ok := attrs[f.name]
		if !ok {
			return false
		}
		av, err := f.typ.ValueFromTerraform(ctx, tv)
		if err != nil {
			return false
		}
		rv := reflect.ValueOf(av)
		field := v.Field(f.index)
		if !rv.Type().AssignableTo(field.Type()) {
			return false
		}
		field.Set(rv)
	}
	return true
}

// equal reports whether two models (pointers) hold equal values in every field.
func (c *modelCodec) equal(a, b any) bool {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for _, f := range c.fields {
		x, _ := va.Field(f.index).Interface().(attr.Value)
		y, _ := vb.Field(f.index).Interface().(attr.Value)
		if x == nil || y == nil || !x.Equal(y) {
			return false
		}
	}
	return true
}

func diagsHaveError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// objectAttributes decodes a known, non-null object into its top-level attributes.
func objectAttributes(dv *tfprotov6.DynamicValue, typ tftypes.Type) (map[string]tftypes.Value, bool) {
	v, err := dv.Unmarshal(typ)
	if err != nil || v.IsNull() || !v.IsKnown() {
		return nil, false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, false
	}
	return attrs, true
}
