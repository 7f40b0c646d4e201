package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// listTestObjects are objects made through the API (not by Terraform) for the list tests.
type listTestObjects struct {
	vpcID, serviceID, otherServiceID, replicaSetID, peeringID string
}

// listTestSetUp makes a VPC with a peering, a service attached to the VPC with a read replica set,
// and a second, plain service.
func listTestSetUp(t *testing.T, srv *emulatortest.Server) listTestObjects {
	t.Helper()
	ctx := context.Background()
	c := testClient(t, srv)
	var o listTestObjects
	o.vpcID = svcTestVPC(t, srv, "list-net", "10.70.0.0/16", "us-east-1")
	o.serviceID = netTestService(t, srv, "list-db")
	if err := c.AttachToVPC(ctx, o.serviceID, o.vpcID); err != nil {
		t.Fatalf("attaching service %s to VPC %s: %v", o.serviceID, o.vpcID, err)
	}
	netTestWaitService(t, srv, o.serviceID, api.READY)
	rs, err := c.CreateReplicaSet(ctx, o.serviceID, api.ReadReplicaSetCreate{Name: "list-reader", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil {
		t.Fatalf("creating replica set: %v", err)
	}
	o.replicaSetID = deref(rs.ID)
	p, err := c.CreatePeering(ctx, o.vpcID, api.PeeringCreate{PeerAccountID: "123456789012", PeerRegionCode: "us-east-1", PeerVpcID: "vpc-0list"})
	if err != nil {
		t.Fatalf("creating peering: %v", err)
	}
	o.peeringID = deref(p.ID)
	o.otherServiceID = netTestService(t, srv, "list-other")
	return o
}

// List resources (Terraform >= 1.14, `terraform query`): every type lists what exists, with the
// identity import needs, filters apply, and include_resource fills the resource object.
func TestAccList_allResources(t *testing.T) {
	srv := newTestEmulator(t)
	o := listTestSetUp(t, srv)
	str := knownvalue.StringExact
	tc := testCase(t, srv,
		// The provider configuration lives in the .tf file; the query step adds .tfquery.hcl.
		resource.TestStep{Config: providerBlock(srv)},
		resource.TestStep{
			Query: true,
			Config: fmt.Sprintf(`
list "dbcloud_service" "all" {
  provider         = dbcloud
  include_resource = true
}

list "dbcloud_service" "by_name" {
  provider = dbcloud
  config {
    name = "list-other"
  }
}

list "dbcloud_service" "none" {
  provider = dbcloud
  config {
    status       = "READY"
    service_type = "VECTOR"
  }
}

list "dbcloud_vpc" "all" {
  provider         = dbcloud
  include_resource = true
}

list "dbcloud_read_replica_set" "of_db" {
  provider         = dbcloud
  include_resource = true
  config {
    service_id = %[1]q
  }
}

list "dbcloud_vpc_peering" "of_net" {
  provider         = dbcloud
  include_resource = true
  config {
    vpc_id = %[2]q
  }
}
`, o.serviceID, o.vpcID),
			QueryResultChecks: []querycheck.QueryResultCheck{
				querycheck.ExpectLength("dbcloud_service.all", 2),
				querycheck.ExpectIdentity("dbcloud_service.all", map[string]knownvalue.Check{"id": str(o.serviceID), "project_id": str(testProjectID)}),
				querycheck.ExpectIdentity("dbcloud_service.all", map[string]knownvalue.Check{"id": str(o.otherServiceID), "project_id": str(testProjectID)}),
				querycheck.ExpectResourceDisplayName("dbcloud_service.all",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": str(o.serviceID), "project_id": str(testProjectID)}),
					str(fmt.Sprintf("list-db (%s)", o.serviceID))),
				querycheck.ExpectResourceKnownValues("dbcloud_service.all",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": str(o.serviceID), "project_id": str(testProjectID)}),
					[]querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("name"), KnownValue: str("list-db")},
						{Path: tfjsonpath.New("vpc_id"), KnownValue: str(o.vpcID)},
						{Path: tfjsonpath.New("addons"), KnownValue: knownvalue.SetExact([]knownvalue.Check{})},
						{Path: tfjsonpath.New("status"), KnownValue: str("READY")},
						{Path: tfjsonpath.New("deletion_protection"), KnownValue: knownvalue.Bool(false)},
						{Path: tfjsonpath.New("password"), KnownValue: knownvalue.Null()},
						{Path: tfjsonpath.New("hostname"), KnownValue: knownvalue.NotNull()},
					}),

				querycheck.ExpectLength("dbcloud_service.by_name", 1),
				querycheck.ExpectIdentity("dbcloud_service.by_name", map[string]knownvalue.Check{"id": str(o.otherServiceID), "project_id": str(testProjectID)}),
				querycheck.ExpectLength("dbcloud_service.none", 0),

				querycheck.ExpectLength("dbcloud_vpc.all", 1),
				querycheck.ExpectIdentity("dbcloud_vpc.all", map[string]knownvalue.Check{"id": str(o.vpcID)}),
				querycheck.ExpectResourceKnownValues("dbcloud_vpc.all",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": str(o.vpcID)}),
					[]querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("name"), KnownValue: str("list-net")},
						{Path: tfjsonpath.New("cidr"), KnownValue: str("10.70.0.0/16")},
						{Path: tfjsonpath.New("region_code"), KnownValue: str("us-east-1")},
					}),

				querycheck.ExpectLength("dbcloud_read_replica_set.of_db", 1),
				querycheck.ExpectIdentity("dbcloud_read_replica_set.of_db", map[string]knownvalue.Check{"service_id": str(o.serviceID), "id": str(o.replicaSetID)}),
				querycheck.ExpectResourceKnownValues("dbcloud_read_replica_set.of_db",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"service_id": str(o.serviceID), "id": str(o.replicaSetID)}),
					[]querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("name"), KnownValue: str("list-reader")},
						{Path: tfjsonpath.New("cpu_millis"), KnownValue: knownvalue.Int64Exact(500)},
						{Path: tfjsonpath.New("memory_gbs"), KnownValue: knownvalue.Int64Exact(2)},
						{Path: tfjsonpath.New("nodes"), KnownValue: knownvalue.Int64Exact(1)},
					}),

				querycheck.ExpectLength("dbcloud_vpc_peering.of_net", 1),
				querycheck.ExpectIdentity("dbcloud_vpc_peering.of_net", map[string]knownvalue.Check{"vpc_id": str(o.vpcID), "id": str(o.peeringID)}),
				querycheck.ExpectResourceKnownValues("dbcloud_vpc_peering.of_net",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"vpc_id": str(o.vpcID), "id": str(o.peeringID)}),
					[]querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("peer_vpc_id"), KnownValue: str("vpc-0list")},
						{Path: tfjsonpath.New("peer_account_id"), KnownValue: str("123456789012")},
					}),
			},
		},
		// A list of the replica sets of a service that does not exist fails with the API's answer.
		resource.TestStep{
			Query: true,
			Config: `
list "dbcloud_read_replica_set" "missing" {
  provider = dbcloud
  config {
    service_id = "nosuchsvc0"
  }
}
`,
			ExpectError: regexp.MustCompile(`Could not list the read replica sets of service nosuchsvc0`),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
	resource.ParallelTest(t, tc)
}
