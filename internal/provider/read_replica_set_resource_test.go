package provider

import (
	"context"
	"fmt"
	"regexp"
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
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// dbcloud_read_replica_set acceptance tests.

const rsAddr = "dbcloud_read_replica_set.test"

func rsConfig(srv *emulatortest.Server, serviceID, name string, body string) string {
	return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_read_replica_set" "test" {
  service_id = %q
  name       = %q
%s
  timeouts {
    create = "5m"
  }
}
`, serviceID, name, body)
}

func TestAccReadReplicaSet_lifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	svcA := netTestService(t, srv, "rs-parent-a")
	svcB := netTestService(t, srv, "rs-parent-b")
	var firstID, secondID, thirdID string

	small := `
  cpu_millis = 500
  memory_gbs = 2`
	resized := `
  cpu_millis = 1000
  memory_gbs = 4`
	big := `
  nodes      = 2
  cpu_millis = 1000
  memory_gbs = 4`
	bigPooled := big + `
  connection_pooler_enabled = true
  environment               = "PROD"`
	bigUnpooled := big + `
  connection_pooler_enabled = false
  environment               = "DEV"`

	resource.ParallelTest(t, testCase(t, srv,
		// Create with the defaults: one node, no pooler, DEV.
		resource.TestStep{
			Config:           rsConfig(srv, svcA, "reader", small),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(rsAddr, "id", &firstID),
				resource.TestCheckResourceAttr(rsAddr, "service_id", svcA),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				resource.TestCheckResourceAttr(rsAddr, "nodes", "1"),
				resource.TestCheckResourceAttr(rsAddr, "cpu_millis", "500"),
				resource.TestCheckResourceAttr(rsAddr, "memory_gbs", "2"),
				resource.TestCheckResourceAttr(rsAddr, "environment", "DEV"),
				resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "false"),
				resource.TestCheckResourceAttrSet(rsAddr, "hostname"),
				resource.TestCheckResourceAttr(rsAddr, "port", "5432"),
				resource.TestCheckNoResourceAttr(rsAddr, "pooler_hostname"),
				resource.TestCheckNoResourceAttr(rsAddr, "pooler_port"),
				func(*terraform.State) error {
					rs, ok := srv.ReplicaSet(testProjectID, svcA, firstID)
					if !ok || deref(rs.Status) != api.ReplicaSetStatusActive || deref(rs.Name) != "reader" {
						return fmt.Errorf("emulator: replica set %s found=%v status=%s", firstID, ok, deref(rs.Status))
					}
					return nil
				},
			),
		},
		// Import by <service_id>/<replica_set_id>.
		resource.TestStep{
			ResourceName:            rsAddr,
			ImportState:             true,
			ImportStateIdFunc:       netTestImportID(rsAddr, "service_id", "id"),
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
		// cpu and memory change in place, in one resize call whose body carries digit strings and no nodes.
		resource.TestStep{
			Config: rsConfig(srv, svcA, "reader", resized),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("hostname"), knownvalue.NotNull()),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("pooler_hostname"), knownvalue.Null()),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("nodes"), knownvalue.Int64Exact(1)),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(rsAddr, "id", &firstID),
				resource.TestCheckResourceAttr(rsAddr, "nodes", "1"),
				resource.TestCheckResourceAttr(rsAddr, "cpu_millis", "1000"),
				resource.TestCheckResourceAttr(rsAddr, "memory_gbs", "4"),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				netTestCalls(srv, "resizeReplicaSet", 1),
				rsResizeBodies(srv, `{"cpu_millis":"1000","memory_gbs":"4"}`),
				func(*terraform.State) error {
					rs, _ := srv.ReplicaSet(testProjectID, svcA, firstID)
					if deref(rs.Nodes) != 1 || deref(rs.CPUMillis) != 1000 || deref(rs.MemoryGbs) != 4 {
						return fmt.Errorf("emulator: replica set is %d x %v/%v", deref(rs.Nodes), deref(rs.CPUMillis), deref(rs.MemoryGbs))
					}
					return nil
				},
			),
		},
		// A nodes change replaces the set: the live resize call cannot change the node count.
		resource.TestStep{
			Config: rsConfig(srv, svcA, "reader", big),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionReplace),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				func(s *terraform.State) error {
					id, err := netTestAttr(s, rsAddr, "id")
					if err != nil {
						return err
					}
					if id == firstID {
						return fmt.Errorf("nodes change: the set kept id %s, want a new set", id)
					}
					if _, ok := srv.ReplicaSet(testProjectID, svcA, firstID); ok {
						return fmt.Errorf("nodes change: the replaced set %s still exists", firstID)
					}
					firstID = id
					return nil
				},
				resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
				resource.TestCheckResourceAttr(rsAddr, "cpu_millis", "1000"),
				resource.TestCheckResourceAttr(rsAddr, "memory_gbs", "4"),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				netTestCalls(srv, "resizeReplicaSet", 1),
				netTestCalls(srv, "createReplicaSet", 2),
				func(*terraform.State) error {
					rs, _ := srv.ReplicaSet(testProjectID, svcA, firstID)
					if deref(rs.Nodes) != 2 || deref(rs.CPUMillis) != 1000 || deref(rs.MemoryGbs) != 4 {
						return fmt.Errorf("emulator: replica set is %d x %v/%v", deref(rs.Nodes), deref(rs.CPUMillis), deref(rs.MemoryGbs))
					}
					return nil
				},
			),
		},
		// Pooler on and environment PROD, in place; only the pooler endpoint is unknown in the plan.
		resource.TestStep{
			Config: rsConfig(srv, svcA, "reader", bigPooled),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(rsAddr, tfjsonpath.New("pooler_hostname")),
				plancheck.ExpectUnknownValue(rsAddr, tfjsonpath.New("pooler_port")),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("hostname"), knownvalue.NotNull()),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(rsAddr, "id", &firstID),
				resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttrSet(rsAddr, "pooler_hostname"),
				resource.TestCheckResourceAttr(rsAddr, "pooler_port", "6432"),
				resource.TestCheckResourceAttr(rsAddr, "environment", "PROD"),
				netTestCalls(srv, "resizeReplicaSet", 1),
				netTestCalls(srv, "enableReplicaSetPooler", 1),
				netTestCalls(srv, "setReplicaSetEnvironment", 1),
			),
		},
		// Pooler off and environment DEV, in place.
		resource.TestStep{
			Config:           rsConfig(srv, svcA, "reader", bigUnpooled),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(rsAddr, "id", &firstID),
				resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "false"),
				resource.TestCheckNoResourceAttr(rsAddr, "pooler_hostname"),
				resource.TestCheckNoResourceAttr(rsAddr, "pooler_port"),
				resource.TestCheckResourceAttr(rsAddr, "environment", "DEV"),
				netTestCalls(srv, "disableReplicaSetPooler", 1),
				netTestCalls(srv, "setReplicaSetEnvironment", 2),
			),
		},
		// Drift: the set is deleted behind Terraform's back; the plan re-creates it.
		resource.TestStep{
			PreConfig: func() {
				if !srv.RemoveReplicaSet(testProjectID, svcA, firstID) {
					t.Fatalf("replica set %s was not in the emulator", firstID)
				}
			},
			Config:           rsConfig(srv, svcA, "reader", bigUnpooled),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(rsAddr, "id", &secondID),
				func(*terraform.State) error {
					if secondID == firstID {
						return fmt.Errorf("the set was not re-created (id %s)", secondID)
					}
					return nil
				},
				resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
			),
		},
		// A new name replaces the set.
		resource.TestStep{
			Config:           rsConfig(srv, svcA, "reader-2", bigUnpooled),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionDestroyBeforeCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(rsAddr, "id", &thirdID),
				resource.TestCheckResourceAttr(rsAddr, "name", "reader-2"),
				func(*terraform.State) error {
					if _, ok := srv.ReplicaSet(testProjectID, svcA, secondID); ok {
						return fmt.Errorf("the replaced set %s still exists", secondID)
					}
					return nil
				},
			),
		},
		// Another service replaces the set.
		resource.TestStep{
			Config:           rsConfig(srv, svcB, "reader-2", bigUnpooled),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionDestroyBeforeCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(rsAddr, "service_id", svcB),
				func(s *terraform.State) error {
					if _, ok := srv.ReplicaSet(testProjectID, svcA, thirdID); ok {
						return fmt.Errorf("the replaced set %s is still on service %s", thirdID, svcA)
					}
					id, err := netTestAttr(s, rsAddr, "id")
					if _, ok := srv.ReplicaSet(testProjectID, svcB, id); err != nil || !ok {
						return fmt.Errorf("set %s is not on service %s (%w)", id, svcB, err)
					}
					return nil
				},
			),
		},
		// A malformed import id is rejected with the expected form.
		resource.TestStep{
			ResourceName:  rsAddr,
			ImportState:   true,
			ImportStateId: "only-one-part",
			ExpectError:   regexp.MustCompile(`<service_id>/<replica_set_id>`),
		},
	))
}

// A replica set deleted behind Terraform's back leaves state on the next refresh, and the next plan
// creates it again.
func TestAccReadReplicaSet_disappears(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "rs-disappears")
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: rsConfig(srv, svc, "reader", "  cpu_millis = 500\n  memory_gbs = 2"),
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckReadReplicaSetExists(srv, rsAddr),
				testAccCheckReadReplicaSetDisappears(srv, rsAddr),
			),
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionCreate)},
			},
		},
	))
}

// rsResizeBodies checks the bodies of every resizeReplicaSet request the emulator logged: each must be
// want exactly (digit strings, no nodes), as the live API takes them.
func rsResizeBodies(srv *emulatortest.Server, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		n := 0
		for _, r := range srv.Requests() {
			if r.OperationID != "resizeReplicaSet" {
				continue
			}
			n++
			if got := strings.TrimSpace(string(r.Body)); got != want {
				return fmt.Errorf("resizeReplicaSet body %s, want %s", got, want)
			}
		}
		if n == 0 {
			return fmt.Errorf("no resizeReplicaSet request was logged")
		}
		return nil
	}
}

// Removing an optional argument from the configuration never changes or replaces anything: the
// object keeps the server's value. Every optional argument of dbcloud_read_replica_set is set to a
// value other than its create-time default, then removed: the plan is empty (one argument at a time,
// then all of them at once). dbcloud_vpc and dbcloud_vpc_peering have no optional arguments (every
// argument is required), so they have no row here.
func TestAccNetOptionalArgumentsRemoved(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "omit-parent")
	optional := map[string]string{
		"nodes":                     "nodes = 2",
		"environment":               `environment = "PROD"`,
		"connection_pooler_enabled": "connection_pooler_enabled = true",
	}
	body := func(except ...string) string {
		var b strings.Builder
		b.WriteString("  cpu_millis = 500\n  memory_gbs = 2\n")
		for _, name := range []string{"nodes", "environment", "connection_pooler_enabled"} {
			skip := false
			for _, e := range except {
				skip = skip || e == name
			}
			if !skip {
				b.WriteString("  " + optional[name] + "\n")
			}
		}
		return b.String()
	}
	steps := []resource.TestStep{{
		Config: rsConfig(srv, svc, "omit", body()),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
			resource.TestCheckResourceAttr(rsAddr, "environment", "PROD"),
			resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "true"),
		),
	}}
	for _, name := range []string{"nodes", "environment", "connection_pooler_enabled"} {
		steps = append(steps, resource.TestStep{
			Config:   rsConfig(srv, svc, "omit", body(name)),
			PlanOnly: true, // fails on any planned change
		})
	}
	// All removed at once, applied: nothing is sent, the set keeps its values.
	steps = append(steps, resource.TestStep{
		PreConfig: srv.ResetRequests,
		Config:    rsConfig(srv, svc, "omit", body("nodes", "environment", "connection_pooler_enabled")),
		ConfigPlanChecks: emptyPlanAfterApply(
			plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionNoop),
			plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("nodes"), knownvalue.Int64Exact(2)),
		),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
			resource.TestCheckResourceAttr(rsAddr, "environment", "PROD"),
			resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "true"),
			func(*terraform.State) error {
				for _, r := range srv.Requests() {
					if r.Method != "GET" {
						return fmt.Errorf("removing optional arguments sent %s %s", r.Method, r.Path)
					}
				}
				return nil
			},
		),
	})
	resource.ParallelTest(t, testCase(t, srv, steps...))
}

// A set whose status is creating in state (an apply interrupted during the create's wait, here put
// there through the emulator) plans an update to active, and the apply waits for the set: same id, no
// second create.
func TestAccReadReplicaSet_resumesTransitionalStatus(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "resume-parent")
	cfg := rsConfig(srv, svc, "resumed", "  cpu_millis = 500\n  memory_gbs = 2\n")
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg, Check: netTestCapture(rsAddr, "id", &id)},
		resource.TestStep{
			PreConfig: func() {
				srv.SetReplicaSetStatus(testProjectID, svc, id, api.ReplicaSetStatusCreating)
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check:              resource.TestCheckResourceAttr(rsAddr, "status", "creating"),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.ResetRequests()
				go func() {
					// Active once the apply has polled the set a few times (bounded: a failed step
					// must not leave this goroutine behind).
					waitUntil(2*time.Minute, func() bool { return srv.Calls("listReplicaSets") >= 3 })
					srv.SetReplicaSetStatus(testProjectID, svc, id, api.ReplicaSetStatusActive)
				}()
			},
			Config: cfg,
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(rsAddr, "id", &id),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				netTestCalls(srv, "createReplicaSet", 0),
			),
		},
	))
}

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

// A read replica set on a service the plan knows is paused, and a change of a set on one, fail at
// plan; a plan that resumes the service in the same apply is not refused.
func TestAccFirstContact_replicaSetOnPausedService(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := func(paused bool, set string) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "fc" {
  name   = "first-contact"
  paused = %t
}
%s`, paused, set)
	}
	set := func(name string, cpu int) string {
		return fmt.Sprintf(`
resource "dbcloud_read_replica_set" %q {
  service_id = dbcloud_service.fc.id
  name       = %q
  cpu_millis = %d
  memory_gbs = %d
}
`, name, name, cpu, cpu/250)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg(false, set("reader", 500))},
		resource.TestStep{Config: cfg(true, set("reader", 500))},
		resource.TestStep{
			Config: cfg(true, set("reader", 1000)), PlanOnly: true,
			ExpectError: words("Service is paused", "read replica set", "(reader) cannot be changed", "Set paused = false"),
		},
		resource.TestStep{
			Config: cfg(true, set("reader", 500)+set("reader2", 500)), PlanOnly: true,
			ExpectError: words("Service is paused", `read replica set "reader2" cannot be created`),
		},
		// Resuming the service in the same apply is not refused.
		resource.TestStep{Config: cfg(false, set("reader", 1000)+set("reader2", 500)), PlanOnly: true, ExpectNonEmptyPlan: true},
		resource.TestStep{Config: cfg(false, set("reader", 500))},
	))
	if n := srv.Calls("resizeReplicaSet"); n != 0 {
		t.Errorf("%d resizes sent", n)
	}
}
