package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// dbcloud_service: create, update in place, replacement. Edge cases: service_resource_edge_test.go.

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

// region, addons and fork changes replace the service (allowed by allow_replacement: without it they
// are refused, service_replacement_guard_test.go); a name change is a rename in place.
func TestAccService_replacements(t *testing.T) {
	srv := newTestEmulator(t)
	const addr = "dbcloud_service.test"
	var id string
	cfg := func(body string) string {
		return providerBlock(srv) + `
resource "dbcloud_service" "src" {
  name = "source"
}
resource "dbcloud_service" "test" {
  allow_replacement = true
` + body + `
}
`
	}
	replace := svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate))
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           cfg(`name = "r1"` + "\n" + `region_code = "us-east-1"`),
			ConfigPlanChecks: svcEmptyPlan,
			Check:            svcCaptureID(addr, &id),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "us-east-1"`),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check:            svcSameID(addr, &id),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "us-east-1"` + "\n" + `addons = ["ai"]`),
			ConfigPlanChecks: replace,
			Check:            resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id), resource.TestCheckResourceAttr(addr, "service_type", "VECTOR")),
		},
		resource.TestStep{
			Config:           cfg(`name = "r2"` + "\n" + `region_code = "eu-west-1"` + "\n" + `addons = ["ai"]`),
			ConfigPlanChecks: replace,
			Check:            resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id), resource.TestCheckResourceAttr(addr, "region_code", "eu-west-1")),
		},
		resource.TestStep{
			Config: cfg(`name = "r2"
  fork {
    source_service_id = dbcloud_service.src.id
  }`),
			ConfigPlanChecks: replace,
			Check: resource.ComposeAggregateTestCheckFunc(svcNewID(addr, &id),
				resource.TestCheckResourceAttrPair(addr, "forked_from.service_id", "dbcloud_service.src", "id")),
		},
		resource.TestStep{
			Config: cfg(`name = "r2"
  fork {
    source_service_id = dbcloud_service.src.id
    strategy          = "NOW"
  }`),
			ConfigPlanChecks: replace,
			Check:            svcNewID(addr, &id),
		},
	))
}

// svcCalls checks how often the emulator saw an operation.
func svcCalls(srv *emulatortest.Server, operationID string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := srv.Calls(operationID); got != want {
			return fmt.Errorf("emulator saw %d %s calls, want %d", got, operationID, want)
		}
		return nil
	}
}

// svcEmuStatus checks the service's status in the emulator.
func svcEmuStatus(srv *emulatortest.Server, id *string, want api.ServiceStatus) resource.TestCheckFunc {
	return svcInEmulator(srv, id, func(s api.Service) error {
		if deref(s.Status) != want {
			return fmt.Errorf("emulator status %s, want %s", deref(s.Status), want)
		}
		return nil
	})
}

// Issue 10 point 7: a project the credentials may not use is named, with the projects they may use,
// when an API call answers 403 (no extra request on every plan: the projects are listed only then).
func TestAccService_forbiddenProject(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Projects = []string{testProjectID, "tp2project0"} })
	cfg := fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  access_key = %q
  secret_key = %q
  project_id = "wrongproj1"
}
resource "dbcloud_service" "test" {
  name = "nope"
}
`, srv.URL, testAccessKey, testSecretKey)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      cfg,
			ExpectError: words("project_id wrongproj1 is not one the credentials may use (projects you may use: tp1project0, tp2project0)"),
		},
	))
	if n := srv.Calls("listProjects"); n != 1 {
		t.Errorf("listProjects called %d times, want 1 (only in the error path)", n)
	}
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

// initial_password is kept only while it is the service's password: a service created with
// password_wo (or password) has none in state, and a service whose password the configuration
// sets later loses it in the same apply; the plans after that are empty.
func TestAccService_initialPasswordGoneOncePasswordSet(t *testing.T) {
	srv := newTestEmulator(t)
	base := providerBlock(srv) + `
variable "pw" {
  type      = string
  ephemeral = true
  default   = "chosen-Pw/1"
}
`
	withWO := `
resource "dbcloud_service" "wo" {
  name                = "wo"
  password_wo         = var.pw
  password_wo_version = 1
}
`
	initial := func(addr string, check knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, svcAttr("initial_password"), check)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name = "later"
}
`,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.NotNull()),
			},
		},
		resource.TestStep{
			// The password of "later" is now Terraform's: its initial_password goes, with no other change.
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name     = "later"
  password = "chosen-Pw/2"
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("dbcloud_service.later", plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.Null()),
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
