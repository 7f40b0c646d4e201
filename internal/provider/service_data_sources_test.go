package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

const svcDSResources = `
resource "dbcloud_service" "alpha" {
  name                      = "alpha"
  connection_pooler_enabled = true
  environment               = "PROD"
}
resource "dbcloud_service" "beta" {
  name   = "beta"
  addons = ["ai"]
}
`

// dbcloud_service reads every computed field, the read replica sets included; an unknown id is a
// clear error.
func TestAccDataSourceService_byID(t *testing.T) {
	srv := newTestEmulator(t)
	var alphaID string
	const ds = "data.dbcloud_service.alpha"
	same := func(attr string) statecheck.StateCheck {
		return statecheck.CompareValuePairs(ds, tfjsonpath.New(attr), "dbcloud_service.alpha", tfjsonpath.New(attr), svcCompareSame{})
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + svcDSResources,
			Check:  svcCaptureID("dbcloud_service.alpha", &alphaID),
		},
		resource.TestStep{
			PreConfig: func() {
				_, err := testClient(t, srv).CreateReplicaSet(context.Background(), alphaID,
					api.ReadReplicaSetCreate{Name: "reporting", Nodes: 2, CPUMillis: 1000, MemoryGbs: 4})
				if err != nil {
					t.Fatalf("creating a replica set: %v", err)
				}
			},
			Config: providerBlock(srv) + svcDSResources + `
data "dbcloud_service" "alpha" {
  id = dbcloud_service.alpha.id
}
data "dbcloud_service" "beta" {
  id = dbcloud_service.beta.id
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				same("id"), same("name"), same("project_id"), same("region_code"), same("service_type"), same("created"),
				same("cpu_millis"), same("memory_gbs"), same("volume_type"), same("environment"), same("ha_replicas"),
				same("sync_replicas"), same("connection_pooler_enabled"), same("hostname"), same("port"),
				same("pooler_hostname"), same("pooler_port"), same("paused"),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("READY")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("environment"), knownvalue.StringExact("PROD")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("pooler_hostname"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vpc_id"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("vpc_hostname"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("forked_from"), knownvalue.Null()),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("addons"), knownvalue.SetSizeExact(0)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("read_replica_sets"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"id":          knownvalue.NotNull(),
						"name":        knownvalue.StringExact("reporting"),
						"status":      knownvalue.NotNull(),
						"nodes":       knownvalue.Int64Exact(2),
						"cpu_millis":  knownvalue.Int64Exact(1000),
						"memory_gbs":  knownvalue.Int64Exact(4),
						"hostname":    knownvalue.NotNull(),
						"port":        knownvalue.NotNull(),
						"pooler_port": knownvalue.Null(),
					}),
				})),
				statecheck.ExpectKnownValue("data.dbcloud_service.beta", tfjsonpath.New("service_type"), knownvalue.StringExact("VECTOR")),
				statecheck.ExpectKnownValue("data.dbcloud_service.beta", tfjsonpath.New("addons"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("ai")})),
				statecheck.ExpectKnownValue("data.dbcloud_service.beta", tfjsonpath.New("read_replica_sets"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.dbcloud_service.beta", tfjsonpath.New("pooler_hostname"), knownvalue.Null()),
			},
		},
		resource.TestStep{
			Config: providerBlock(srv) + `
data "dbcloud_service" "missing" {
  id = "zzzzzzzzzz"
}
`,
			ExpectError: regexp.MustCompile(`Service not found[\s\S]*` + svcErrRe(fmt.Sprintf(`Project %s has no service with id "zzzzzzzzzz"`, testProjectID)).String()),
		},
	))
}

// dbcloud_services lists all services, and filters exactly by name, service_type and status.
func TestAccDataSourceServices_filters(t *testing.T) {
	srv := newTestEmulator(t)
	dsCfg := `
data "dbcloud_services" "all" {
  depends_on = [dbcloud_service.alpha, dbcloud_service.beta]
}
data "dbcloud_services" "by_name" {
  name       = "beta"
  depends_on = [dbcloud_service.alpha, dbcloud_service.beta]
}
data "dbcloud_services" "by_type" {
  service_type = "POSTGRES"
  depends_on   = [dbcloud_service.alpha, dbcloud_service.beta]
}
data "dbcloud_services" "ready" {
  status     = "READY"
  depends_on = [dbcloud_service.alpha, dbcloud_service.beta]
}
data "dbcloud_services" "none" {
  name         = "beta"
  service_type = "POSTGRES"
  depends_on   = [dbcloud_service.alpha, dbcloud_service.beta]
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + svcDSResources + dsCfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.dbcloud_services.all", tfjsonpath.New("ids"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue("data.dbcloud_services.all", tfjsonpath.New("services"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue("data.dbcloud_services.by_name", tfjsonpath.New("services"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"name":         knownvalue.StringExact("beta"),
						"service_type": knownvalue.StringExact("VECTOR"),
						"addons":       knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("ai")}),
						"status":       knownvalue.StringExact("READY"),
						"hostname":     knownvalue.NotNull(),
					}),
				})),
				statecheck.CompareValuePairs("data.dbcloud_services.by_name", tfjsonpath.New("ids").AtSliceIndex(0),
					"dbcloud_service.beta", tfjsonpath.New("id"), svcCompareSame{}),
				statecheck.CompareValuePairs("data.dbcloud_services.by_type", tfjsonpath.New("ids").AtSliceIndex(0),
					"dbcloud_service.alpha", tfjsonpath.New("id"), svcCompareSame{}),
				statecheck.ExpectKnownValue("data.dbcloud_services.by_type", tfjsonpath.New("ids"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue("data.dbcloud_services.by_type", tfjsonpath.New("services").AtSliceIndex(0).AtMapKey("pooler_hostname"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.dbcloud_services.ready", tfjsonpath.New("ids"), knownvalue.ListSizeExact(2)),
				statecheck.ExpectKnownValue("data.dbcloud_services.none", tfjsonpath.New("ids"), knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue("data.dbcloud_services.none", tfjsonpath.New("services"), knownvalue.ListSizeExact(0)),
			},
		},
		resource.TestStep{
			// A status filter that nothing matches.
			Config: providerBlock(srv) + svcDSResources + `
data "dbcloud_services" "deleting" {
  status = "DELETING"
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.dbcloud_services.deleting", tfjsonpath.New("ids"), knownvalue.ListSizeExact(0)),
			},
		},
	))
}
