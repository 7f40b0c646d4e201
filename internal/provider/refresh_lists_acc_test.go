package provider

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// mixedStackConfig is the stack of issue 27 at a size: vpcs VPCs with one peering each, services
// services with one read replica set each.
func mixedStackConfig(srv *emulatortest.Server, vpcs, services int) string {
	return `
terraform {
  required_providers {
    dbcloud = { source = "registry.terraform.io/dbcloud/dbcloud" }
  }
}
` + providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "v" {
  count       = %d
  name        = "mixed-vpc-${count.index}"
  cidr        = "10.${count.index}.0.0/16"
  region_code = "us-east-1"
}
resource "dbcloud_vpc_peering" "p" {
  count            = %d
  vpc_id           = dbcloud_vpc.v[count.index].id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-mixed${count.index}"
}
resource "dbcloud_service" "s" {
  count = %d
  name  = "mixed-${count.index}"
}
resource "dbcloud_read_replica_set" "r" {
  count      = %d
  service_id = dbcloud_service.s[count.index].id
  name       = "mixed-rs-${count.index}"
  cpu_millis = 500
  memory_gbs = 2
}
`, vpcs, vpcs, services, services)
}

// plannedCreates returns the addresses a saved plan creates; it fails the test for any other change.
func plannedCreates(tf *tfWorkdir, planFile string) []string {
	tf.t.Helper()
	var creates []string
	for _, rc := range tf.plan(planFile).ResourceChanges {
		switch strings.Join(rc.Change.Actions, ",") {
		case "create":
			creates = append(creates, rc.Address)
		case "no-op", "read":
		default:
			tf.t.Errorf("the plan %s %s; only creates were expected", strings.Join(rc.Change.Actions, ","), rc.Address)
		}
	}
	slices.Sort(creates)
	return creates
}

// The stack of issue 27 (10 VPCs with one peering each, 40 services with one read replica set
// each: 100 objects) refreshed from lists, with the real terraform against the provider served
// in-process:
//   - a no-change plan sends 12 requests (1 list of services, 1 of VPCs, 1 of peerings per VPC) and
//     plans nothing;
//   - objects of each record type deleted out of band are seen as gone: removed from state by a
//     refresh, and the next plan creates them;
//   - while every list fails, a refresh removes nothing (each object is read on its own) and the
//     plan is empty.
func TestAccRefresh_mixedStackFromLists(t *testing.T) {
	testAccPreCheck(t)
	const vpcs, services = 10, 40
	srv := newTestEmulator(t)
	tf := newTF(t, tfOptions{})
	tf.writeFile("main.tf", mixedStackConfig(srv, vpcs, services))
	tf.must("init", "-input=false")
	tf.must("apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids := tf.stateAddresses()
	if len(ids) != 2*vpcs+2*services {
		t.Fatalf("%d objects in state after apply, want %d", len(ids), 2*vpcs+2*services)
	}

	// 1. A no-change plan: one list per list, nothing else, and nothing to do.
	srv.ResetRequests()
	tf.must("plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
	want := map[string]int{"listServices": 1, "listVPCs": 1, "listPeerings": vpcs}
	got := map[string]int{}
	for _, r := range srv.Requests() {
		got[r.OperationID]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a no-change plan of %d objects sent %v, want %v (%d requests)", len(ids), got, want, 2+vpcs)
	}

	// 2. Deleted out of band, one or two of each record type: a replica set alone, a service with
	// its replica set, a peering alone, a VPC with its peering.
	srv.RemoveReplicaSet(testProjectID, ids["dbcloud_service.s[0]"], ids["dbcloud_read_replica_set.r[0]"])
	srv.RemoveService(testProjectID, ids["dbcloud_service.s[1]"])
	srv.RemovePeering(testProjectID, ids["dbcloud_vpc.v[0]"], ids["dbcloud_vpc_peering.p[0]"])
	srv.RemoveVPC(testProjectID, ids["dbcloud_vpc.v[1]"])
	gone := []string{"dbcloud_read_replica_set.r[0]", "dbcloud_read_replica_set.r[1]", "dbcloud_service.s[1]",
		"dbcloud_vpc.v[1]", "dbcloud_vpc_peering.p[0]", "dbcloud_vpc_peering.p[1]"}
	tf.runWant(2, "plan", "-detailed-exitcode", "-input=false", "-out=gone.tfplan")
	if creates := plannedCreates(tf, "gone.tfplan"); !slices.Equal(creates, gone) {
		t.Errorf("after the out-of-band deletes the plan creates %v, want %v", creates, gone)
	}
	tf.must("apply", "-refresh-only", "-auto-approve", "-input=false")
	left := tf.stateAddresses()
	for _, addr := range gone {
		if _, ok := left[addr]; ok {
			t.Errorf("%s is still in state after a refresh, but it was deleted out of band", addr)
		}
	}
	if len(left) != len(ids)-len(gone) {
		t.Errorf("%d objects in state after the refresh, want %d", len(left), len(ids)-len(gone))
	}
	tf.must("apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids = tf.stateAddresses()

	// 3. Every list fails: a refresh removes nothing and the plan is empty.
	for _, op := range []string{"listServices", "listVPCs", "listPeerings"} {
		srv.InjectFault(op, emulator.FaultServerError, 1_000_000)
	}
	srv.ResetRequests()
	tf.must("apply", "-refresh-only", "-auto-approve", "-input=false", "-parallelism=10")
	if after := tf.stateAddresses(); fmt.Sprint(after) != fmt.Sprint(ids) {
		t.Errorf("a refresh with failing lists changed the state:\n before %v\n after  %v", ids, after)
	}
	if n := srv.Calls("getVPC"); n != vpcs {
		t.Errorf("with failing lists, %d VPCs were read on their own, want %d", n, vpcs)
	}
	tf.must("plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
}
