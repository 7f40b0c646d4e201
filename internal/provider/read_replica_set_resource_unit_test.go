package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Ctrl-C during the create's wait (Terraform cancels the provider's context): the set stays in state
// with its id and status creating, with a warning and no error, so Terraform does not taint it. The
// next plan (ModifyPlan) plans status active, and Update waits for the set without a second create.
func TestReadReplicaSetInterruptedCreateResumes(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ReplicaCreating = time.Hour })
	svc := netTestService(t, srv, "interrupted-parent")
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	r := &readReplicaSetResource{resourceBase{typeName: "_read_replica_set", pd: pd}}
	ctx := context.Background()
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	sch := sr.Schema
	typ := sch.Type().TerraformType(ctx)

	cfg := readReplicaSetModel{ServiceID: types.StringValue(svc), replicaSetFields: replicaSetFields{
		ID: types.StringUnknown(), Name: types.StringValue("interrupted"),
		Nodes: types.Int64Unknown(), CPUMillis: types.Int64Value(500), MemoryGbs: types.Int64Value(2),
		Environment: types.StringValue("PROD"), ConnectionPoolerEnabled: types.BoolValue(true),
		Status: types.StringUnknown(), Hostname: types.StringUnknown(), Port: types.Int64Unknown(),
		PoolerHostname: types.StringUnknown(), PoolerPort: types.Int64Unknown()},
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
	plan := tfsdk.Plan{Schema: sch, Raw: tftypes.NewValue(typ, nil)}
	if d := plan.Set(ctx, &cfg); d.HasError() {
		t.Fatal(d)
	}

	// Create, and interrupt it once the provider is polling the new set.
	cctx, cancel := context.WithCancel(ctx)
	createResp := fwresource.CreateResponse{State: tfsdk.State{Schema: sch, Raw: tftypes.NewValue(typ, nil)}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Create(cctx, fwresource.CreateRequest{Plan: plan}, &createResp)
	}()
	if !waitUntil(30*time.Second, func() bool { return srv.Calls("createReplicaSet") >= 1 }) {
		cancel()
		t.Fatal("the create never polled the new set")
	}
	// GET of a set is a list call: wait for two polls of the new set.
	after := srv.Calls("listReplicaSets")
	if !waitUntil(30*time.Second, func() bool { return srv.Calls("listReplicaSets") >= after+2 }) {
		cancel()
		t.Fatal("the create did not poll the new set twice")
	}
	cancel()
	<-done

	if createResp.Diagnostics.HasError() {
		t.Fatalf("an interrupted wait must not be an error (Terraform would taint the set): %v", createResp.Diagnostics)
	}
	if createResp.Diagnostics.WarningsCount() != 1 || !strings.Contains(createResp.Diagnostics.Warnings()[0].Detail(), "next terraform apply waits") {
		t.Fatalf("want one warning saying the next apply waits, got %v", createResp.Diagnostics)
	}
	var state readReplicaSetModel
	if d := createResp.State.Get(ctx, &state); d.HasError() {
		t.Fatal(d)
	}
	id := state.ID.ValueString()
	if id == "" || state.Status.ValueString() != string(api.ReplicaSetStatusCreating) {
		t.Fatalf("state after the interrupt: id %q status %s, want an id and status creating", id, state.Status)
	}
	// The warning's detail (createMessages, data) names the set as state has it.
	if d := createResp.Diagnostics.Warnings()[0].Detail(); !strings.Contains(d, "("+id+") of service") || !strings.Contains(d, `(status "creating")`) {
		t.Errorf("the warning does not name the set's id %s and status creating: %s", id, d)
	}

	// The next plan: ModifyPlan sees status creating and plans active (an Update that waits).
	prior := tfsdk.State{Schema: sch, Raw: createResp.State.Raw}
	next := cfg
	next.ID, next.Status, next.Hostname, next.Port = state.ID, state.Status, state.Hostname, state.Port
	next.Nodes, next.PoolerHostname, next.PoolerPort = state.Nodes, state.PoolerHostname, state.PoolerPort
	nextPlan := tfsdk.Plan{Schema: sch, Raw: tftypes.NewValue(typ, nil)}
	if d := nextPlan.Set(ctx, &next); d.HasError() {
		t.Fatal(d)
	}
	mpResp := fwresource.ModifyPlanResponse{Plan: nextPlan}
	r.ModifyPlan(ctx, fwresource.ModifyPlanRequest{State: prior, Plan: nextPlan, Config: tfsdk.Config{Schema: sch, Raw: nextPlan.Raw}}, &mpResp)
	if mpResp.Diagnostics.HasError() {
		t.Fatal(mpResp.Diagnostics)
	}
	var planned types.String
	mpResp.Plan.GetAttribute(ctx, path.Root("status"), &planned)
	if planned.ValueString() != string(api.ReplicaSetStatusActive) {
		t.Fatalf("the next plan must plan status active (so Update waits), got %s", planned)
	}

	// The next apply: Update waits until the set is active, then applies the pooler and the environment.
	// The set turns active once Update has polled it twice (not after a fixed time, which a busy
	// machine can overrun before Update's first poll).
	polls := srv.Calls("listReplicaSets")
	go func() {
		waitUntil(30*time.Second, func() bool { return srv.Calls("listReplicaSets") >= polls+2 })
		srv.SetReplicaSetStatus(testProjectID, svc, id, api.ReplicaSetStatusActive)
	}()
	updResp := fwresource.UpdateResponse{State: tfsdk.State{Schema: sch, Raw: prior.Raw}}
	r.Update(ctx, fwresource.UpdateRequest{Plan: mpResp.Plan, State: prior}, &updResp)
	if updResp.Diagnostics.HasError() {
		t.Fatal(updResp.Diagnostics)
	}
	if err := updResp.State.Get(ctx, &state); err.HasError() {
		t.Fatal(err)
	}
	if state.ID.ValueString() != id || state.Status.ValueString() != "active" || !state.ConnectionPoolerEnabled.ValueBool() || state.Environment.ValueString() != "PROD" {
		t.Fatalf("after the resumed apply: id %s status %s pooler %s env %s", state.ID, state.Status, state.ConnectionPoolerEnabled, state.Environment)
	}
	if srv.Calls("listReplicaSets")-polls < 2 {
		t.Fatal("Update did not wait for the set")
	}
	if n := srv.Calls("createReplicaSet"); n != 1 {
		t.Fatalf("createReplicaSet sent %d times, want 1", n)
	}
}
