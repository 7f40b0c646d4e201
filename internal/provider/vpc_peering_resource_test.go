package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

const peeringAddr = "dbcloud_vpc_peering.test"

func peeringConfig(srv *emulatortest.Server, peerVPC, extra string) string {
	return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "test" {
  name        = "peered"
  cidr        = "10.3.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_vpc_peering" "test" {
  vpc_id           = dbcloud_vpc.test.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-west-2"
  peer_vpc_id      = %q
%s
}
`, peerVPC, extra)
}

// peeringInEmulator checks that the emulator holds the peering the state names.
func peeringInEmulator(srv *emulatortest.Server, peerVPC string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		vpcID, err := netTestAttr(s, peeringAddr, "vpc_id")
		if err != nil {
			return err
		}
		id, err := netTestAttr(s, peeringAddr, "id")
		if err != nil {
			return err
		}
		p, ok := srv.Peering(testProjectID, vpcID, id)
		if !ok || deref(p.PeerVpcID) != peerVPC {
			return fmt.Errorf("emulator: peering %s of VPC %s found=%v peer_vpc_id=%q, want %q", id, vpcID, ok, deref(p.PeerVpcID), peerVPC)
		}
		return nil
	}
}

func TestAccVPCPeering_lifecycle(t *testing.T) {
	srv := newTestEmulator(t)
	var vpcID, id1, id2, id3 string

	resource.ParallelTest(t, testCase(t, srv,
		// Create: returns once provisioned_id is known; the peer has not necessarily accepted.
		resource.TestStep{
			Config:           peeringConfig(srv, "vpc-0a1b2c3d", ""),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture("dbcloud_vpc.test", "id", &vpcID),
				netTestCapture(peeringAddr, "id", &id1),
				resource.TestCheckResourceAttrPtr(peeringAddr, "vpc_id", &vpcID),
				resource.TestMatchResourceAttr(peeringAddr, "provisioned_id", regexp.MustCompile(`^pcx-[0-9a-f]+$`)),
				resource.TestMatchResourceAttr(peeringAddr, "status", regexp.MustCompile(`^(pending|active)$`)),
				resource.TestCheckNoResourceAttr(peeringAddr, "error_message"),
				peeringInEmulator(srv, "vpc-0a1b2c3d"),
			),
		},
		// The peer accepts outside Terraform: a refresh picks up the new status, and the plan stays empty.
		resource.TestStep{
			RefreshState: true,
			Check:        resource.TestCheckResourceAttr(peeringAddr, "status", "active"),
		},
		// Import by <vpc_id>/<peering_id>.
		resource.TestStep{
			ResourceName:            peeringAddr,
			ImportState:             true,
			ImportStateIdFunc:       netTestImportID(peeringAddr, "vpc_id", "id"),
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"timeouts"},
		},
		// The only in-place change: the timeouts block. No API call, status stays as it is.
		resource.TestStep{
			Config: peeringConfig(srv, "vpc-0a1b2c3d", `  timeouts {
    create = "3m"
  }`),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(peeringAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(peeringAddr, "id", &id1),
				netTestCalls(srv, "createPeering", 1),
			),
		},
		// Any argument replaces the peering.
		resource.TestStep{
			Config:           peeringConfig(srv, "vpc-9f8e7d6c", ""),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionDestroyBeforeCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(peeringAddr, "id", &id2),
				peeringInEmulator(srv, "vpc-9f8e7d6c"),
				func(*terraform.State) error {
					if _, ok := srv.Peering(testProjectID, vpcID, id1); ok {
						return fmt.Errorf("the replaced peering %s still exists", id1)
					}
					return nil
				},
			),
		},
		// Drift: deleted behind Terraform's back, re-created.
		resource.TestStep{
			PreConfig: func() {
				if !srv.RemovePeering(testProjectID, vpcID, id2) {
					t.Fatalf("peering %s was not in the emulator", id2)
				}
			},
			Config:           peeringConfig(srv, "vpc-9f8e7d6c", ""),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture(peeringAddr, "id", &id3),
				func(*terraform.State) error {
					if id3 == id2 {
						return fmt.Errorf("the peering was not re-created")
					}
					return nil
				},
				peeringInEmulator(srv, "vpc-9f8e7d6c"),
			),
		},
		// A malformed import id is rejected with the expected form.
		resource.TestStep{
			ResourceName:  peeringAddr,
			ImportState:   true,
			ImportStateId: "1234567890",
			ExpectError:   regexp.MustCompile(`<vpc_id>/<peering_id>`),
		},
	))
}

// A peering the API reports as failed fails the apply with the API's error_message.
func TestAccVPCPeering_failure(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      peeringConfig(srv, emulator.FailingPeerVPCPrefix+"-0042", ""),
			ExpectError: words(`Could not create VPC peering`, `failed with status "failed"`, `peer VPC not found in account 123456789012`),
		},
		// The failed peering is in state (tainted) with its error_message: the next plan replaces it.
		resource.TestStep{
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			RefreshPlanChecks: resource.RefreshPlanChecks{
				PostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrSet(peeringAddr, "id"),
				resource.TestCheckResourceAttr(peeringAddr, "status", "failed"),
				resource.TestMatchResourceAttr(peeringAddr, "error_message", regexp.MustCompile(`^peer VPC not found in account 123456789012`)),
			),
		},
	))
}

// A peering deleted behind Terraform's back leaves state on the next refresh, and the next plan
// creates it again (its VPC stays).
func TestAccVPCPeering_disappears(t *testing.T) {
	srv := newTestEmulator(t)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: peeringConfig(srv, "vpc-0d15a99ea5", ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckVPCExists(srv, "dbcloud_vpc.test"),
				testAccCheckVPCPeeringExists(srv, peeringAddr),
				testAccCheckVPCPeeringDisappears(srv, peeringAddr),
			),
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(peeringAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction("dbcloud_vpc.test", plancheck.ResourceActionNoop),
				},
			},
		},
	))
}
