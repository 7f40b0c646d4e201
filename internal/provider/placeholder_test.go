package provider

import (
	"context"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// A create whose answer is lost while listing keeps failing cannot be resolved by looking: the apply
// fails with a placeholder in state (placeholder.go), and the next apply finds the VPC the lost create
// made, deletes it and creates one: one VPC at the end, none left behind, the create sent twice in all.
// Not parallel: it shortens wait.LookFor for the package.
func TestAccPlaceholder_lostCreateUnresolved(t *testing.T) {
	t.Run("created", func(t *testing.T) { testPlaceholder(t, emulator.FaultCommitThenFail, 1) })
	// The create failed without doing anything: the next refresh finds nothing and drops the
	// placeholder, and the apply creates the VPC.
	t.Run("not created", func(t *testing.T) { testPlaceholder(t, emulator.FaultServerError, 0) })
}

func testPlaceholder(t *testing.T, createFault emulator.FaultKind, madeByLostCreate int) {
	old := wait.LookFor
	wait.LookFor = 500 * time.Millisecond
	t.Cleanup(func() { wait.LookFor = old })

	srv := newTestEmulator(t)
	var created, failing atomic.Bool
	failing.Store(true)
	srv.SetInterceptor(func(ri emulatortest.RequestInfo) emulatortest.Decision {
		switch {
		case !failing.Load():
		case ri.OperationID == "createVPC" && !created.Load():
			created.Store(true)
			return emulatortest.Decision{Fault: createFault, Inject: true}
		case ri.OperationID == "listVPCs" && created.Load():
			return emulatortest.Decision{Fault: emulator.FaultServerError, Inject: true}
		}
		return emulatortest.Decision{}
	})
	vpcIDs := func() []string {
		vpcs, err := testClient(t, srv).ListVPCs(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, v := range vpcs {
			ids = append(ids, deref(v.ID))
		}
		return ids
	}
	var lost string
	cfg := providerBlock(srv) + `
resource "dbcloud_vpc" "net" {
  name        = "placeholder-net"
  cidr        = "10.9.0.0/16"
  region_code = "us-east-1"
}
`
	resource.Test(t, testCase(t, srv,
		resource.TestStep{Config: cfg, ExpectError: regexp.MustCompile(`placeholder of it in state`)},
		resource.TestStep{
			PreConfig: func() {
				failing.Store(false)
				ids := vpcIDs()
				if len(ids) != madeByLostCreate {
					t.Fatalf("after the lost create: %d VPCs, want %d", len(ids), madeByLostCreate)
				}
				if len(ids) == 1 {
					lost = ids[0]
				}
			},
			Config: cfg,
			Check: func(s *terraform.State) error {
				ids := vpcIDs()
				inState := s.RootModule().Resources["dbcloud_vpc.net"].Primary.ID
				if len(ids) != 1 || ids[0] != inState || inState == lost {
					t.Errorf("VPCs %v, in state %q, made by the lost create %s: want exactly one, the new one in state", ids, inState, lost)
				}
				if n := srv.Calls("createVPC"); n != 2 {
					t.Errorf("createVPC sent %d times, want 2 (the lost one, then one)", n)
				}
				return nil
			},
		},
	))
}
