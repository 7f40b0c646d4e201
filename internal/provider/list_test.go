package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// The import round trip of a whole project, with the real terraform binary the acceptance tests use
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH), when it is 1.14 or later: `terraform query
// -generate-config-out` writes import blocks and configuration for everything the list resources find,
// that configuration imports with nothing to change, and a plan afterwards is empty.
func TestAccQuery_generateConfigRoundTrip(t *testing.T) {
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	o := listTestSetUp(t, srv)
	// A time-series+ai service: the API reports only its type, so the generated addons are
	// ["time-series"], which imports without a change (see the importing guide).
	ts, err := testClient(t, srv).CreateService(context.Background(), api.ServiceCreate{Name: "list-ts", Addons: &[]api.Addon{api.Addon(addonTimeSeries), api.Addon(addonAI)}})
	if err != nil {
		t.Fatalf("creating the time-series service: %v", err)
	}
	netTestWaitService(t, srv, deref(ts.ServiceID), api.READY)

	tf.writeFile("main.tf", providerBlock(srv))
	// The query of the importing guide: every VPC and service, the peerings of every VPC found and the
	// replica sets of every service found.
	query, err := os.ReadFile(filepath.Join("..", "..", "examples", "guides", "importing-query", "discover.tfquery.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	tf.writeFile("discover.tfquery.hcl", string(query))

	var generated []byte
	tf.must("init", "-input=false")
	tf.must("query", "-generate-config-out=generated.tf")
	generated, err = os.ReadFile(filepath.Join(tf.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.tf:\n%s", generated)
	for _, want := range []string{o.vpcID, o.peeringID, o.serviceID, o.otherServiceID, o.replicaSetID, deref(ts.ServiceID)} {
		if !bytes.Contains(generated, []byte(want)) {
			t.Errorf("generated.tf does not name %s", want)
		}
	}
	if n := bytes.Count(generated, []byte("import {")); n != 6 {
		t.Errorf("generated.tf has %d import blocks, want 6", n)
	}

	// The generated configuration imports everything and changes nothing.
	tf.must("plan", "-input=false", "-out=import.tfplan")
	changes := tf.plan("import.tfplan").ResourceChanges
	if len(changes) != 6 {
		t.Errorf("the plan has %d resource changes, want 6 imports", len(changes))
	}
	for _, rc := range changes {
		if strings.Join(rc.Change.Actions, ",") != "no-op" || len(rc.Change.Importing) == 0 {
			t.Errorf("%s: actions %v, importing %s; want a no-op import", rc.Address, rc.Change.Actions, rc.Change.Importing)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	tf.must("apply", "-input=false", "import.tfplan")

	// Afterwards the state matches the configuration: an empty plan.
	if out, code := tf.runCode("plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	if got := strings.Fields(tf.must("state", "list")); len(got) != 6 {
		t.Errorf("state has %d objects, want 6: %v", len(got), got)
	}
}
