package provider

import (
	"context"
	"encoding/json"
	"maps"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The movers through the provider's MoveResourceState RPC, as Terraform and OpenTofu call it: the
// framework's protocol server, never configured (a move is not), with a state of the official provider.

// moved is the answer of a move: the target's state and identity as plain values, and the diagnostics.
type moved struct {
	state    map[string]any // nil when nothing was moved
	identity map[string]any // nil when none was set
	diags    []*tfprotov6.Diagnostic
}

// errors and warnings are the summaries and details of the answer's diagnostics of a severity.
func (m moved) errors() string   { return m.text(tfprotov6.DiagnosticSeverityError) }
func (m moved) warnings() string { return m.text(tfprotov6.DiagnosticSeverityWarning) }

func (m moved) text(sev tfprotov6.DiagnosticSeverity) string {
	var b strings.Builder
	for _, d := range m.diags {
		if d.Severity == sev {
			b.WriteString(d.Summary + ": " + d.Detail + "\n")
		}
	}
	return b.String()
}

// moveState sends a MoveResourceState of a source state (attrs as JSON) from addr to target.
func moveState(t *testing.T, addr, source string, version int64, attrs map[string]any, target string) moved {
	t.Helper()
	raw, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	return moveRawState(t, addr, source, version, raw, target)
}

func moveRawState(t *testing.T, addr, source string, version int64, raw []byte, target string) moved {
	t.Helper()
	ctx := context.Background()
	srv, err := testProviderServer()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || !schemas.ServerCapabilities.MoveResourceState {
		t.Fatalf("GetProviderSchema: %v; MoveResourceState capability: %+v", err, schemas.ServerCapabilities)
	}
	ids, err := srv.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: addr, SourceTypeName: source, SourceSchemaVersion: version,
		SourceState: &tfprotov6.RawState{JSON: raw}, TargetTypeName: target,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := moved{diags: resp.Diagnostics}
	if resp.TargetState != nil {
		v, err := resp.TargetState.Unmarshal(schemas.ResourceSchemas[target].ValueType())
		if err != nil {
			t.Fatal(err)
		}
		out.state, _ = plainValue(t, v).(map[string]any)
	}
	if resp.TargetIdentity != nil && resp.TargetIdentity.IdentityData != nil {
		v, err := resp.TargetIdentity.IdentityData.Unmarshal(ids.IdentitySchemas[target].ValueType())
		if err != nil {
			t.Fatal(err)
		}
		out.identity, _ = plainValue(t, v).(map[string]any)
	}
	return out
}

// plainValue is a value as Go values: nil, string, bool, int64 (a whole number), float64, []any or
// map[string]any (what a state file's JSON decodes to, and encodes from: BenchmarkPlanService).
func plainValue(t testing.TB, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		n := new(big.Float)
		_ = v.As(&n)
		if i, acc := n.Int64(); acc == big.Exact {
			return i
		}
		f, _ := n.Float64()
		return f
	case v.Type().Is(tftypes.Object{}), v.Type().Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for k, e := range m {
			out[k] = plainValue(t, e)
		}
		return out
	}
	var l []tftypes.Value
	if err := v.As(&l); err != nil {
		t.Fatal(err)
	}
	out := []any{}
	for _, e := range l {
		out = append(out, plainValue(t, e))
	}
	return out
}

// wantAttrs fails the test for each attribute of want whose moved value differs.
func wantAttrs(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: nothing was moved", what)
	}
	for k, w := range want {
		if g := got[k]; !equalPlain(g, w) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, g, w)
		}
	}
}

func equalPlain(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// The official provider's address as each CLI sends it: Terraform's, OpenTofu's since 1.11.12 and
// 1.12.4, and the bare local name of older OpenTofu releases.
var timescaleAddresses = []string{
	"registry.terraform.io/timescale/timescale",
	"registry.opentofu.org/timescale/timescale",
	"timescale",
}

// The official provider's address is matched by its segments: either host (or a private registry's),
// and the bare name older OpenTofu sends; near-misses are another provider's.
func TestIsTimescaleProvider(t *testing.T) {
	for _, addr := range append(timescaleAddresses, "registry.example.com/timescale/timescale") {
		if !isTimescaleProvider(addr) {
			t.Errorf("%q is not taken for the official provider", addr)
		}
	}
	for _, addr := range []string{
		"", "timescale2", "timescaledb", "timescale/timescale", "/timescale/timescale",
		"registry.terraform.io/hashicorp/timescale", "registry.terraform.io/nottimescale/timescale",
		"registry.terraform.io/timescale/timescale2", "registry.terraform.io/timescale/timescaledb",
		"registry.terraform.io/timescale/timescale/extra", "registry.terraform.io/dbcloud/dbcloud",
	} {
		if isTimescaleProvider(addr) {
			t.Errorf("%q is taken for the official provider", addr)
		}
	}
}

// A move from another provider, or from a near-miss of the official provider's address, is not ours:
// the framework's "not supported" error, and nothing moved.
func TestMoveStateOtherProvidersNotMoved(t *testing.T) {
	attrs := timescaleServiceAttrs("ab12cd34ef", "app", nil)
	for _, addr := range []string{"registry.terraform.io/hashicorp/timescale", "registry.terraform.io/timescale/timescale2", "timescale2"} {
		m := moveState(t, addr, "timescale_service", 0, attrs, serviceTypeName)
		if m.state != nil || !strings.Contains(m.errors(), "Unable to Move Resource State") || !strings.Contains(m.errors(), addr) {
			t.Errorf("from %s: state %v, errors %q; want the framework's refusal naming the address", addr, m.state, m.errors())
		}
	}
	m := moveState(t, "registry.terraform.io/hashicorp/random", "random_string", 2, map[string]any{"id": "x"}, vpcTypeName)
	if m.state != nil || !strings.Contains(m.errors(), "Unable to Move Resource State") {
		t.Errorf("random_string: state %v, errors %q", m.state, m.errors())
	}
}

// Another type of the official provider is refused with an error naming the type it moves to, or
// saying it has no counterpart and how to keep it.
func TestMoveStateWrongTimescaleType(t *testing.T) {
	const addr = "registry.terraform.io/timescale/timescale"
	m := moveState(t, addr, "timescale_vpcs", 0, timescaleVPCAttrs(1234, "main", "10.0.0.0/16"), serviceTypeName)
	if m.state != nil || !strings.Contains(m.errors(), "A timescale_vpcs moves to dbcloud_vpc, not to dbcloud_service") {
		t.Errorf("timescale_vpcs to dbcloud_service: state %v, errors %q", m.state, m.errors())
	}
	m = moveState(t, addr, "timescale_service", 0, timescaleServiceAttrs("ab12cd34ef", "app", nil), peeringTypeName)
	if m.state != nil || !strings.Contains(m.errors(), "A timescale_service moves to dbcloud_service, not to dbcloud_vpc_peering") {
		t.Errorf("timescale_service to dbcloud_vpc_peering: state %v, errors %q", m.state, m.errors())
	}
	m = moveState(t, addr, "timescale_metric_exporter", 0, map[string]any{"id": "exp-1"}, serviceTypeName)
	if m.state != nil || !strings.Contains(m.errors(), "timescale_metric_exporter has no counterpart") || !strings.Contains(m.errors(), "destroy = false") {
		t.Errorf("timescale_metric_exporter: state %v, errors %q", m.state, m.errors())
	}
}

// A schema version no release of the official provider wrote is refused, naming it and the known ones.
func TestMoveStateUnknownVersion(t *testing.T) {
	const addr = "registry.opentofu.org/timescale/timescale"
	for _, c := range []struct {
		source, target, known string
		version               int64
		attrs                 map[string]any
	}{
		{"timescale_service", serviceTypeName, "schema version 0", 1, timescaleServiceAttrs("ab12cd34ef", "app", nil)},
		{"timescale_vpcs", vpcTypeName, "schema version 0", 3, timescaleVPCAttrs(1234, "main", "10.0.0.0/16")},
		{"timescale_peering_connection", peeringTypeName, "schema version 0 and 1", 2, timescalePeeringAttrs(55, 1234, nil)},
	} {
		m := moveState(t, addr, c.source, c.version, c.attrs, c.target)
		errs := m.errors()
		if m.state != nil || !strings.Contains(errs, "Unknown "+c.source+" schema version "+big.NewInt(c.version).String()) ||
			!strings.Contains(errs, c.known) || !strings.Contains(errs, "import") {
			t.Errorf("%s version %d: state %v, errors %q", c.source, c.version, m.state, errs)
		}
	}
}

// A state whose attributes are not of the official schema's types is refused, naming them.
func TestMoveStateUndecodable(t *testing.T) {
	const addr = "registry.terraform.io/timescale/timescale"
	m := moveState(t, addr, "timescale_service", 0, timescaleServiceAttrs("ab12cd34ef", "app", map[string]any{"milli_cpu": "1000", "paused": "no"}), serviceTypeName)
	if errs := m.errors(); m.state != nil || !strings.Contains(errs, "milli_cpu is string, not a whole number") || !strings.Contains(errs, "paused is string, not a bool") {
		t.Errorf("state %v, errors %q", m.state, errs)
	}
	m = moveRawState(t, addr, "timescale_vpcs", 0, []byte(`{"id": 12.5, "name": "x"}`), vpcTypeName)
	if errs := m.errors(); m.state != nil || !strings.Contains(errs, "id is json.Number, not a whole number") {
		t.Errorf("state %v, errors %q", m.state, errs)
	}
	m = moveRawState(t, addr, "timescale_vpcs", 0, []byte(`not json`), vpcTypeName)
	if errs := m.errors(); m.state != nil || !strings.Contains(errs, "does not decode") {
		t.Errorf("state %v, errors %q", m.state, errs)
	}
}

// States of the official provider (timescale/timescale v2.13.3) as it writes them: every attribute of
// its schema, null when unset, numbers as JSON numbers. TestAccMoveFromTimescale_fixturesMatchSchema
// checks them against that provider's own `providers schema -json`, so that they cannot drift from it.

// timescaleServiceAttrs is a timescale_service's attributes (a running 1000/4 service in us-east-1,
// nothing optional set), with set's attributes over them.
func timescaleServiceAttrs(id, name string, set map[string]any) map[string]any {
	a := map[string]any{
		"id": id, "name": name, "milli_cpu": 1000, "memory_gb": 4, "storage_gb": nil,
		"enable_ha_replica": nil, "ha_replicas": 0, "sync_replicas": 0,
		"read_replica_source": nil, "read_replica_nodes": nil,
		"timeouts": nil, "password": "tsdb-generated-PW-" + id, "password_wo": nil, "password_wo_version": nil,
		"hostname": id + ".tp1project0.tsdb.cloud.timescale.com", "port": 30001,
		"replica_hostname": nil, "replica_port": nil, "pooler_hostname": nil, "pooler_port": nil,
		"connection_pooler_enabled": false, "data_tiering_enabled": false, "environment_tag": "DEV",
		"username": "tsdbadmin", "region_code": "us-east-1", "vpc_id": nil, "paused": false,
		"metric_exporter_id": nil, "log_exporter_id": nil,
	}
	maps.Copy(a, set)
	return a
}

// timescaleVPCAttrs is a timescale_vpcs's attributes.
func timescaleVPCAttrs(id int64, name, cidr string) map[string]any {
	return map[string]any{
		"id": id, "name": name, "cidr": cidr, "region_code": "us-east-1", "provisioned_id": "vpc-0c0ffee0c0ffee001",
		"project_id": testProjectID, "status": "ACTIVE", "error_message": "", "created": "2026-01-12T09:30:00Z",
		"updated": "2026-01-12T09:31:00Z", "timeouts": nil,
	}
}

// timescalePeeringAttrs is a timescale_peering_connection's attributes (schema version 1), with set's
// attributes over them.
func timescalePeeringAttrs(id, vpcID int64, set map[string]any) map[string]any {
	a := map[string]any{
		"id": id, "timescale_vpc_id": vpcID, "vpc_id": "vpc-0c0ffee0c0ffee001", "provisioned_id": "pcx-0123456789abcdef0",
		"accepter_provisioned_id": "pcx-0123456789abcdef0", "status": "active", "error_message": nil,
		"peer_account_id": "123456789012", "peer_region_code": "us-east-1", "peer_vpc_id": "vpc-0a1b2c3d4e5f67890",
		"peer_tgw_id": nil, "peer_cidr_blocks": []any{}, "peer_cidr": nil, "peering_type": "vpc",
	}
	maps.Copy(a, set)
	return a
}

// timescaleObject is one object of a state written by Terraform (or OpenTofu) for the official
// provider: its resource's address parts, index and schema version, and its attributes.
type timescaleObject struct {
	module, typ, name string
	index             any // nil, or the count index
	version           int
	attrs             map[string]any
}

// timescaleStateFile is a state file (format 4) holding objects of the official provider served by
// host (registry.terraform.io, or registry.opentofu.org for OpenTofu's states), grouped by resource
// in order, as Terraform writes it.
func timescaleStateFile(t *testing.T, host string, objs ...timescaleObject) string {
	t.Helper()
	type instance struct {
		IndexKey       any              `json:"index_key,omitempty"`
		SchemaVersion  int              `json:"schema_version"`
		Attributes     map[string]any   `json:"attributes"`
		SensitiveAttrs []any            `json:"sensitive_attributes"`
		Dependencies   []string         `json:"dependencies,omitempty"`
		Private        *json.RawMessage `json:"private,omitempty"`
	}
	type res struct {
		Module    string     `json:"module,omitempty"`
		Mode      string     `json:"mode"`
		Type      string     `json:"type"`
		Name      string     `json:"name"`
		Provider  string     `json:"provider"`
		Instances []instance `json:"instances"`
	}
	var out []*res
	for _, o := range objs {
		var r *res
		if n := len(out); n > 0 && out[n-1].Module == o.module && out[n-1].Type == o.typ && out[n-1].Name == o.name {
			r = out[n-1]
		} else {
			r = &res{Module: o.module, Mode: "managed", Type: o.typ, Name: o.name, Provider: `provider["` + host + `/timescale/timescale"]`}
			out = append(out, r)
		}
		var sensitive []any
		if o.typ == "timescale_service" {
			sensitive = []any{[]any{map[string]any{"type": "get_attr", "value": "password"}}}
		}
		r.Instances = append(r.Instances, instance{IndexKey: o.index, SchemaVersion: o.version, Attributes: o.attrs, SensitiveAttrs: sensitive})
	}
	b, err := json.MarshalIndent(map[string]any{
		"version": 4, "terraform_version": "1.10.0", "serial": 7, "lineage": "8c1b5d4e-3f0a-4d5b-9e2c-6a7f8b9c0d1e",
		"outputs": map[string]any{}, "resources": out, "check_results": nil,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
