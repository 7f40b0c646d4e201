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
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

const vpcAddr = "dbcloud_vpc.test"

func vpcConfig(srv *emulatortest.Server, name, cidr, region string) string {
	return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "test" {
  name        = %q
  cidr        = %q
  region_code = %q
}
`, name, cidr, region)
}

// vpcInEmulator checks the VPC the state names against the emulator.
func vpcInEmulator(srv *emulatortest.Server, name, cidr, region string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := netTestAttr(s, vpcAddr, "id")
		if err != nil {
			return err
		}
		v, ok := srv.VPC(testProjectID, id)
		if !ok {
			return fmt.Errorf("emulator has no VPC %s", id)
		}
		if deref(v.Name) != name || deref(v.Cidr) != cidr || deref(v.RegionCode) != region {
			return fmt.Errorf("emulator VPC %s is %q %s %s, want %q %s %s", id, deref(v.Name), deref(v.Cidr), deref(v.RegionCode), name, cidr, region)
		}
		return nil
	}
}

// vpcGone checks that the emulator no longer has the VPC *id.
func vpcGone(srv *emulatortest.Server, id *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if _, ok := srv.VPC(testProjectID, *id); ok {
			return fmt.Errorf("VPC %s still exists in the emulator", *id)
		}
		return nil
	}
}

func TestAccVPC_lifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	var id1, id2, id3, id4 string

	resource.ParallelTest(t, testCase(t, srv,
		// A CIDR that is not a network address, or too large, is rejected at plan time.
		resource.TestStep{
			Config:      vpcConfig(srv, "net", "10.0.0.1/16", "us-east-1"),
			PlanOnly:    true,
			ExpectError: words(`Invalid CIDR block`, `Did you mean 10.0.0.0/16?`),
		},
		resource.TestStep{
			Config:      vpcConfig(srv, "net", "10.0.0.0/8", "us-east-1"),
			PlanOnly:    true,
			ExpectError: words(`prefix length /8`, `from /16`, `to /28`),
		},
		// Create.
		resource.TestStep{
			Config:           vpcConfig(srv, "net-a", "10.0.0.0/16", "us-east-1"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(vpcAddr, "id", &id1),
				resource.TestMatchResourceAttr(vpcAddr, "id", regexp.MustCompile(`^\d+$`)),
				resource.TestCheckResourceAttr(vpcAddr, "name", "net-a"),
				resource.TestCheckResourceAttr(vpcAddr, "cidr", "10.0.0.0/16"),
				resource.TestCheckResourceAttr(vpcAddr, "region_code", "us-east-1"),
				vpcInEmulator(srv, "net-a", "10.0.0.0/16", "us-east-1"),
			),
		},
		// Import by id.
		resource.TestStep{
			ResourceName:            vpcAddr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
		// Rename in place: the live API (and the emulator) answers the rename 200 with an empty body, so
		// the provider reads the VPC again; same id, an update, one rename call, no create.
		resource.TestStep{
			Config:           vpcConfig(srv, "net-b", "10.0.0.0/16", "us-east-1"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(vpcAddr, "id", &id1),
				resource.TestCheckResourceAttr(vpcAddr, "name", "net-b"),
				vpcInEmulator(srv, "net-b", "10.0.0.0/16", "us-east-1"),
				netTestCalls(srv, "renameVPC", 1),
				netTestCalls(srv, "createVPC", 1),
				func(*terraform.State) error {
					readAfter, renamed := false, false
					for _, r := range srv.Requests() {
						switch {
						case r.OperationID == "renameVPC":
							if r.Status != 200 {
								return fmt.Errorf("renameVPC answered %d, want 200", r.Status)
							}
							renamed = true
						case renamed && r.OperationID == "getVPC":
							readAfter = true
						}
					}
					if !readAfter {
						return fmt.Errorf("the provider did not read the VPC again after the empty rename answer")
					}
					return nil
				},
			),
		},
		// A new CIDR replaces the VPC.
		resource.TestStep{
			Config:           vpcConfig(srv, "net-b", "10.1.0.0/20", "us-east-1"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionDestroyBeforeCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(vpcAddr, "id", &id2),
				vpcGone(srv, &id1),
				vpcInEmulator(srv, "net-b", "10.1.0.0/20", "us-east-1"),
			),
		},
		// A new region replaces the VPC.
		resource.TestStep{
			Config:           vpcConfig(srv, "net-b", "10.1.0.0/20", "eu-west-1"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionDestroyBeforeCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(vpcAddr, "id", &id3),
				vpcGone(srv, &id2),
				vpcInEmulator(srv, "net-b", "10.1.0.0/20", "eu-west-1"),
			),
		},
		// Drift: deleted behind Terraform's back, re-created.
		resource.TestStep{
			PreConfig: func() {
				if !srv.RemoveVPC(testProjectID, id3) {
					t.Fatalf("VPC %s was not in the emulator", id3)
				}
			},
			Config:           vpcConfig(srv, "net-b", "10.1.0.0/20", "eu-west-1"),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(vpcAddr, "id", &id4),
				func(*terraform.State) error {
					if id4 == id3 {
						return fmt.Errorf("the VPC was not re-created")
					}
					return nil
				},
				vpcInEmulator(srv, "net-b", "10.1.0.0/20", "eu-west-1"),
			),
		},
		// A malformed import id is rejected with the expected form.
		resource.TestStep{
			ResourceName:  vpcAddr,
			ImportState:   true,
			ImportStateId: "123/456",
			ExpectError:   regexp.MustCompile(`<vpc_id>`),
		},
	))
}

// Deleting a VPC that a service and a peering still use fails with an error that names them; once
// they are gone, the delete goes through.
func TestAccVPC_deleteInUse(t *testing.T) {
	srv := newTestEmulator(t)
	c := testClient(t, srv)
	ctx := context.Background()
	svc := netTestService(t, srv, "vpc-user")
	var vpcID, peeringID string

	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           vpcConfig(srv, "busy-net", "10.2.0.0/16", "us-east-1"),
			ConfigPlanChecks: emptyPlanAfterApply(),
			Check:            netTestCapture(vpcAddr, "id", &vpcID),
		},
		resource.TestStep{
			PreConfig: func() {
				if err := c.AttachToVPC(ctx, svc, vpcID); err != nil {
					t.Fatalf("attach: %v", err)
				}
				p, err := c.CreatePeering(ctx, vpcID, api.PeeringCreate{PeerAccountID: "123456789012", PeerRegionCode: "us-east-1", PeerVpcID: "vpc-holder"})
				if err != nil {
					t.Fatalf("create peering: %v", err)
				}
				peeringID = deref(p.ID)
			},
			Config: providerBlock(srv), // the VPC leaves the configuration: Terraform deletes it
			ExpectError: words(
				`Could not delete VPC`, `still in use`,
				`service `+svc, `name "vpc-user"`,
				`peering`, `peer VPC vpc-holder`,
				`detach the services`, `delete the peerings`,
			),
		},
		resource.TestStep{
			PreConfig: func() {
				netTestWaitService(t, srv, svc, api.READY)
				if err := c.DetachFromVPC(ctx, svc, vpcID); err != nil {
					t.Fatalf("detach: %v", err)
				}
				if err := c.DeletePeering(ctx, vpcID, peeringID); err != nil {
					t.Fatalf("delete peering: %v", err)
				}
			},
			Config:           providerBlock(srv),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionDestroy)),
			Check:            vpcGone(srv, &vpcID),
		},
	))
}

// A create whose answer is lost (the API carried it out, then answered 500) is resolved by looking for
// the new object, never by creating it a second time: VPC, peering and replica set alike.
func TestAccVPC_ambiguousCreatesAreAdopted(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "ambiguous")
	for _, op := range []string{"createVPC", "createPeering", "createReplicaSet"} {
		srv.InjectFault(op, emulator.FaultCommitThenFail, 1)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "test" {
  name        = "lost-answer"
  cidr        = "10.4.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_vpc_peering" "test" {
  vpc_id           = dbcloud_vpc.test.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-lost"
}

resource "dbcloud_read_replica_set" "test" {
  service_id = %q
  name       = "lost-answer"
  cpu_millis = 500
  memory_gbs = 2
}
`, svc),
			ConfigPlanChecks: emptyPlanAfterApply(),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCalls(srv, "createVPC", 1),
				netTestCalls(srv, "createPeering", 1),
				netTestCalls(srv, "createReplicaSet", 1),
				vpcInEmulator(srv, "lost-answer", "10.4.0.0/16", "us-east-1"),
				peeringInEmulator(srv, "vpc-lost"),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				func(*terraform.State) error {
					vpcs, err := testClient(t, srv).ListVPCs(context.Background())
					if err != nil || len(vpcs) != 1 {
						return fmt.Errorf("want exactly 1 VPC, got %d (%w)", len(vpcs), err)
					}
					s, _ := srv.Service(testProjectID, svc)
					if n := len(deref(s.ReadReplicaSets)); n != 1 {
						return fmt.Errorf("want exactly 1 replica set, got %d", n)
					}
					return nil
				},
			),
		},
	))
}

// A VPC deleted behind Terraform's back leaves state on the next refresh, and the next plan creates
// it again.
func TestAccVPC_disappears(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: vpcConfig(srv, "disappears", "10.9.0.0/16", "us-east-1"),
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckVPCExists(srv, vpcAddr),
				testAccCheckVPCDisappears(srv, vpcAddr),
			),
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vpcAddr, plancheck.ResourceActionCreate)},
			},
		},
	))
}
