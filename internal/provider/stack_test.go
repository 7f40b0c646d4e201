package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

func stackConfig(srv *emulatortest.Server, vpcName string, replicaNodes, replicaCPU, replicaMem int) string {
	return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = %q
  cidr        = "10.50.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name                      = "stack-db"
  addons                    = ["time-series", "ai"]
  region_code               = "us-east-1"
  vpc_id                    = dbcloud_vpc.net.id
  connection_pooler_enabled = true
}

resource "dbcloud_read_replica_set" "reader" {
  service_id = dbcloud_service.db.id
  name       = "stack-reader"
  nodes      = %d
  cpu_millis = %d
  memory_gbs = %d
}

resource "dbcloud_vpc_peering" "peer" {
  vpc_id           = dbcloud_vpc.net.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-0stack"
}
`, vpcName, replicaNodes, replicaCPU, replicaMem)
}

// A VPC, a service attached to it, a replica set on the service and a peering on the VPC: one apply,
// one in-place change (VPC rename and replica resize), one destroy, in the right order, with nothing
// left behind.
func TestAccStack_vpcServiceReplicaPeering(t *testing.T) {
	srv := newTestEmulator(t)
	const (
		vpcAddr     = "dbcloud_vpc.net"
		serviceAddr = "dbcloud_service.db"
		replicaAddr = "dbcloud_read_replica_set.reader"
		peerAddr    = "dbcloud_vpc_peering.peer"
	)
	var vpcID, serviceID, replicaID, peeringID string

	tc := testCase(t, srv,
		resource.TestStep{
			Config: stackConfig(srv, "stack-net", 1, 500, 2),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(serviceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(replicaAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectResourceAction(peerAddr, plancheck.ResourceActionCreate),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(vpcAddr, "id", &vpcID),
				netTestCapture(serviceAddr, "id", &serviceID),
				netTestCapture(replicaAddr, "id", &replicaID),
				netTestCapture(peerAddr, "id", &peeringID),
				resource.TestCheckResourceAttrPair(serviceAddr, "vpc_id", vpcAddr, "id"),
				resource.TestCheckResourceAttr(serviceAddr, "status", "READY"),
				resource.TestCheckResourceAttr(serviceAddr, "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttrSet(serviceAddr, "vpc_hostname"),
				resource.TestCheckResourceAttrPair(replicaAddr, "service_id", serviceAddr, "id"),
				resource.TestCheckResourceAttr(replicaAddr, "status", "active"),
				resource.TestCheckResourceAttrPair(peerAddr, "vpc_id", vpcAddr, "id"),
				resource.TestMatchResourceAttr(peerAddr, "provisioned_id", regexp.MustCompile(`^pcx-`)),
				func(*terraform.State) error {
					svc, ok := srv.Service(testProjectID, serviceID)
					if !ok || svc.VpcEndpoint == nil || deref(svc.VpcEndpoint.VpcID) != vpcID {
						return fmt.Errorf("emulator: service %s is not attached to VPC %s", serviceID, vpcID)
					}
					if deref(svc.ServiceType) != "TIMESCALEDB" {
						return fmt.Errorf("emulator: service type %q, want TIMESCALEDB", deref(svc.ServiceType))
					}
					if rs, ok := srv.ReplicaSet(testProjectID, serviceID, replicaID); !ok || deref(rs.Status) != api.ReplicaSetStatusActive {
						return fmt.Errorf("emulator: replica set %s found=%v status=%s", replicaID, ok, deref(rs.Status))
					}
					if _, ok := srv.Peering(testProjectID, vpcID, peeringID); !ok {
						return fmt.Errorf("emulator: no peering %s on VPC %s", peeringID, vpcID)
					}
					return nil
				},
			),
		},
		// Rename the VPC and resize the replica set: updates in place only, nothing else moves.
		resource.TestStep{
			Config: stackConfig(srv, "stack-net-renamed", 1, 1000, 4),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction(replicaAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectResourceAction(serviceAddr, plancheck.ResourceActionNoop),
				plancheck.ExpectResourceAction(peerAddr, plancheck.ResourceActionNoop),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(vpcAddr, "id", &vpcID),
				resource.TestCheckResourceAttrPtr(serviceAddr, "id", &serviceID),
				resource.TestCheckResourceAttrPtr(replicaAddr, "id", &replicaID),
				resource.TestCheckResourceAttrPtr(peerAddr, "id", &peeringID),
				resource.TestCheckResourceAttr(vpcAddr, "name", "stack-net-renamed"),
				resource.TestCheckResourceAttr(replicaAddr, "nodes", "1"),
				resource.TestCheckResourceAttr(replicaAddr, "cpu_millis", "1000"),
				resource.TestCheckResourceAttr(replicaAddr, "memory_gbs", "4"),
				resource.TestCheckResourceAttr(replicaAddr, "status", "active"),
				netTestCalls(srv, "resizeReplicaSet", 1),
				func(*terraform.State) error {
					if v, _ := srv.VPC(testProjectID, vpcID); deref(v.Name) != "stack-net-renamed" {
						return fmt.Errorf("emulator: VPC %s is named %q", vpcID, deref(v.Name))
					}
					return nil
				},
			),
		},
	)
	// The framework destroys everything after the last step, in one terraform destroy.
	tc.CheckDestroy = func(*terraform.State) error {
		c := testClient(t, srv)
		ctx := context.Background()
		services, err := c.ListServices(ctx)
		if err != nil {
			return err
		}
		vpcs, err := c.ListVPCs(ctx)
		if err != nil {
			return err
		}
		// The list shows a DELETED service for a while after the destroy that saw it DELETED.
		if live := notDeleted(services); len(live) != 0 || len(vpcs) != 0 {
			return fmt.Errorf("after destroy the emulator still holds %d services (not DELETED) and %d VPCs", len(live), len(vpcs))
		}
		if _, ok := srv.ReplicaSet(testProjectID, serviceID, replicaID); ok {
			return fmt.Errorf("replica set %s still exists", replicaID)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}
