package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// dbcloud_service's in-place changes (service_update.go): rename in place, pause and resume, resize as
// digit strings, optional arguments removed from the configuration, state of the previous release, and
// every in-place attribute changed in turn.

// Issue 10 point 2: a new name is a rename in place: same id, plan says update, the emulator saw one
// rename call and no second create.
func TestAccService_renameInPlace(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	cfg := func(name string) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "test" {
  name = %q
}
`, name)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg("before"), ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
		resource.TestStep{
			Config:           cfg("after-ünïcode"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "name", "after-ünïcode"),
				svcInEmulator(srv, &id, func(s api.Service) error {
					if deref(s.Name) != "after-ünïcode" {
						return fmt.Errorf("emulator name %q", deref(s.Name))
					}
					return nil
				}),
				svcCalls(srv, "renameService", 1),
				svcCalls(srv, "createService", 1),
				svcCalls(srv, "deleteService", 0),
			),
		},
	))
}

// Issue 10 point 3: pause and resume, and each case: create paused, resume, pause, a change while
// paused (plan error), a change with paused = false in the same plan (start first), drift (paused
// behind Terraform's back shows a diff back to paused = false), import of a paused service, delete
// of a paused service (the final destroy).
func TestAccService_pauseResume(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	cfg := func(extra string) string {
		return providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "pausable"
` + extra + `
}
`
	}
	update := emptyPlanAfterApply(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate))
	resource.ParallelTest(t, testCase(t, srv,
		// Create paused: create, wait READY, stop, wait PAUSED.
		resource.TestStep{
			Config:           cfg(`paused = true`),
			ConfigPlanChecks: emptyPlanAfterApply(),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcCaptureID(addr, &id),
				resource.TestCheckResourceAttr(addr, "paused", "true"),
				resource.TestCheckResourceAttr(addr, "status", "PAUSED"),
				svcEmuStatus(srv, &id, api.PAUSED),
				svcCalls(srv, "stopService", 1),
			),
		},
		// Import of a paused service: paused = true in state.
		resource.TestStep{
			ResourceName: addr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"initial_password", "timeouts"},
		},
		// A change that needs a running service while it stays paused: a plan error that says what to do.
		resource.TestStep{
			Config: cfg(`paused = true
  cpu_millis = 2000
  memory_gbs = 8`),
			PlanOnly:    true,
			ExpectError: words("Service is paused", "changing cpu_millis/memory_gbs needs it running", "Set paused = false"),
		},
		// The same with paused removed from the configuration: removed keeps it paused, so the same error.
		resource.TestStep{
			Config:      cfg(`environment = "PROD"`),
			PlanOnly:    true,
			ExpectError: words("Service is paused", "changing environment needs it running", "Set paused = false"),
		},
		// Resume and resize in one plan: start first, then the resize.
		resource.TestStep{
			Config: cfg(`paused = false
  cpu_millis = 2000
  memory_gbs = 8`),
			ConfigPlanChecks: update,
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "paused", "false"),
				resource.TestCheckResourceAttr(addr, "status", "READY"),
				resource.TestCheckResourceAttr(addr, "cpu_millis", "2000"),
				svcEmuStatus(srv, &id, api.READY),
				svcCalls(srv, "startService", 1),
				svcCalls(srv, "resizeService", 1),
			),
		},
		// Pause again.
		resource.TestStep{
			Config:           cfg(`paused = true`),
			ConfigPlanChecks: update,
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id), svcEmuStatus(srv, &id, api.PAUSED), svcCalls(srv, "stopService", 2)),
		},
		// Resume.
		resource.TestStep{
			Config:           cfg(`paused = false`),
			ConfigPlanChecks: update,
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id), svcEmuStatus(srv, &id, api.READY), svcCalls(srv, "startService", 2)),
		},
		// Drift: paused behind Terraform's back; the configuration says paused = false: the plan starts it.
		resource.TestStep{
			PreConfig:        func() { srv.PauseService(testProjectID, id) },
			Config:           cfg(`paused = false`),
			ConfigPlanChecks: update,
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id), svcEmuStatus(srv, &id, api.READY), svcCalls(srv, "startService", 3),
				resource.TestCheckResourceAttr(addr, "status", "READY")),
		},
		// Paused behind the back while the stop is still under way (PAUSING when the plan reads it): a
		// PAUSING service is paused (api.ServiceStatus.Paused), so the plan starts it, and the start waits
		// for PAUSED first. The stop ends once the plan has read the service.
		resource.TestStep{
			PreConfig: func() {
				srv.SetServiceStatus(testProjectID, id, api.PAUSING)
				reads := srv.Calls("listServices") + srv.Calls("getService")
				go waitUntil(time.Minute, func() bool {
					return srv.Calls("listServices")+srv.Calls("getService") > reads && srv.SetServiceStatus(testProjectID, id, api.PAUSED)
				})
			},
			Config:           cfg(`paused = false`),
			ConfigPlanChecks: update,
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id), svcEmuStatus(srv, &id, api.READY), svcCalls(srv, "startService", 4),
				resource.TestCheckResourceAttr(addr, "status", "READY")),
		},
		// Delete of a paused service: paused behind the back again, then the test's destroy removes it
		// (CheckDestroy verifies it is gone).
		resource.TestStep{
			PreConfig:        func() { srv.PauseService(testProjectID, id) },
			Config:           cfg(``),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectEmptyPlan()),
			Check:            resource.TestCheckResourceAttr(addr, "paused", "true"),
		},
	))
}

// Issue 10 point 2: a resize reaches the server as digit strings (the live API answers integers 400).
func TestAccService_resizeDigitStrings(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	cfg := sizedServiceConfig(srv, "resized", "")
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg(1000, 4), ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
		resource.TestStep{
			Config:           cfg(4000, 16),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				func(*terraform.State) error {
					var bodies []string
					for _, r := range srv.Requests() {
						if r.OperationID == "resizeService" {
							bodies = append(bodies, string(r.Body))
						}
					}
					if len(bodies) != 1 {
						return fmt.Errorf("%d resize calls, want 1", len(bodies))
					}
					if !strings.Contains(bodies[0], `"cpu_millis":"4000"`) || !strings.Contains(bodies[0], `"memory_gbs":"16"`) {
						return fmt.Errorf("resize body %s: want digit strings", bodies[0])
					}
					return nil
				},
				svcInEmulator(srv, &id, func(s api.Service) error {
					if cpu, mem := svcEmuSize(s); cpu != 4000 || mem != 16 {
						return fmt.Errorf("emulator size %d/%d, want 4000/16", cpu, mem)
					}
					return nil
				}),
			),
		},
	))
}

// Issue 13 point 1: removing any optional argument from the configuration changes and replaces
// nothing (the service keeps what it has). deletion_protection is the documented exception: it is a
// Terraform-only switch, and removing it sets it back to false (an update of state alone).
func TestAccService_removeOptionalArgument(t *testing.T) {
	// vpc_id (absence means "not attached"), password (state only; the server keeps the password) and
	// timeouts are the documented exceptions; deletion_protection has its own test below.
	cases := []struct{ attr, set string }{
		{"addons", `addons = ["time-series"]`},
		{"addons both", `addons = ["time-series", "ai"]`},
		{"region_code", `region_code = "eu-west-1"`},
		{"cpu_millis/memory_gbs", "cpu_millis = 2000\n  memory_gbs = 8"},
		{"environment", `environment = "PROD"`},
		{"ha_replicas/sync_replicas", "ha_replicas = 2\n  sync_replicas = 1"},
		{"connection_pooler_enabled", `connection_pooler_enabled = true`},
		{"paused", `paused = true`},
		{"paused false", `paused = false`},
		{"deletion_protection false", `deletion_protection = false`},
	}
	for _, c := range cases {
		t.Run(c.attr, func(t *testing.T) {
			srv := newTestEmulator(t)
			const addr = "dbcloud_service.test"
			var id string
			cfg := func(body string) string {
				return providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "keep"
  ` + body + `
}
`
			}
			resource.ParallelTest(t, testCase(t, srv,
				resource.TestStep{Config: cfg(c.set), ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
				resource.TestStep{
					Config:           cfg(""),
					ConfigPlanChecks: svcPlanChecks(plancheck.ExpectEmptyPlan()),
					Check:            svcSameID(addr, &id),
				},
			))
		})
	}
}

// deletion_protection is Terraform-only: removing it from the configuration sets it back to false, an
// update of state alone (no API call, no replacement).
func TestAccService_removeDeletionProtection(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name                = "dp"
  deletion_protection = true
}
`, ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id),
		},
		resource.TestStep{
			PreConfig: srv.ResetRequests,
			Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "dp"
}
`,
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "deletion_protection", "false"),
				func(*terraform.State) error {
					for _, r := range srv.Requests() {
						if r.Method != "GET" {
							return fmt.Errorf("unexpected %s %s: removing deletion_protection must not call the API", r.Method, r.Path)
						}
					}
					return nil
				}),
		},
	))
}

// Issue 10: state from the previous release keeps working. The schema version is unchanged (0): every
// attribute kept its type, `name` and `paused` only lost RequiresReplace / gained Optional, and
// `addons` / `connection_pooler_enabled` lost their schema default (their state values are the same).
// So the test is: a state written with the previous release's configuration shape (every optional
// argument absent, as most configurations are; and one with every argument set) plans empty with the
// new schema, and the same after an import (state written from the API alone).
func TestAccService_upgradeNoDiff(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	minimal := providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "old"
}
`
	full := providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name                      = "old"
  addons                    = []
  region_code               = "us-east-1"
  cpu_millis                = 1000
  memory_gbs                = 4
  environment               = "DEV"
  ha_replicas               = 1
  sync_replicas             = 0
  connection_pooler_enabled = false
  deletion_protection       = false
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: minimal, ConfigPlanChecks: svcEmptyPlan},
		resource.TestStep{Config: minimal, PlanOnly: true}, // PlanOnly fails on a non-empty plan
		resource.TestStep{Config: full, ConfigPlanChecks: svcEmptyPlan},
		resource.TestStep{Config: full, PlanOnly: true}, // PlanOnly fails on a non-empty plan
		resource.TestStep{
			ResourceName: addr, ImportState: true, ImportStateVerify: true,
			ImportStateVerifyIgnore: []string{"initial_password", "timeouts"},
		},
	))
}

// Issue 10 point 5: a shared-size service has no cpu/memory numbers: they are null, and a configuration
// that does not set them plans nothing.
func TestAccService_sharedSizeNull(t *testing.T) {
	srv := newTestEmulator(t)
	c := testClient(t, srv)
	svc, err := c.CreateService(t.Context(), api.ServiceCreate{Name: "shared", Addons: &[]api.Addon{}, CPUMillis: ptr("shared"), MemoryGbs: ptr("shared")})
	if err != nil {
		t.Fatal(err)
	}
	id := deref(svc.ServiceID)
	netTestWaitService(t, srv, id, api.READY)
	const addr = "dbcloud_service.test"
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
import {
  to = dbcloud_service.test
  id = %q
}
resource "dbcloud_service" "test" {
  name = "shared"
}
`, id),
			ConfigPlanChecks: svcEmptyPlan,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(addr, "cpu_millis"),
				resource.TestCheckNoResourceAttr(addr, "memory_gbs"),
			),
		},
	))
}

// sizedServiceConfig returns the configuration of dbcloud_service.test named name, with the given
// size and extra lines, on srv's provider block.
func sizedServiceConfig(srv *emulatortest.Server, name, extra string) func(cpu, mem int) string {
	service := sizedService("test", name, extra)
	return func(cpu, mem int) string { return providerBlock(srv) + service(cpu, mem) }
}

// sizedService returns the resource block of dbcloud_service.<label> named name, with the given size
// and extra lines.
func sizedService(label, name, extra string) func(cpu, mem int) string {
	return func(cpu, mem int) string {
		return fmt.Sprintf(`
resource "dbcloud_service" %q {
  name       = %q
  cpu_millis = %d
  memory_gbs = %d
%s}
`, label, name, cpu, mem, extra)
	}
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

type svcInPlaceParams struct {
	cpu, mem, ha, sync int
	pooler             bool
	env                string
	password           string // "" = not set
	wo                 string // "" = not set
	woVersion          int
	vpc                string // "" = not attached
}

func (p svcInPlaceParams) config(srv *emulatortest.Server) string {
	var b strings.Builder
	b.WriteString(providerBlock(srv))
	fmt.Fprintf(&b, `
resource "dbcloud_service" "test" {
  name                      = "in-place"
  cpu_millis                = %d
  memory_gbs                = %d
  ha_replicas               = %d
  sync_replicas             = %d
  connection_pooler_enabled = %t
  environment               = %q
`, p.cpu, p.mem, p.ha, p.sync, p.pooler, p.env)
	if p.password != "" {
		fmt.Fprintf(&b, "  password = %q\n", p.password)
	}
	if p.wo != "" {
		fmt.Fprintf(&b, "  password_wo = %q\n  password_wo_version = %d\n", p.wo, p.woVersion)
	}
	if p.vpc != "" {
		fmt.Fprintf(&b, "  vpc_id = %q\n", p.vpc)
	}
	b.WriteString("}\n")
	return b.String()
}

// Each in-place attribute changes in turn; every step is an update (same id), its plan shows only
// the moved computed values as unknown, and a second plan is empty.
func TestAccService_inPlaceUpdates(t *testing.T) {
	srv := newTestEmulator(t)
	vpcA := svcTestVPC(t, srv, "vpc-a", "10.1.0.0/16", "us-east-1")
	vpcB := svcTestVPC(t, srv, "vpc-b", "10.2.0.0/16", "us-east-1")
	const addr = "dbcloud_service.test"
	var id string
	p := svcInPlaceParams{cpu: 1000, mem: 4, env: "DEV", password: "First-Passw0rd"}

	update := func(extra ...plancheck.PlanCheck) resource.ConfigPlanChecks {
		return svcPlanChecks(append([]plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)}, extra...)...)
	}
	keeps := func(names ...string) []plancheck.PlanCheck {
		var out []plancheck.PlanCheck
		for _, n := range names {
			out = append(out, plancheck.ExpectKnownValue(addr, svcAttr(n), knownvalue.NotNull()))
		}
		return out
	}
	emu := func(fn func(api.Service) error) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(svcSameID(addr, &id), svcInEmulator(srv, &id, fn))
	}
	step := func(mod func(*svcInPlaceParams), checks resource.ConfigPlanChecks, check resource.TestCheckFunc) resource.TestStep {
		mod(&p)
		return resource.TestStep{Config: p.config(srv), ConfigPlanChecks: checks, Check: check}
	}

	resource.ParallelTest(t, needsWriteOnly(testCase(t, srv,
		resource.TestStep{
			Config:           p.config(srv),
			ConfigPlanChecks: svcEmptyPlan,
			Check:            svcCaptureID(addr, &id),
		},
		// resize: nothing else moves.
		step(func(p *svcInPlaceParams) { p.cpu, p.mem = 2000, 8 },
			update(append(keeps("hostname", "port", "status", "created", "volume_type"),
				plancheck.ExpectKnownValue(addr, svcAttr("status"), knownvalue.StringExact("READY")),
				plancheck.ExpectKnownValue(addr, svcAttr("pooler_hostname"), knownvalue.Null()),
				plancheck.ExpectKnownValue(addr, svcAttr("vpc_hostname"), knownvalue.Null()))...),
			emu(func(svc api.Service) error {
				if cpu, mem := svcEmuSize(svc); cpu != 2000 || mem != 8 {
					return fmt.Errorf("size %d/%d, want 2000/8", cpu, mem)
				}
				return nil
			})),
		// HA replicas.
		step(func(p *svcInPlaceParams) { p.ha = 2 },
			update(keeps("hostname", "sync_replicas")...),
			emu(func(svc api.Service) error {
				if got := deref(svc.HaReplicas.ReplicaCount); got != 2 {
					return fmt.Errorf("replica_count %d, want 2", got)
				}
				return nil
			})),
		// synchronous replicas.
		step(func(p *svcInPlaceParams) { p.sync = 1 },
			update(keeps("hostname")...),
			emu(func(svc api.Service) error {
				if got := deref(svc.HaReplicas.SyncReplicaCount); got != 1 {
					return fmt.Errorf("sync_replica_count %d, want 1", got)
				}
				return nil
			})),
		// pooler on: its endpoint is unknown until applied.
		step(func(p *svcInPlaceParams) { p.pooler = true },
			update(append(keeps("hostname", "port"),
				plancheck.ExpectUnknownValue(addr, svcAttr("pooler_hostname")),
				plancheck.ExpectUnknownValue(addr, svcAttr("pooler_port")))...),
			resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrSet(addr, "pooler_hostname"),
				emu(func(svc api.Service) error {
					if svc.ConnectionPooler == nil {
						return fmt.Errorf("pooler not enabled")
					}
					return nil
				}))),
		// environment.
		step(func(p *svcInPlaceParams) { p.env = "PROD" },
			update(keeps("hostname", "pooler_hostname")...),
			emu(func(svc api.Service) error {
				if got := deref(svc.Metadata.Environment); got != "PROD" {
					return fmt.Errorf("environment %s, want PROD", got)
				}
				return nil
			})),
		// password.
		step(func(p *svcInPlaceParams) { p.password = "Second-Passw0rd" },
			update(keeps("hostname")...),
			func(*terraform.State) error {
				if got := srv.ServicePassword(testProjectID, id); got != "Second-Passw0rd" {
					return fmt.Errorf("password %q, want Second-Passw0rd", got)
				}
				return nil
			}),
		// switch to the write-only password (version 1).
		step(func(p *svcInPlaceParams) { p.password, p.wo, p.woVersion = "", "Wo-Passw0rd-1", 1 },
			update(keeps("hostname")...),
			func(*terraform.State) error {
				if got := srv.ServicePassword(testProjectID, id); got != "Wo-Passw0rd-1" {
					return fmt.Errorf("password %q, want Wo-Passw0rd-1", got)
				}
				return nil
			}),
		// new write-only password: only the version bump makes it apply.
		step(func(p *svcInPlaceParams) { p.wo, p.woVersion = "Wo-Passw0rd-2", 2 },
			update(keeps("hostname")...),
			func(*terraform.State) error {
				if got := srv.ServicePassword(testProjectID, id); got != "Wo-Passw0rd-2" {
					return fmt.Errorf("password %q, want Wo-Passw0rd-2", got)
				}
				return nil
			}),
		// attach to VPC A: VPC endpoint unknown, the rest kept.
		step(func(p *svcInPlaceParams) { p.vpc = vpcA },
			update(append(keeps("hostname", "pooler_hostname"),
				plancheck.ExpectUnknownValue(addr, svcAttr("vpc_hostname")),
				plancheck.ExpectUnknownValue(addr, svcAttr("vpc_port")))...),
			resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "vpc_id", vpcA),
				resource.TestCheckResourceAttrSet(addr, "vpc_hostname"),
				emu(func(svc api.Service) error {
					if svc.VpcEndpoint == nil || deref(svc.VpcEndpoint.VpcID) != vpcA {
						return fmt.Errorf("not attached to %s", vpcA)
					}
					return nil
				}))),
		// move to VPC B (detach, then attach).
		step(func(p *svcInPlaceParams) { p.vpc = vpcB },
			update(plancheck.ExpectUnknownValue(addr, svcAttr("vpc_hostname"))),
			resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "vpc_id", vpcB),
				emu(func(svc api.Service) error {
					if svc.VpcEndpoint == nil || deref(svc.VpcEndpoint.VpcID) != vpcB {
						return fmt.Errorf("not attached to %s", vpcB)
					}
					return nil
				}))),
		// detach: the VPC endpoint becomes null.
		step(func(p *svcInPlaceParams) { p.vpc = "" },
			update(
				plancheck.ExpectKnownValue(addr, svcAttr("vpc_hostname"), knownvalue.Null()),
				plancheck.ExpectKnownValue(addr, svcAttr("vpc_port"), knownvalue.Null())),
			resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(addr, "vpc_id"),
				emu(func(svc api.Service) error {
					if svc.VpcEndpoint != nil && deref(svc.VpcEndpoint.VpcID) != "" {
						return fmt.Errorf("still attached: %+v", svc.VpcEndpoint)
					}
					return nil
				}))),
		// pooler off: its endpoint becomes null.
		step(func(p *svcInPlaceParams) { p.pooler = false },
			update(plancheck.ExpectKnownValue(addr, svcAttr("pooler_hostname"), knownvalue.Null())),
			emu(func(svc api.Service) error {
				if svc.ConnectionPooler != nil {
					return fmt.Errorf("pooler still enabled")
				}
				return nil
			})),
	)))
}
