package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// dbcloud_read_replica_sets lists a service's sets, and fails for a service that does not exist.
func TestAccDataSourceReadReplicaSets_basic(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "listed")
	cfg := providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_read_replica_set" "a" {
  service_id                = %[1]q
  name                      = "first"
  nodes                     = 2
  cpu_millis                = 500
  memory_gbs                = 2
  connection_pooler_enabled = true
}

data "dbcloud_read_replica_sets" "all" {
  service_id = %[1]q
  depends_on = [dbcloud_read_replica_set.a]
}

data "dbcloud_read_replica_set" "one" {
  service_id = %[1]q
  id         = dbcloud_read_replica_set.a.id
}

data "dbcloud_service" "parent" {
  id         = %[1]q
  depends_on = [dbcloud_read_replica_set.a]
}
`, svc)
	ds := "data.dbcloud_read_replica_sets.all"
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           cfg,
			ConfigPlanChecks: emptyPlanAfterApply(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(ds, "replica_sets.#", "1"),
				resource.TestCheckResourceAttrPair(ds, "replica_sets.0.id", "dbcloud_read_replica_set.a", "id"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.name", "first"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.status", "active"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.nodes", "2"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.cpu_millis", "500"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.memory_gbs", "2"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.environment", "DEV"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttrPair(ds, "replica_sets.0.hostname", "dbcloud_read_replica_set.a", "hostname"),
				resource.TestCheckResourceAttrPair(ds, "replica_sets.0.pooler_hostname", "dbcloud_read_replica_set.a", "pooler_hostname"),
				resource.TestCheckResourceAttr(ds, "replica_sets.0.pooler_port", "6432"),
				// One name and one field set: read_replica_sets here, in dbcloud_service, and the singular
				// data source all hold the same fields with the same values.
				rsSameItems(ds, "read_replica_sets.0", ds, "replica_sets.0"),
				rsSameItems("data.dbcloud_service.parent", "read_replica_sets.0", ds, "read_replica_sets.0"),
				rsSameItems("data.dbcloud_read_replica_set.one", "", ds, "read_replica_sets.0"),
				resource.TestCheckResourceAttr("data.dbcloud_service.parent", "read_replica_sets.0.connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttr("data.dbcloud_read_replica_set.one", "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttr("data.dbcloud_read_replica_set.one", "name", "first"),
				resource.TestCheckResourceAttr("data.dbcloud_read_replica_set.one", "nodes", "2"),
			),
		},
		resource.TestStep{
			Config:      cfg + `data "dbcloud_read_replica_sets" "missing" { service_id = "nosuchsvc0" }`,
			ExpectError: words(`Service not found`, `no service nosuchsvc0`),
		},
		resource.TestStep{
			Config:      cfg + fmt.Sprintf(`data "dbcloud_read_replica_set" "missing" {`+"\n"+`service_id = %q`+"\n"+`id = "nosuchset0"`+"\n"+`}`, svc),
			ExpectError: words(`Read replica set not found`, `no read replica set nosuchset0`),
		},
		resource.TestStep{
			Config:   cfg,
			PlanOnly: true,
		},
	))
}

// rsSameItems checks that the replica set at prefix a of resource addrA has every field of the shared
// item type with the same value as the one at prefix b of addrB ("" is the top level).
func rsSameItems(addrA, a, addrB, b string) resource.TestCheckFunc {
	var checks []resource.TestCheckFunc
	for name := range replicaSetItemType.AttrTypes {
		ka, kb := name, name
		if a != "" {
			ka = a + "." + name
		}
		if b != "" {
			kb = b + "." + name
		}
		checks = append(checks, resource.TestCheckResourceAttrPair(addrA, ka, addrB, kb))
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}
