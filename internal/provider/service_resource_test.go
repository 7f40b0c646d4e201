package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
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

func (p svcInPlaceParams) config(srv *emulator.Server) string {
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
