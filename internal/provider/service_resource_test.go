package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// dbcloud_service's create, read, import, fork and delete (service_resource.go). Its in-place changes are
// tested in service_update_test.go, the plan's rules in service_plan_test.go, finds and waits in
// service_calls_test.go.

// Every addon combination creates the matching service type; import works for each kind.
func TestAccService_addonCombinations(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := providerBlock(srv) + `
resource "dbcloud_service" "plain" {
  name = "plain"
}
resource "dbcloud_service" "ts" {
  name   = "ts"
  addons = ["time-series"]
}
resource "dbcloud_service" "ai" {
  name   = "ai"
  addons = ["ai"]
}
resource "dbcloud_service" "both" {
  name   = "both"
  addons = ["time-series", "ai"]
}
`
	typeOf := func(addr, want string) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, svcAttr("service_type"), knownvalue.StringExact(want))
	}
	importIgnore := []string{"password", "password_wo_version", "initial_password", "timeouts"}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           cfg,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				typeOf("dbcloud_service.plain", "POSTGRES"),
				typeOf("dbcloud_service.ts", "TIMESCALEDB"),
				typeOf("dbcloud_service.ai", "VECTOR"),
				typeOf("dbcloud_service.both", "TIMESCALEDB"),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("addons"), knownvalue.SetSizeExact(0)),
				statecheck.ExpectKnownValue("dbcloud_service.both", svcAttr("addons"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("time-series"), knownvalue.StringExact("ai")})),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("status"), knownvalue.StringExact("READY")),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("hostname"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("port"), knownvalue.Int64Exact(5432)),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("pooler_hostname"), knownvalue.Null()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("vpc_hostname"), knownvalue.Null()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("vpc_id"), knownvalue.Null()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("forked_from"), knownvalue.Null()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("initial_password"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("project_id"), knownvalue.StringExact(testProjectID)),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("region_code"), knownvalue.StringExact(emulator.DefaultRegion)),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("cpu_millis"), knownvalue.Int64Exact(1000)),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("environment"), knownvalue.StringExact("DEV")),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("ha_replicas"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue("dbcloud_service.plain", svcAttr("deletion_protection"), knownvalue.Bool(false)),
			},
		},
		resource.TestStep{
			ResourceName: "dbcloud_service.ts", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: importIgnore,
		},
		resource.TestStep{
			ResourceName: "dbcloud_service.ai", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: importIgnore,
		},
		resource.TestStep{
			// Both addons report TIMESCALEDB: addons cannot be recovered (ambiguous by design).
			ResourceName: "dbcloud_service.both", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: append([]string{"addons"}, importIgnore...),
		},
	))
}

// Every optional input set at create; then import with ImportStateVerify.
func TestAccService_allOptionalInputs(t *testing.T) {
	srv := newTestEmulator(t)
	vpcID := svcTestVPC(t, srv, "full-vpc", "10.10.0.0/16", "us-west-2")
	var id, woID string
	cfg := providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "full" {
  name                      = "full"
  addons                    = ["time-series"]
  region_code               = "us-west-2"
  cpu_millis                = 2000
  memory_gbs                = 8
  environment               = "PROD"
  ha_replicas               = 2
  sync_replicas             = 1
  connection_pooler_enabled = true
  vpc_id                    = %[1]q
  password                  = "Full-Passw0rd"
  deletion_protection       = false
  timeouts {
    create = "5m"
    update = "5m"
    delete = "5m"
  }
}

resource "dbcloud_service" "wo" {
  name                = "write-only"
  password_wo         = "Wo-Passw0rd-1"
  password_wo_version = 1
}
`, vpcID)
	resource.ParallelTest(t, needsWriteOnly(testCase(t, srv,
		resource.TestStep{
			Config:           cfg,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("service_type"), knownvalue.StringExact("TIMESCALEDB")),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("region_code"), knownvalue.StringExact("us-west-2")),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("cpu_millis"), knownvalue.Int64Exact(2000)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("memory_gbs"), knownvalue.Int64Exact(8)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("environment"), knownvalue.StringExact("PROD")),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("ha_replicas"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("sync_replicas"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("connection_pooler_enabled"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("pooler_hostname"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("pooler_port"), knownvalue.Int64Exact(6432)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("vpc_id"), knownvalue.StringExact(vpcID)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("vpc_hostname"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("vpc_port"), knownvalue.Int64Exact(5432)),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("volume_type"), knownvalue.StringExact("gp3")),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("status"), knownvalue.StringExact("READY")),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("created"), knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`))),
				statecheck.ExpectKnownValue("dbcloud_service.full", svcAttr("paused"), knownvalue.Bool(false)),
				statecheck.ExpectSensitiveValue("dbcloud_service.full", svcAttr("password")),
				statecheck.ExpectSensitiveValue("dbcloud_service.full", svcAttr("initial_password")),
				// Write-only: never stored.
				statecheck.ExpectKnownValue("dbcloud_service.wo", svcAttr("password_wo"), knownvalue.Null()),
				statecheck.ExpectKnownValue("dbcloud_service.wo", svcAttr("password_wo_version"), knownvalue.Int64Exact(1)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				svcCaptureID("dbcloud_service.full", &id),
				svcCaptureID("dbcloud_service.wo", &woID),
				svcInEmulator(srv, &id, func(svc api.Service) error {
					if cpu, mem := svcEmuSize(svc); cpu != 2000 || mem != 8 {
						return fmt.Errorf("size %d/%d, want 2000/8", cpu, mem)
					}
					if got := deref(svc.HaReplicas.ReplicaCount); got != 2 {
						return fmt.Errorf("replica_count %d, want 2", got)
					}
					if got := deref(svc.HaReplicas.SyncReplicaCount); got != 1 {
						return fmt.Errorf("sync_replica_count %d, want 1", got)
					}
					if svc.ConnectionPooler == nil {
						return fmt.Errorf("pooler not enabled")
					}
					if svc.VpcEndpoint == nil || deref(svc.VpcEndpoint.VpcID) != vpcID {
						return fmt.Errorf("not attached to VPC %s: %+v", vpcID, svc.VpcEndpoint)
					}
					if got := deref(svc.Metadata.Environment); got != "PROD" {
						return fmt.Errorf("environment %s, want PROD", got)
					}
					if got := srv.ServicePassword(testProjectID, id); got != "Full-Passw0rd" {
						return fmt.Errorf("password not set (got %q)", got)
					}
					return nil
				}),
				func(*terraform.State) error {
					if got := srv.ServicePassword(testProjectID, woID); got != "Wo-Passw0rd-1" {
						return fmt.Errorf("write-only password not set (got %q)", got)
					}
					return nil
				},
			),
		},
		resource.TestStep{
			ResourceName: "dbcloud_service.full", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"password", "initial_password", "timeouts"},
		},
		resource.TestStep{
			ResourceName: "dbcloud_service.wo", ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"password_wo_version", "initial_password"},
		},
	)))
}

// Forks with LAST_SNAPSHOT (own size and environment) and with PITR at the source's creation time.
func TestAccService_fork(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := providerBlock(srv) + `
resource "dbcloud_service" "src" {
  name   = "fork-source"
  addons = ["time-series"]
}

resource "dbcloud_service" "snap" {
  name        = "fork-snapshot"
  addons      = ["time-series"]
  cpu_millis  = 2000
  memory_gbs  = 8
  environment = "PROD"
  ha_replicas = 1
  fork {
    source_service_id = dbcloud_service.src.id
    strategy          = "LAST_SNAPSHOT"
  }
}

resource "dbcloud_service" "pitr" {
  name   = "fork-pitr"
  addons = ["time-series"]
  fork {
    source_service_id = dbcloud_service.src.id
    strategy          = "PITR"
    target_time       = dbcloud_service.src.created
  }
}
`
	same := func(a, b string, p string) statecheck.StateCheck {
		return statecheck.CompareValuePairs(a, svcAttr(p), b, svcAttr(p), svcCompareSame{})
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           cfg,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.CompareValuePairs("dbcloud_service.snap", tfjsonpath.New("forked_from").AtMapKey("service_id"),
					"dbcloud_service.src", svcAttr("id"), svcCompareSame{}),
				statecheck.CompareValuePairs("dbcloud_service.pitr", tfjsonpath.New("forked_from").AtMapKey("service_id"),
					"dbcloud_service.src", svcAttr("id"), svcCompareSame{}),
				statecheck.ExpectKnownValue("dbcloud_service.snap", tfjsonpath.New("forked_from").AtMapKey("project_id"), knownvalue.StringExact(testProjectID)),
				statecheck.ExpectKnownValue("dbcloud_service.snap", svcAttr("service_type"), knownvalue.StringExact("TIMESCALEDB")),
				statecheck.ExpectKnownValue("dbcloud_service.snap", svcAttr("cpu_millis"), knownvalue.Int64Exact(2000)),
				statecheck.ExpectKnownValue("dbcloud_service.snap", svcAttr("environment"), knownvalue.StringExact("PROD")),
				statecheck.ExpectKnownValue("dbcloud_service.snap", svcAttr("ha_replicas"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue("dbcloud_service.snap", svcAttr("initial_password"), knownvalue.NotNull()),
				// The PITR fork inherits the source's size and region.
				same("dbcloud_service.pitr", "dbcloud_service.src", "cpu_millis"),
				same("dbcloud_service.pitr", "dbcloud_service.src", "region_code"),
			},
			Check: func(*terraform.State) error {
				var strategies []string
				for _, r := range srv.Requests() {
					if r.OperationID != "forkService" {
						continue
					}
					var body map[string]any
					if err := json.Unmarshal(r.Body, &body); err != nil {
						return err
					}
					s, _ := body["fork_strategy"].(string)
					strategies = append(strategies, s)
					if s == "PITR" {
						if _, ok := body["target_time"].(string); !ok {
							return fmt.Errorf("PITR fork without target_time: %s", r.Body)
						}
					}
					if s == "LAST_SNAPSHOT" && (body["cpu_millis"] != "2000" || body["memory_gbs"] != "8" || body["environment_tag"] != "PROD") {
						return fmt.Errorf("LAST_SNAPSHOT fork body lacks size/environment: %s", r.Body)
					}
				}
				joined := strings.Join(strategies, ",")
				if len(strategies) != 2 || !strings.Contains(joined, "PITR") || !strings.Contains(joined, "LAST_SNAPSHOT") {
					return fmt.Errorf("fork requests: %v, want one LAST_SNAPSHOT and one PITR", strategies)
				}
				return nil
			},
		},
	))
}

// A resize behind Terraform's back shows as an update and is reverted; a service deleted behind its
// back is planned for re-creation without error.
func TestAccService_drift(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	// With analytics on: one event per create/update/delete of the service.
	provider := strings.TrimRight(strings.TrimSpace(providerBlock(srv)), "}") + "  analytics  = true\n}\n"
	cfg := provider + `
resource "dbcloud_service" "test" {
  name       = "drift"
  cpu_millis = 1000
  memory_gbs = 4
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg, ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
		resource.TestStep{
			PreConfig: func() {
				ok := srv.UpdateService(testProjectID, id, func(s *api.Service) {
					(*s.Resources)[0].Spec.CPUMillis = ptr(2000)
					(*s.Resources)[0].Spec.MemoryGbs = ptr(8)
				})
				if !ok {
					t.Fatalf("service %s not found", id)
				}
			},
			Config: cfg,
			ConfigPlanChecks: svcPlanChecks(
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(addr, svcAttr("cpu_millis"), knownvalue.Int64Exact(1000)),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				svcInEmulator(srv, &id, func(svc api.Service) error {
					if cpu, mem := svcEmuSize(svc); cpu != 1000 || mem != 4 {
						return fmt.Errorf("size %d/%d, want 1000/4 (reverted)", cpu, mem)
					}
					return nil
				})),
		},
		resource.TestStep{
			PreConfig: func() {
				if !srv.RemoveService(testProjectID, id) {
					t.Fatalf("service %s not found", id)
				}
			},
			Config:           cfg,
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcNewID(addr, &id),
				func(*terraform.State) error {
					var events []string
					for _, e := range srv.AnalyticsEvents() {
						if e.Properties == nil || (*e.Properties)["resource_type"] != "dbcloud_service" {
							return fmt.Errorf("analytics event %s without resource_type dbcloud_service: %v", e.Event, e.Properties)
						}
						events = append(events, e.Event)
					}
					if got := strings.Join(events, ","); got != "terraform_create,terraform_update,terraform_create" {
						return fmt.Errorf("analytics events %s, want create, update, create", got)
					}
					return nil
				}),
		},
	))
}

// The create is carried out but its answer is a 500: the provider finds the service by looking and
// adopts it, without sending the create again.
func TestAccService_ambiguousCreate(t *testing.T) {
	srv := newTestEmulator(t)
	srv.InjectFault("createService", emulator.FaultCommitThenFail, 1)
	const addr = "dbcloud_service.test"
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "ambiguous"
}
`,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, svcAttr("initial_password"), knownvalue.Null()),
				statecheck.ExpectKnownValue(addr, svcAttr("status"), knownvalue.StringExact("READY")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				svcCaptureID(addr, &id),
				func(*terraform.State) error {
					if n := srv.Calls("createService"); n != 1 {
						return fmt.Errorf("createService called %d times, want 1", n)
					}
					svcs := srv.Services(testProjectID)
					if len(svcs) != 1 || deref(svcs[0].ServiceID) != id {
						return fmt.Errorf("want exactly the adopted service %s, got %d services", id, len(svcs))
					}
					return nil
				}),
		},
	))
}

// A service created with both addons reports TIMESERIESDB; importing it into a configuration with
// both addons adopts them in place instead of replacing the service.
func TestAccService_importBothAddonsNoReplace(t *testing.T) {
	srv := newTestEmulator(t)
	c := testClient(t, srv)
	svc, err := c.CreateService(context.Background(), api.ServiceCreate{Name: "imported", Addons: &[]api.Addon{api.TimeSeries, api.Ai}})
	if err != nil {
		t.Fatal(err)
	}
	id := deref(svc.ServiceID)
	const addr = "dbcloud_service.test"
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
import {
  to = dbcloud_service.test
  id = %q
}
resource "dbcloud_service" "test" {
  name   = "imported"
  addons = ["time-series", "ai"]
}
`, id),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, svcAttr("id"), knownvalue.StringExact(id)),
				statecheck.ExpectKnownValue(addr, svcAttr("addons"), knownvalue.SetSizeExact(2)),
			},
		},
		resource.TestStep{
			// Once adopted, addons are from configuration again: a change replaces (when allowed).
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name              = "imported"
  addons            = ["time-series"]
  allow_replacement = true
}
`,
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)),
		},
	))
}

// A service deleted behind Terraform's back leaves state on the next refresh, and the next plan
// creates it again.
func TestAccService_disappears(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "disappears"
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckServiceExists(srv, addr),
				testAccCheckServiceDisappears(srv, addr),
			),
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
			},
		},
	))
}

// Ctrl-C while create waits. A real `terraform apply` talks to the provider served in this process
// (TF_REATTACH_PROVIDERS, as terraform-plugin-testing does), against a slow emulator; the test sends
// SIGINT to terraform while the new service is still QUEUED, then applies again. Exactly one create
// reaches the API, nothing is deleted, the interrupted apply left the service in state untainted, and
// the second apply waited for it and applied the remaining settings.
func TestAccService_interruptedCreateResumes(t *testing.T) {
	testAccPreCheck(t)
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceQueued = 10 * time.Minute })
	w := newTFWorkdir(t, srv, `
resource "dbcloud_service" "test" {
  name                      = "interrupted"
  connection_pooler_enabled = true
  password                  = "a-Passw0rd-1"
}
`)

	// 1. apply, interrupted while the create waits for READY.
	p := w.start("apply", "-auto-approve", "-input=false")
	var id string
	deadline := time.Now().Add(2 * time.Minute)
	for id == "" && time.Now().Before(deadline) {
		if svcs := srv.Services(testProjectID); len(svcs) > 0 {
			id = deref(svcs[0].ServiceID)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id == "" {
		_ = p.cmd.Process.Kill()
		t.Fatalf("no service was created:\n%s", p.out)
	}
	// Let the provider settle into its wait (a few polls), then Ctrl-C.
	for srv.Calls("getService") < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.interrupt(t)
	t.Logf("the interrupted terraform apply exited: %v", p.err)
	first := p.out.String()
	attrs, tainted := w.serviceState()
	if attrs["id"] != id || tainted {
		t.Fatalf("after the interrupt: id %v tainted %v, want %s untainted\n%s", attrs["id"], tainted, id, first)
	}
	if !strings.Contains(first, "the next apply resumes the wait") {
		t.Errorf("the interrupted apply did not say that the next apply resumes:\n%s", first)
	}

	// 2. The service becomes READY soon; the next apply waits for it and applies the rest.
	srv.SetServiceStatusFor(testProjectID, id, api.CONFIGURING, time.Second, api.READY)
	second, err := w.run("apply", "-auto-approve", "-input=false")
	if err != nil {
		t.Fatalf("second apply: %v\n%s", err, second)
	}
	if !strings.Contains(second, "0 added, 1 changed, 0 destroyed") {
		t.Errorf("second apply: want one in-place update:\n%s", second)
	}
	attrs, tainted = w.serviceState()
	if attrs["id"] != id || tainted || attrs["status"] != "READY" || attrs["connection_pooler_enabled"] != true {
		t.Errorf("after the second apply: id %v tainted %v status %v pooler %v; want %s, untainted, READY, pooler on",
			attrs["id"], tainted, attrs["status"], attrs["connection_pooler_enabled"], id)
	}
	for op, want := range map[string]int{"createService": 1, "deleteService": 0, "enablePooler": 1, "updatePassword": 1} {
		if got := srv.Calls(op); got != want {
			t.Errorf("emulator saw %d %s calls, want %d", got, op, want)
		}
	}
	if n := len(srv.Services(testProjectID)); n != 1 {
		t.Errorf("%d services in the emulator, want 1", n)
	}

	// 3. A third plan is empty; then clean up.
	if out, err := w.run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Errorf("plan after the resumed apply is not empty (%v):\n%s", err, out)
	}
	if out, err := w.run("destroy", "-auto-approve", "-input=false"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	// The destroy returned once the service read DELETED; the emulator keeps that record a while.
	if live := liveServices(srv); len(live) != 0 {
		t.Errorf("%d services left after destroy (not DELETED)", len(live))
	}
}
