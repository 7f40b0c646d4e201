package provider

// Moving state from the vendor's official provider (timescale/timescale, up to v2.13.3) with a
// `moved` block, what docs/guides/migrating.md walks through: dbcloud_service from timescale_service,
// dbcloud_vpc from timescale_vpcs and dbcloud_vpc_peering from timescale_peering_connection (each
// resource's MoveState, in service_move.go, vpc_move.go and vpc_peering_move.go, through the wrapper's
// MoveState in base.go). Terraform (>= 1.8) and OpenTofu (>= 1.10) send the source's state as stored
// (raw JSON, with its schema version, never upgraded first) and never configure the provider for a
// move: a mover reads that JSON and nothing else, makes no API call, and the refresh that follows in
// the same plan reads the object through the API (drift shows there).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The official provider's name, and which of our types each of its resource types moves to.
const timescaleProvider = "timescale"

var timescaleTargets = map[string]string{
	"timescale_service":            serviceTypeName,
	"timescale_vpcs":               vpcTypeName,
	"timescale_peering_connection": peeringTypeName,
}

// isTimescaleProvider reports whether a move's source provider address is the official provider:
// HOST/timescale/timescale (registry.terraform.io from Terraform, registry.opentofu.org from OpenTofu,
// or a private registry's copy), or the bare "timescale" that OpenTofu before 1.11.12 and 1.12.4 sends.
// Anything else (another namespace or name, a name that only starts so) is another provider's.
func isTimescaleProvider(addr string) bool {
	parts := strings.Split(addr, "/")
	switch len(parts) {
	case 1:
		return parts[0] == timescaleProvider
	case 3:
		return parts[0] != "" && !strings.ContainsAny(parts[0], " \t") &&
			parts[1] == timescaleProvider && parts[2] == timescaleProvider
	}
	return false
}

// timescaleMove is how one of our resources takes the state of one type of the official provider.
type timescaleMove struct {
	target   string  // our type name
	source   string  // the official provider's type name
	versions []int64 // the source's schema versions this mover reads (every version it has had)
	// move maps the source's state into resp (TargetState, TargetIdentity and any warning).
	move func(ctx context.Context, src *timescaleState, resp *resource.MoveStateResponse)
}

// stateMovers is a resource's MoveState: one mover that takes every state of the official provider.
// A source of another provider is left alone (the framework then says the move is not supported);
// one of the official provider is moved, or refused with an error saying what to do instead.
func (m timescaleMove) stateMovers() []resource.StateMover {
	return []resource.StateMover{{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		// What was asked, never the state (it holds the admin password in clear).
		tflog.Debug(ctx, "dbcloud move of another resource's state", map[string]any{
			"source_provider_address": req.SourceProviderAddress, "source_type": req.SourceTypeName,
			"source_schema_version": req.SourceSchemaVersion, "target_type": m.target,
		})
		if !isTimescaleProvider(req.SourceProviderAddress) {
			return
		}
		if req.SourceTypeName != m.source {
			resp.Diagnostics.AddError("Cannot move "+req.SourceTypeName+" to "+m.target, m.wrongType(req.SourceTypeName))
			return
		}
		if !slices.Contains(m.versions, req.SourceSchemaVersion) {
			resp.Diagnostics.AddError(fmt.Sprintf("Unknown %s schema version %d", m.source, req.SourceSchemaVersion), fmt.Sprintf(
				"This state of %s has schema version %d, which this version of the dbcloud provider does not know: it moves "+
					"%s states of schema version %s, written by timescale/timescale up to v2.13.3. Nothing was moved. Use a "+
					"newer dbcloud provider if one knows this version; otherwise take the object over by import instead of a "+
					"moved block: a removed block with lifecycle { destroy = false } for the %s, and an import block for the %s "+
					"(the \"Migrating from the timescale provider\" guide shows both).",
				m.source, req.SourceSchemaVersion, m.source, joinVersions(m.versions), m.source, m.target))
			return
		}
		if req.SourceRawState == nil {
			resp.Diagnostics.AddError("No "+m.source+" state to move", "Terraform sent no state for this "+m.source+"; nothing was moved.")
			return
		}
		src, err := decodeTimescaleState(m.source, req.SourceRawState)
		if err != nil {
			resp.Diagnostics.AddError("Cannot read the "+m.source+" state", err.Error()+"; nothing was moved.")
			return
		}
		m.move(ctx, src, resp)
		src.report(&resp.Diagnostics)
	}}}
}

// wrongType is the error's text for a move of another type of the official provider to m.target.
func (m timescaleMove) wrongType(source string) string {
	if target, ok := timescaleTargets[source]; ok {
		return fmt.Sprintf("A %s moves to %s, not to %s; %s takes a %s. Change the moved block's `to` (and its resource block) to a %s. Nothing was moved.",
			source, target, m.target, m.target, m.source, target)
	}
	return fmt.Sprintf("%s has no counterpart in the dbcloud provider, which takes over timescale_service, timescale_vpcs and "+
		"timescale_peering_connection only. Remove this moved block; keep the %s on the timescale provider, or stop "+
		"managing it without destroying it: removed { from = ...  lifecycle { destroy = false } }. Nothing was moved.", source, source)
}

func joinVersions(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, " and ")
}

// timescaleState is a source state's attributes as stored, read one attribute at a time: a value of
// another type than the source schema's is recorded (report) and read as null.
type timescaleState struct {
	typeName string
	attrs    map[string]any
	errs     []string
	unmoved  []string // attributes set in the source that have no counterpart (warned about by report)
	warnOn   string   // what the unmoved attributes belong to, in the warning ("service d1k5vk7hf2")
}

// decodeTimescaleState reads a raw state; numbers keep every digit (json.Number: ids are 64-bit).
func decodeTimescaleState(typeName string, raw *tfprotov6.RawState) (*timescaleState, error) {
	dec := json.NewDecoder(bytes.NewReader(raw.JSON))
	dec.UseNumber()
	s := &timescaleState{typeName: typeName}
	if err := dec.Decode(&s.attrs); err != nil {
		return nil, fmt.Errorf("its JSON does not decode: %w", err)
	}
	if s.attrs == nil {
		return nil, fmt.Errorf("it is empty")
	}
	return s, nil
}

func (s *timescaleState) wrong(name, want string) {
	s.errs = append(s.errs, fmt.Sprintf("%s is %T, not %s", name, s.attrs[name], want))
}

func (s *timescaleState) str(name string) types.String {
	switch v := s.attrs[name].(type) {
	case nil:
		return types.StringNull()
	case string:
		return types.StringValue(v)
	}
	s.wrong(name, "a string")
	return types.StringNull()
}

func (s *timescaleState) int64(name string) types.Int64 {
	switch v := s.attrs[name].(type) {
	case nil:
		return types.Int64Null()
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return types.Int64Value(n)
		}
	}
	s.wrong(name, "a whole number")
	return types.Int64Null()
}

func (s *timescaleState) bool(name string) types.Bool {
	switch v := s.attrs[name].(type) {
	case nil:
		return types.BoolNull()
	case bool:
		return types.BoolValue(v)
	}
	s.wrong(name, "a bool")
	return types.BoolNull()
}

// decimal is a number id (the official provider's VPC and peering ids) as our decimal string.
func (s *timescaleState) decimal(name string) types.String {
	n := s.int64(name)
	if n.IsNull() {
		return types.StringNull()
	}
	return types.StringValue(strconv.FormatInt(n.ValueInt64(), 10))
}

// nestedStr is the string attribute inner of the nested attribute name (timeouts.create).
func (s *timescaleState) nestedStr(name, inner string) types.String {
	switch v := s.attrs[name].(type) {
	case nil:
		return types.StringNull()
	case map[string]any:
		sub := timescaleState{typeName: s.typeName, attrs: v}
		out := sub.str(inner)
		s.errs = append(s.errs, sub.errs...)
		return out
	}
	s.wrong(name, "an object")
	return types.StringNull()
}

// isSet reports whether an attribute holds something: not null, not false, not an empty string or list.
func (s *timescaleState) isSet(name string) bool {
	switch v := s.attrs[name].(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	}
	return true
}

// noCounterpart records the attributes of names that are set (each with what happens to it), for the
// one warning of the move.
func (s *timescaleState) noCounterpart(names [][2]string) {
	for _, n := range names {
		if s.isSet(n[0]) {
			s.unmoved = append(s.unmoved, n[0]+" ("+n[1]+")")
		}
	}
}

// report adds the decoding errors (nothing was moved then), or the one warning naming each attribute
// that was set and has no counterpart. Values are never quoted: a state holds secrets.
func (s *timescaleState) report(diags *diag.Diagnostics) {
	if len(s.errs) > 0 {
		diags.AddError("Cannot read the "+s.typeName+" state", "Attributes of another type than timescale/timescale's schema: "+
			strings.Join(s.errs, "; ")+". Nothing was moved.")
		return
	}
	if len(s.unmoved) == 0 || diags.HasError() {
		return
	}
	diags.AddWarning("Not moved: "+s.typeName+" attributes without a counterpart", fmt.Sprintf(
		"The %s moved, but these attributes of its %s have no counterpart in the dbcloud provider: %s. They stay as they are "+
			"on the object, and Terraform no longer manages them: remove them from the configuration, and change them in the "+
			"console if needed (the \"Migrating from the timescale provider\" guide lists them).",
		s.warnOn, s.typeName, strings.Join(s.unmoved, "; ")))
}

// movedTimeouts is the target's `timeouts` block with create set (null when create is null).
func movedTimeouts(ctx context.Context, state tfsdk.State, create types.String) timeouts.Value {
	attrTypes := map[string]attr.Type{}
	if t, d := state.Schema.TypeAtPath(ctx, path.Root("timeouts")); !d.HasError() {
		if ot, ok := t.(attr.TypeWithAttributeTypes); ok {
			attrTypes = ot.AttributeTypes()
		}
	}
	if create.IsNull() {
		return timeouts.Value{Object: types.ObjectNull(attrTypes)}
	}
	vals := map[string]attr.Value{}
	for name := range attrTypes {
		vals[name] = types.StringNull()
	}
	vals["create"] = create
	return timeouts.Value{Object: types.ObjectValueMust(attrTypes, vals)}
}

// setMoved writes the moved model and its identity (the identity attributes from the state
// attributes of the same names, as the wrapper keeps them: identity.go).
func setMoved(ctx context.Context, model any, resp *resource.MoveStateResponse) {
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, model)...)
	if !resp.Diagnostics.HasError() {
		syncIdentity(ctx, resp.TargetState, resp.TargetIdentity, &resp.Diagnostics)
	}
}
