package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// dbcloud_service edge cases: fork, drift, timeouts, deletion protection, lost create answers,
// import adoption, a busy service, and the resource deleted behind Terraform's back.

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

// svcCompareSame is compare.ValuesSame without importing a second package name into the file.
type svcCompareSame struct{}

func (svcCompareSame) CompareValues(values ...any) error {
	for i := 1; i < len(values); i++ {
		if fmt.Sprint(values[i]) != fmt.Sprint(values[0]) {
			return fmt.Errorf("expected values to be the same: %v != %v", values[0], values[i])
		}
	}
	return nil
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

// A create that outlives its timeout fails naming the last status, and leaves the service in state
// (tainted): the next plan replaces exactly that service.
func TestAccService_createTimeout(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceConfiguring = time.Hour })
	const addr = "dbcloud_service.test"
	var stuckID string
	cfg := providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "slow"
  timeouts {
    create = "2s"
  }
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`timed\s+out\s+after\s+[\d.]+m?s\s+waiting\s+for\s+service\s+\w+\s+to\s+become\s+READY:\s+last\s+status\s+(QUEUED|CONFIGURING)\s+\(seen\s+for`),
		},
		resource.TestStep{
			PreConfig: func() {
				svcs := srv.Services(testProjectID)
				if len(svcs) != 1 {
					t.Fatalf("want exactly one service after the timed-out create, got %d", len(svcs))
				}
				stuckID = deref(svcs[0].ServiceID)
				srv.SetTiming(emulator.FastTiming())
			},
			Config: cfg,
			ConfigPlanChecks: svcPlanChecks(
				// Tainted: the stuck service is in state and gets replaced, not forgotten.
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				svcExpectPriorID{addr: addr, id: &stuckID},
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcNewID(addr, &stuckID),
				func(*terraform.State) error {
					// The stuck one may still show DELETED for a while: it is deleted.
					if n := len(liveServices(srv)); n != 1 {
						return fmt.Errorf("%d services exist (not DELETED), want 1 (the stuck one deleted)", n)
					}
					return nil
				}),
		},
	))
}

func TestAccService_deletionProtection(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	cfg := func(name string, protected bool) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "test" {
  name                = %q
  deletion_protection = %t
}
`, name, protected)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg("protected", true), ConfigPlanChecks: svcEmptyPlan},
		resource.TestStep{
			Config:      cfg("protected", true),
			Destroy:     true,
			ExpectError: svcErrRe("has deletion_protection = true, so Terraform will not destroy it"),
		},
		resource.TestStep{
			Config:      strings.Replace(cfg("protected", true), "deletion_protection", "region_code = \"eu-west-1\"\n  deletion_protection", 1),
			PlanOnly:    true,
			ExpectError: svcErrRe(`Changing region_code from "us-east-1" to "eu-west-1" replaces service`),
		},
		resource.TestStep{
			Config:           cfg("protected", false),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: func(*terraform.State) error {
				if n := len(liveServices(srv)); n != 1 {
					return fmt.Errorf("%d services (not DELETED), want 1: the protected service must have survived", n)
				}
				return nil
			},
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

// svcConflictProxy sits in front of the emulator and answers 409 to the first `conflicts` POSTs whose
// path ends in suffix, counting them all.
type svcConflictProxy struct {
	srv       *emulator.Server
	mu        sync.Mutex
	suffix    string
	conflicts int
	seen      int
}

func (p *svcConflictProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if r.Method == http.MethodPost && p.suffix != "" && strings.HasSuffix(r.URL.Path, p.suffix) {
		p.seen++
		if p.conflicts > 0 {
			p.conflicts--
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"code":"CONFLICT","message":"service is UPGRADING, not READY","details":"injected by the test proxy"}`))
			return
		}
	}
	p.mu.Unlock()
	p.srv.ServeHTTP(w, r)
}

// An update of a busy service waits for READY before the call, and a 409 from the call (which did
// not apply) is waited out and the call sent again, instead of failing.
func TestAccService_busyServiceWaitsAndRetries409(t *testing.T) {
	srv := newTestEmulator(t)
	proxy := &svcConflictProxy{srv: srv}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	const addr = "dbcloud_service.test"
	var (
		id      string
		readyAt time.Time
		flipMu  sync.Mutex
	)
	cfg := func(cpu, mem int) string {
		return fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  access_key = %q
  secret_key = %q
  project_id = %q
}
resource "dbcloud_service" "test" {
  name       = "busy"
  cpu_millis = %d
  memory_gbs = %d
}
`, ts.URL+emulator.BasePath, testAccessKey, testSecretKey, testProjectID, cpu, mem)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg(1000, 4), ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
		resource.TestStep{
			PreConfig: func() {
				proxy.mu.Lock()
				proxy.suffix, proxy.conflicts = "/resize", 2
				proxy.mu.Unlock()
				srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = ptr(api.UPGRADING) })
				time.AfterFunc(1500*time.Millisecond, func() {
					flipMu.Lock()
					defer flipMu.Unlock()
					srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = ptr(api.READY) })
					readyAt = time.Now()
				})
			},
			Config:           cfg(2000, 8),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "status", "READY"),
				svcInEmulator(srv, &id, func(svc api.Service) error {
					if cpu, mem := svcEmuSize(svc); cpu != 2000 || mem != 8 {
						return fmt.Errorf("size %d/%d, want 2000/8", cpu, mem)
					}
					return nil
				}),
				func(*terraform.State) error {
					proxy.mu.Lock()
					seen := proxy.seen
					proxy.mu.Unlock()
					if seen != 3 {
						return fmt.Errorf("the provider sent %d resizes, want 3 (two answered 409, one accepted)", seen)
					}
					flipMu.Lock()
					flipped := readyAt
					flipMu.Unlock()
					for _, r := range srv.Requests() {
						if r.OperationID == "resizeService" && (flipped.IsZero() || r.Time.Before(flipped)) {
							return fmt.Errorf("resize reached the API at %s, before the service was READY again (%s)", r.Time, flipped)
						}
					}
					if n := srv.Calls("resizeService"); n != 1 {
						return fmt.Errorf("the emulator got %d resizes, want 1", n)
					}
					return nil
				},
			),
		},
	))
}

// Lowering ha_replicas below the synchronous count, with sync_replicas no longer configured, lowers
// that too: the plan shows it unknown (not the stale state value), and the result is consistent.
func TestAccService_haLoweredBelowSync(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name          = "ha"
  ha_replicas   = 2
  sync_replicas = 2
}
`,
			ConfigPlanChecks: svcEmptyPlan,
			Check:            svcCaptureID(addr, &id),
		},
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name        = "ha"
  ha_replicas = 1
}
`,
			ConfigPlanChecks: svcPlanChecks(
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue(addr, svcAttr("sync_replicas")),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "ha_replicas", "1"),
				resource.TestCheckResourceAttr(addr, "sync_replicas", "1"),
			),
		},
	))
}

// ---- disappears ----

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
