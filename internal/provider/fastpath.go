package provider

// The provider's protocol server: the framework's, with two shortcuts for the calls that every plan
// makes for every resource in state.
//
// A plan of N resources calls UpgradeResourceState, ReadResource, ValidateResourceConfig and
// PlanResourceChange N times each. For a resource whose configuration did not change, the
// framework's answer to UpgradeResourceState (same schema version: the stored state, decoded and
// encoded again) and to PlanResourceChange (the prior state, unchanged) is known before any of its
// per-attribute work, which walks the schema path by path (three value lookups per attribute, each
// copying the schema's attribute map) and dominated the provider's CPU in a plan. These two cases
// are answered here; everything else goes to the framework unchanged.
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
	"sync"

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

// NewProtocol6 returns the provider's protocol 6 server factory (main.go and the tests use it).
func NewProtocol6(version string) func() (tfprotov6.ProviderServer, error) {
	return protocol6(New(version)(), planShortcuts)
}

// protocol6 wraps the framework's server for the provider p with the shortcuts.
func protocol6(p provider.Provider, shortcuts map[string]planShortcut) func() (tfprotov6.ProviderServer, error) {
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
		return &fastServer{frameworkServer: full, shortcuts: shortcuts}, nil
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
	shortcuts map[string]planShortcut

	once  sync.Once
	types map[string]resourceTypeInfo // by resource type name; nil when the schemas were not readable
}

// resourceTypeInfo is what the shortcuts need of a resource type's schemas.
type resourceTypeInfo struct {
	version      int64
	typ          tftypes.Type            // the state's type
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
			if id, ok := identities.IdentitySchemas[name]; ok && id != nil {
				idType := id.ValueType()
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
	shortcut := s.shortcuts[req.TypeName]
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
