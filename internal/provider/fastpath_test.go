package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The protocol shortcuts (fastpath.go) must answer exactly what the framework answers. These tests
// put both servers side by side on generated states and configurations.

// fastPathServers returns the framework's server and the provider's (shortcuts included) for the
// same provider.
func fastPathServers(t *testing.T) (tfprotov6.ProviderServer, *fastServer) {
	t.Helper()
	p := New("test")()
	inner, err := providerserver.NewProtocol6WithError(p)()
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := protocol6(p, allShortcuts)()
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := wrapped.(*fastServer)
	if !ok {
		t.Fatalf("protocol6 returned %T, not the shortcut server", wrapped)
	}
	return inner, fast
}

// sampleValue returns a value of type typ: null about one time in four, else a small value.
func sampleValue(r *rand.Rand, typ tftypes.Type) tftypes.Value {
	if r.Intn(4) == 0 {
		return tftypes.NewValue(typ, nil)
	}
	switch tt := typ.(type) {
	case tftypes.Object:
		attrs := make(map[string]tftypes.Value, len(tt.AttributeTypes))
		for name, at := range tt.AttributeTypes {
			attrs[name] = sampleValue(r, at)
		}
		return tftypes.NewValue(tt, attrs)
	case tftypes.Set:
		return tftypes.NewValue(tt, []tftypes.Value{sampleValue(r, tt.ElementType)})
	case tftypes.List:
		return tftypes.NewValue(tt, []tftypes.Value{sampleValue(r, tt.ElementType)})
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, fmt.Sprintf("v%d", r.Intn(3)))
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, big.NewFloat(float64(r.Intn(3))))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, r.Intn(2) == 0)
	}
	return tftypes.NewValue(typ, nil)
}

// fastPathCase is one unchanged plan: prior state, configuration (proposed new state = prior, as
// Terraform proposes it for such a configuration), private state and prior identity.
type fastPathCase struct {
	prior, config map[string]tftypes.Value
	private       []byte
	identity      *tfprotov6.ResourceIdentityData
}

// genServiceCase builds a random unchanged plan of dbcloud_service over its real schema: required and
// optional arguments are in the configuration as in state, optional+computed ones are either in it
// or absent, computed-only and write-only ones are absent.
func genServiceCase(r *rand.Rand, sch *tfprotov6.Schema, idType tftypes.Type) fastPathCase {
	typ := sch.ValueType().(tftypes.Object)
	c := fastPathCase{prior: map[string]tftypes.Value{}, config: map[string]tftypes.Value{}}
	for name, at := range typ.AttributeTypes {
		c.prior[name] = sampleValue(r, at)
	}
	statuses := []string{"READY", "PAUSED", "CONFIGURING", "QUEUED", "UNSTABLE", "DELETING", "RESUMING"}
	if r.Intn(5) > 0 {
		c.prior["status"] = tftypes.NewValue(tftypes.String, statuses[r.Intn(len(statuses))])
	}
	for _, a := range sch.Block.Attributes {
		v := c.prior[a.Name]
		switch {
		case a.WriteOnly:
			c.prior[a.Name] = tftypes.NewValue(typ.AttributeTypes[a.Name], nil)
			c.config[a.Name] = c.prior[a.Name]
		case a.Computed && !a.Optional:
			c.config[a.Name] = tftypes.NewValue(typ.AttributeTypes[a.Name], nil)
		case a.Computed && a.Optional && r.Intn(2) == 0:
			c.config[a.Name] = tftypes.NewValue(typ.AttributeTypes[a.Name], nil)
		default:
			c.config[a.Name] = v
		}
	}
	for _, b := range sch.Block.BlockTypes {
		c.config[b.TypeName] = c.prior[b.TypeName]
	}
	switch r.Intn(4) {
	case 0:
		c.private = []byte(`{"resume_create":"dHJ1ZQ=="}`) // "true"
	case 1:
		c.private = []byte(`{"addons_derived":"dHJ1ZQ=="}`)
	}
	if r.Intn(3) > 0 {
		idv, _ := tfprotov6.NewDynamicValue(idType, tftypes.NewValue(idType, map[string]tftypes.Value{
			"id":         c.prior["id"],
			"project_id": c.prior["project_id"],
		}))
		c.identity = &tfprotov6.ResourceIdentityData{IdentityData: &idv}
	}
	return c
}

func (c fastPathCase) request(t *testing.T, typ tftypes.Type) *tfprotov6.PlanResourceChangeRequest {
	t.Helper()
	dv := func(attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	return &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "dbcloud_service",
		PriorState:       dv(c.prior),
		ProposedNewState: dv(c.prior),
		Config:           dv(c.config),
		PriorPrivate:     c.private,
		PriorIdentity:    c.identity,
	}
}

// answer is what a plan or a read answers: state, private state and identity.
type answer struct {
	state    *tfprotov6.DynamicValue
	private  []byte
	identity *tfprotov6.ResourceIdentityData
}

// sameAnswer fails case i when the shortcut's answer differs from the framework's.
func sameAnswer(t *testing.T, i int, typ, idType tftypes.Type, short, framework answer) {
	t.Helper()
	got, _ := short.state.Unmarshal(typ)
	exp, _ := framework.state.Unmarshal(typ)
	if diffs, _ := got.Diff(exp); len(diffs) > 0 {
		t.Fatalf("case %d: state differs from the framework's at %v:\nshortcut  %v\nframework %v", i, diffs[0].Path, diffs[0].Value1, diffs[0].Value2)
	}
	if g, w := decodePrivate(t, short.private), decodePrivate(t, framework.private); fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("case %d: private %s, framework %s", i, short.private, framework.private)
	}
	gi, _ := short.identity.IdentityData.Unmarshal(idType)
	wi, _ := framework.identity.IdentityData.Unmarshal(idType)
	if !gi.Equal(wi) {
		t.Fatalf("case %d: identity %v, framework %v", i, gi, wi)
	}
}

// decodePrivate decodes private state bytes; nil and an empty object are the same.
func decodePrivate(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	m := map[string]json.RawMessage{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("private state %q: %v", b, err)
		}
	}
	return m
}

func TestFastPathMatchesFramework(t *testing.T) {
	ctx := context.Background()
	inner, fast := fastPathServers(t)
	schemas, err := inner.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := inner.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sch := schemas.ResourceSchemas["dbcloud_service"]
	typ, idType := sch.ValueType(), ids.IdentitySchemas["dbcloud_service"].ValueType()

	r := rand.New(rand.NewSource(1))
	taken, declined, declinedNeeded := 0, 0, 0
	for i := range 1000 {
		c := genServiceCase(r, sch, idType)
		req := c.request(t, typ)
		short := fast.unchangedPlan(ctx, req)
		want, err := inner.PlanResourceChange(ctx, c.request(t, typ))
		if err != nil {
			t.Fatal(err)
		}
		if short == nil {
			declined++
			if len(want.Diagnostics) > 0 || want.PlannedState == nil {
				continue
			}
			wantState, _ := want.PlannedState.Unmarshal(typ)
			priorState, _ := req.PriorState.Unmarshal(typ)
			if !wantState.Equal(priorState) {
				declinedNeeded++ // the framework's plan is not the prior state: declining was necessary
			}
			continue
		}
		taken++
		if len(want.Diagnostics) > 0 {
			t.Fatalf("case %d: the shortcut answered, but the framework has diagnostics: %v", i, want.Diagnostics[0])
		}
		if len(want.RequiresReplace) > 0 {
			t.Fatalf("case %d: the shortcut answered, but the framework replaces %v", i, want.RequiresReplace)
		}
		sameAnswer(t, i, typ, idType,
			answer{short.PlannedState, short.PlannedPrivate, short.PlannedIdentity},
			answer{want.PlannedState, want.PlannedPrivate, want.PlannedIdentity})
	}
	t.Logf("1000 unchanged plans: shortcut taken %d, declined %d (%d of which the framework plans differently)", taken, declined, declinedNeeded)
	if taken < 100 || declinedNeeded < 100 {
		t.Fatalf("the cases do not exercise both sides: taken %d, declined where needed %d", taken, declinedNeeded)
	}
}

// A plan with a change, a create, a destroy and other resource types are never answered here.
func TestFastPathLeavesOtherPlansToFramework(t *testing.T) {
	ctx := context.Background()
	inner, fast := fastPathServers(t)
	schemas, _ := inner.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	sch := schemas.ResourceSchemas["dbcloud_service"]
	typ := sch.ValueType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["id"] = tftypes.NewValue(tftypes.String, "svc1")
	attrs["name"] = tftypes.NewValue(tftypes.String, "a")
	attrs["status"] = tftypes.NewValue(tftypes.String, "READY")
	attrs["deletion_protection"] = tftypes.NewValue(tftypes.Bool, false)
	dv := func(a map[string]tftypes.Value) *tfprotov6.DynamicValue {
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, a))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	renamed := map[string]tftypes.Value{}
	for k, v := range attrs {
		renamed[k] = v
	}
	renamed["name"] = tftypes.NewValue(tftypes.String, "b")
	unchanged := &tfprotov6.PlanResourceChangeRequest{TypeName: "dbcloud_service", PriorState: dv(attrs), ProposedNewState: dv(attrs), Config: dv(attrs)}
	if fast.unchangedPlan(ctx, unchanged) == nil {
		t.Fatal("the unchanged plan of a READY service was not answered by the shortcut")
	}
	for name, req := range map[string]*tfprotov6.PlanResourceChangeRequest{
		"change":     {TypeName: "dbcloud_service", PriorState: dv(attrs), ProposedNewState: dv(renamed), Config: dv(renamed)},
		"create":     {TypeName: "dbcloud_service", PriorState: &null, ProposedNewState: dv(attrs), Config: dv(attrs)},
		"destroy":    {TypeName: "dbcloud_service", PriorState: dv(attrs), ProposedNewState: &null, Config: &null},
		"other type": {TypeName: "dbcloud_vpc", PriorState: dv(attrs), ProposedNewState: dv(attrs), Config: dv(attrs)},
	} {
		if fast.unchangedPlan(ctx, req) != nil {
			t.Errorf("%s: answered by the shortcut", name)
		}
	}
}

// UpgradeResourceState of a state at the current version answers what the framework answers,
// including for attributes the schema does not have; other versions go to the framework.
func TestFastPathUpgradeMatchesFramework(t *testing.T) {
	ctx := context.Background()
	inner, fast := fastPathServers(t)
	schemas, _ := inner.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	for _, name := range []string{"dbcloud_service", "dbcloud_vpc", "dbcloud_vpc_peering", "dbcloud_read_replica_set"} {
		typ := schemas.ResourceSchemas[name].ValueType()
		for _, raw := range []string{
			`{"id":"x1","name":"n","removed_attribute":"dropped"}`,
			`{"id":"x1"}`,
			`{"id":17}`, // a wrong type: both fail the same way
			`not json`,  // the framework's error
		} {
			for _, version := range []int64{0, 1} {
				req := func() *tfprotov6.UpgradeResourceStateRequest {
					return &tfprotov6.UpgradeResourceStateRequest{TypeName: name, Version: version, RawState: &tfprotov6.RawState{JSON: []byte(raw)}}
				}
				got, err1 := fast.UpgradeResourceState(ctx, req())
				want, err2 := inner.UpgradeResourceState(ctx, req())
				if err1 != nil || err2 != nil {
					t.Fatalf("%s %s v%d: errors %v / %v", name, raw, version, err1, err2)
				}
				if (len(got.Diagnostics) > 0) != (len(want.Diagnostics) > 0) {
					t.Fatalf("%s %s v%d: diagnostics %v, framework %v", name, raw, version, got.Diagnostics, want.Diagnostics)
				}
				if (got.UpgradedState == nil) != (want.UpgradedState == nil) {
					t.Fatalf("%s %s v%d: state %v, framework %v", name, raw, version, got.UpgradedState, want.UpgradedState)
				}
				if got.UpgradedState != nil {
					g, _ := got.UpgradedState.Unmarshal(typ)
					w, _ := want.UpgradedState.Unmarshal(typ)
					if !g.Equal(w) {
						t.Fatalf("%s %s v%d: state %v, framework %v", name, raw, version, g, w)
					}
				}
			}
		}
	}
}

// configureForTest configures the provider behind server against the emulator srv.
func configureForTest(t *testing.T, server tfprotov6.ProviderServer, srv *emulator.Server) {
	t.Helper()
	ctx := context.Background()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.Provider.ValueType().(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(at, nil)
	}
	attrs["base_url"] = tftypes.NewValue(tftypes.String, srv.URL)
	attrs["access_key"] = tftypes.NewValue(tftypes.String, testAccessKey)
	attrs["secret_key"] = tftypes.NewValue(tftypes.String, testSecretKey)
	attrs["project_id"] = tftypes.NewValue(tftypes.String, testProjectID)
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: &cfg})
	if err != nil || diagsHaveError(resp.Diagnostics) {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
}

// TestFastPathReadMatchesFramework: on states made by the framework's own Read (an import of each
// service), then changed at random (drift in state), and on services changed or deleted at the API,
// a Read the shortcut answers is exactly the framework's answer.
func TestFastPathReadMatchesFramework(t *testing.T) {
	if serviceModelCodec() == nil {
		t.Fatal("serviceResourceModel does not match the dbcloud_service schema: the read shortcut is off")
	}
	ctx := context.Background()
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing = emulator.Timing{} })
	plain := testClient(t, srv)
	var ids []string
	for i := range 6 {
		svc, err := plain.CreateService(ctx, api.ServiceCreate{Name: fmt.Sprintf("read-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, *svc.ServiceID)
	}
	wrapped, err := protocol6(New("test")(), allShortcuts)()
	if err != nil {
		t.Fatal(err)
	}
	fast := wrapped.(*fastServer)
	configureForTest(t, fast, srv)
	schemas, _ := fast.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	idSchemas, _ := fast.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	typ := schemas.ResourceSchemas["dbcloud_service"].ValueType().(tftypes.Object)
	idType := idSchemas.IdentitySchemas["dbcloud_service"].ValueType()
	dv := func(attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	frameworkRead := func(req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
		resp, err := fast.frameworkServer.ReadResource(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// The state the framework's Read makes of each service, starting from an imported id.
	states := map[string]map[string]tftypes.Value{}
	for _, id := range ids {
		attrs := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			attrs[name] = tftypes.NewValue(at, nil)
		}
		attrs["id"] = tftypes.NewValue(tftypes.String, id)
		resp := frameworkRead(&tfprotov6.ReadResourceRequest{TypeName: "dbcloud_service", CurrentState: dv(attrs)})
		if len(resp.Diagnostics) > 0 || resp.NewState == nil {
			t.Fatalf("import read of %s: %v", id, resp.Diagnostics)
		}
		if fast.unchangedRead(ctx, &tfprotov6.ReadResourceRequest{TypeName: "dbcloud_service", CurrentState: dv(attrs)}) != nil {
			t.Fatalf("the shortcut answered the import read of %s, whose state changes", id)
		}
		v, _ := resp.NewState.Unmarshal(typ)
		var full map[string]tftypes.Value
		if err := v.As(&full); err != nil {
			t.Fatal(err)
		}
		states[id] = full
	}

	// Drift at the API: a renamed, a paused and a deleted service.
	if _, err := plain.RenameService(ctx, ids[0], "renamed"); err != nil {
		t.Fatal(err)
	}
	srv.PauseService(testProjectID, ids[1])
	if err := plain.DeleteService(ctx, ids[2]); err != nil {
		t.Fatal(err)
	}
	changedAtAPI := map[string]bool{ids[0]: true, ids[1]: true, ids[2]: true}
	// A new provider process: its refresh shares one list that is read after the changes.
	wrapped, err = protocol6(New("test")(), allShortcuts)()
	if err != nil {
		t.Fatal(err)
	}
	fast = wrapped.(*fastServer)
	configureForTest(t, fast, srv)

	r := rand.New(rand.NewSource(2))
	taken, declined := 0, 0
	for i := range 400 {
		id := ids[r.Intn(len(ids))]
		prior := map[string]tftypes.Value{}
		for k, v := range states[id] {
			prior[k] = v
		}
		// Change a few attributes of the state at random (drift in state, config-only values).
		for range r.Intn(3) {
			names := []string{"name", "cpu_millis", "status", "paused", "deletion_protection", "addons", "password",
				"timeouts", "fork", "hostname", "environment", "password_wo_version", "project_id"}
			name := names[r.Intn(len(names))]
			prior[name] = sampleValue(r, typ.AttributeTypes[name])
		}
		var private []byte
		switch r.Intn(4) {
		case 0:
			private = []byte(`{"addons_derived":"dHJ1ZQ=="}`)
		case 1:
			private = []byte(`{".import_before_read":"dHJ1ZQ=="}`)
		}
		var identity *tfprotov6.ResourceIdentityData
		if r.Intn(2) == 0 {
			idv, _ := tfprotov6.NewDynamicValue(idType, tftypes.NewValue(idType, map[string]tftypes.Value{
				"id": prior["id"], "project_id": tftypes.NewValue(tftypes.String, testProjectID),
			}))
			identity = &tfprotov6.ResourceIdentityData{IdentityData: &idv}
		}
		req := func() *tfprotov6.ReadResourceRequest {
			return &tfprotov6.ReadResourceRequest{TypeName: "dbcloud_service", CurrentState: dv(prior), Private: private, CurrentIdentity: identity}
		}
		short := fast.unchangedRead(ctx, req())
		want := frameworkRead(req())
		if short == nil {
			declined++
			continue
		}
		taken++
		if changedAtAPI[id] {
			t.Fatalf("case %d: the shortcut answered the Read of %s, which changed at the API", i, id)
		}
		if len(want.Diagnostics) > 0 || want.NewState == nil {
			t.Fatalf("case %d: the shortcut answered, the framework says %v", i, want.Diagnostics)
		}
		sameAnswer(t, i, typ, idType,
			answer{short.NewState, short.Private, short.NewIdentity},
			answer{want.NewState, want.Private, want.NewIdentity})
	}
	t.Logf("400 reads: shortcut taken %d, declined %d", taken, declined)
	if taken < 40 || declined < 40 {
		t.Fatalf("the cases do not exercise both sides: taken %d, declined %d", taken, declined)
	}
}
