package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// ---- the plan of one service, as terraform plan drives the protocol ----

// protoPlan drives the framework's protocol server (served as main.go serves it) through the calls
// terraform plan makes for each resource instance in state: UpgradeResourceState (the stored JSON),
// ValidateResourceConfig, ReadResource (the refresh) and PlanResourceChange. It measures in process
// what the provider costs per object, without the plugin's process, gRPC or Terraform itself.
type protoPlan struct {
	srv      tfprotov6.ProviderServer
	typeName string
	typ      tftypes.Object
	schema   *tfprotov6.Schema
}

// newProtoPlan serves the provider configured against the emulator at baseURL.
func newProtoPlan(tb testing.TB, baseURL string) *protoPlan {
	tb.Helper()
	ctx := context.Background()
	srv := providerserver.NewProtocol6(New("bench")())()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		tb.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	ptyp := schemas.Provider.ValueType().(tftypes.Object)
	settings := map[string]string{"base_url": baseURL, "access_key": testAccessKey, "secret_key": testSecretKey, "project_id": testProjectID}
	cfg, err := tfprotov6.NewDynamicValue(ptyp, objectOf(ptyp, func(name string, t tftypes.Type) tftypes.Value {
		if v, ok := settings[name]; ok {
			return tftypes.NewValue(t, v)
		}
		return tftypes.NewValue(t, nil)
	}))
	if err != nil {
		tb.Fatal(err)
	}
	configured, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: &cfg})
	if err != nil || len(configured.Diagnostics) > 0 {
		tb.Fatalf("ConfigureProvider: %v %v", err, configured.Diagnostics)
	}
	s := schemas.ResourceSchemas[serviceTypeName]
	return &protoPlan{srv: srv, typeName: serviceTypeName, typ: s.ValueType().(tftypes.Object), schema: s}
}

// objectOf is an object of type t whose attributes are value(name, type).
func objectOf(t tftypes.Object, value func(name string, t tftypes.Type) tftypes.Value) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(t.AttributeTypes))
	for name, at := range t.AttributeTypes {
		vals[name] = value(name, at)
	}
	return tftypes.NewValue(t, vals)
}

// config is the configuration of a service named name (the bench's: name alone).
func (p *protoPlan) config(name string) tftypes.Value {
	return objectOf(p.typ, func(n string, t tftypes.Type) tftypes.Value {
		if n == "name" {
			return tftypes.NewValue(t, name)
		}
		return tftypes.NewValue(t, nil)
	})
}

// proposed is Terraform's proposed new state of a prior state and a configuration (top-level
// attributes): the configured value, else the prior value of a computed attribute, else null.
func (p *protoPlan) proposed(prior, config tftypes.Value) tftypes.Value {
	var pv, cv map[string]tftypes.Value
	_ = prior.As(&pv)
	_ = config.As(&cv)
	computed := map[string]bool{}
	for _, a := range p.schema.Block.Attributes {
		computed[a.Name] = a.Computed
	}
	return objectOf(p.typ, func(n string, t tftypes.Type) tftypes.Value {
		if !cv[n].IsNull() || !computed[n] {
			return cv[n]
		}
		return pv[n]
	})
}

// state is the JSON state of service id after an import and a refresh (as stored by Terraform), and
// its private state.
func (p *protoPlan) state(tb testing.TB, id string) ([]byte, []byte) {
	tb.Helper()
	ctx := context.Background()
	imp, err := p.srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: p.typeName, ID: id})
	if err != nil || len(imp.Diagnostics) > 0 || len(imp.ImportedResources) != 1 {
		tb.Fatalf("ImportResourceState: %v %v", err, imp.Diagnostics)
	}
	read, err := p.srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: p.typeName,
		CurrentState: imp.ImportedResources[0].State, Private: imp.ImportedResources[0].Private})
	if err != nil || len(read.Diagnostics) > 0 {
		tb.Fatalf("ReadResource: %v %v", err, read.Diagnostics)
	}
	v, err := read.NewState.Unmarshal(p.typ)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(plainValue(tb, v))
	if err != nil {
		tb.Fatal(err)
	}
	return b, read.Private
}

// plan makes the calls of one object's plan with nothing to change, and fails when the plan is not
// empty.
func (p *protoPlan) plan(ctx context.Context, raw, private []byte, config *tfprotov6.DynamicValue, configValue tftypes.Value) error {
	up, err := p.srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: p.typeName,
		RawState: &tfprotov6.RawState{JSON: raw}})
	if err := protoFailed("UpgradeResourceState", err, up.Diagnostics); err != nil {
		return err
	}
	valid, err := p.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: p.typeName, Config: config})
	if err := protoFailed("ValidateResourceConfig", err, valid.Diagnostics); err != nil {
		return err
	}
	read, err := p.srv.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: p.typeName, CurrentState: up.UpgradedState, Private: private})
	if err := protoFailed("ReadResource", err, read.Diagnostics); err != nil {
		return err
	}
	prior, err := read.NewState.Unmarshal(p.typ)
	if err != nil {
		return err
	}
	proposed, err := tfprotov6.NewDynamicValue(p.typ, p.proposed(prior, configValue))
	if err != nil {
		return err
	}
	planned, err := p.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: p.typeName,
		PriorState: read.NewState, ProposedNewState: &proposed, Config: config, PriorPrivate: read.Private})
	if err := protoFailed("PlanResourceChange", err, planned.Diagnostics); err != nil {
		return err
	}
	after, err := planned.PlannedState.Unmarshal(p.typ)
	if err != nil {
		return err
	}
	if !after.Equal(prior) || len(planned.RequiresReplace) > 0 {
		diffs, _ := after.Diff(prior)
		return fmt.Errorf("the plan is not empty: %v, replaces %v", diffs, planned.RequiresReplace)
	}
	return nil
}

func protoFailed(call string, err error, diags []*tfprotov6.Diagnostic) error {
	if err != nil {
		return fmt.Errorf("%s: %w", call, err)
	}
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s: %s", call, d.Summary, d.Detail)
		}
	}
	return nil
}

// BenchmarkPlanService measures the provider's calls of one service in a plan with nothing to change
// (protoPlan), the services' list shared as in a real plan (fetched before the measure): allocations
// per object, and cpu-ns/op, the process's CPU time (user and system, garbage collection included) per
// object, which a machine shared with other work disturbs far less than ns/op.
func BenchmarkPlanService(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) { benchmarkPlanService(b, n) })
	}
}

func benchmarkPlanService(b *testing.B, n int) {
	emu := emulator.NewServer(emulator.Options{AccessKey: testAccessKey, SecretKey: testSecretKey, Projects: []string{testProjectID}})
	defer emu.Close()
	client, err := api.New(api.Config{BaseURL: emu.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	type object struct {
		raw, private []byte
		config       tftypes.Value
		dv           tfprotov6.DynamicValue
	}
	p := newProtoPlan(b, emu.URL)
	objects := make([]object, n)
	for i := range objects {
		name := fmt.Sprintf("bench-%d", i)
		svc, err := client.CreateService(ctx, api.ServiceCreate{Name: name})
		if err != nil {
			b.Fatal(err)
		}
		o := &objects[i]
		o.raw, o.private = p.state(b, *svc.ServiceID)
		o.config = p.config(name)
		if o.dv, err = tfprotov6.NewDynamicValue(p.typ, o.config); err != nil {
			b.Fatal(err)
		}
	}
	p = newProtoPlan(b, emu.URL) // a fresh process: no list yet
	for i := range min(n, 100) { // the list fetched and every cache warm before the heap is measured
		o := &objects[i]
		if err := p.plan(ctx, o.raw, o.private, &o.dv, o.config); err != nil {
			b.Fatal(err)
		}
	}
	cpu0 := cpuTime()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		o := &objects[i%n]
		if err := p.plan(ctx, o.raw, o.private, &o.dv, o.config); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
}

// cpuTime is the CPU time the process used so far (user and system, every thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ---- the framework's floor: the same calls for a resource that does nothing ----

// floorProvider serves one resource, floor_static, that does nothing: attrs top-level string
// attributes (id and name among them, every other one computed like time_static's), its Read and plan
// left to the framework. What the framework costs for it is the floor of any resource with as many
// attributes, served by the same framework.
type floorProvider struct{ attrs int }

func (floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "floor"
}
func (floorProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (p floorProvider) Resources(context.Context) []func() fwresource.Resource {
	return []func() fwresource.Resource{func() fwresource.Resource { return floorResource(p) }}
}

type floorResource floorProvider

func (floorResource) Metadata(_ context.Context, _ fwresource.MetadataRequest, resp *fwresource.MetadataResponse) {
	resp.TypeName = "floor_static"
}

func (r floorResource) Schema(_ context.Context, _ fwresource.SchemaRequest, resp *fwresource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	attrs := map[string]schema.Attribute{
		"id":   schema.StringAttribute{Computed: true, PlanModifiers: keep},
		"name": schema.StringAttribute{Required: true},
	}
	for i := 2; i < r.attrs; i++ {
		attrs[fmt.Sprintf("a%02d", i)] = schema.StringAttribute{Computed: true, PlanModifiers: keep}
	}
	resp.Schema = schema.Schema{Attributes: attrs}
}

func (floorResource) Create(context.Context, fwresource.CreateRequest, *fwresource.CreateResponse) {}
func (floorResource) Read(context.Context, fwresource.ReadRequest, *fwresource.ReadResponse)       {}
func (floorResource) Update(context.Context, fwresource.UpdateRequest, *fwresource.UpdateResponse) {}
func (floorResource) Delete(context.Context, fwresource.DeleteRequest, *fwresource.DeleteResponse) {}

// BenchmarkPlanFloor makes BenchmarkPlanService's calls for floor_static with 10 attributes
// (time_static's count) and 35 (dbcloud_service's): the difference between the two is what the
// framework costs more for a larger schema, and BenchmarkPlanService minus the 35-attribute floor is
// what the provider itself costs.
func BenchmarkPlanFloor(b *testing.B) {
	for _, n := range []int{10, 35} {
		b.Run(fmt.Sprintf("attributes=%d", n), func(b *testing.B) { benchmarkPlanFloor(b, n) })
	}
}

func benchmarkPlanFloor(b *testing.B, n int) {
	ctx := context.Background()
	srv := providerserver.NewProtocol6(floorProvider{attrs: n})()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		b.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	cfg, err := tfprotov6.NewDynamicValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{}))
	if err != nil {
		b.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: &cfg}); err != nil || len(resp.Diagnostics) > 0 {
		b.Fatalf("ConfigureProvider: %v %v", err, resp.Diagnostics)
	}
	s := schemas.ResourceSchemas["floor_static"]
	p := &protoPlan{srv: srv, typeName: "floor_static", typ: s.ValueType().(tftypes.Object), schema: s}
	state := map[string]string{}
	for name := range p.typ.AttributeTypes {
		state[name] = "value-of-" + name
	}
	state["name"] = "bench-0"
	raw, err := json.Marshal(state)
	if err != nil {
		b.Fatal(err)
	}
	config := p.config("bench-0")
	dv, err := tfprotov6.NewDynamicValue(p.typ, config)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		if err := p.plan(ctx, raw, nil, &dv, config); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
}
