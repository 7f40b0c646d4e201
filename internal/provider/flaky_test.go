package provider

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// The full stack applies, changes and destroys against a flaky API: one request in ten is rate
// limited (429), reads meet 502/503s, and the creates of the service, the VPC and the replica set are
// carried out but their answers are lost (a 500, a dropped connection). Every create is sent exactly
// once and adopted by looking; nothing is created twice and nothing is left behind.
func TestAccFlakyAPI_stackSurvives(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) {
		o.Faults = emulator.Faults{RateLimit: 0.1, RetryAfter: 0, Seed: 42}
	})
	srv.InjectFault("getService", emulator.FaultUnavailable, 3)
	srv.InjectFault("listReplicaSets", emulator.FaultBadGateway, 2)
	srv.InjectFault("getVPC", emulator.FaultUnavailable, 2)
	srv.InjectFault("createService", emulator.FaultCommitThenFail, 1)
	srv.InjectFault("createVPC", emulator.FaultCommitThenFail, 1)
	srv.InjectFault("createReplicaSet", emulator.FaultCommitThenDrop, 1)

	countStatus := func(status int) int {
		n := 0
		for _, r := range srv.Requests() {
			if r.Status == status {
				n++
			}
		}
		return n
	}
	var serviceID string
	tc := testCase(t, srv,
		resource.TestStep{
			Config: stackConfig(srv, "flaky-net", 1, 500, 2),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction("dbcloud_service.db", plancheck.ResourceActionCreate),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				netTestCapture("dbcloud_service.db", "id", &serviceID),
				resource.TestCheckResourceAttr("dbcloud_service.db", "status", "READY"),
				resource.TestCheckResourceAttr("dbcloud_read_replica_set.reader", "status", "active"),
				func(*terraform.State) error {
					for op, want := range map[string]int{"createService": 1, "createVPC": 1, "createReplicaSet": 1} {
						if got := srv.Calls(op); got != want {
							return fmt.Errorf("%s sent %d times, want exactly %d (a lost answer must be resolved by looking)", op, got, want)
						}
					}
					if n := len(srv.Services(testProjectID)); n != 1 {
						return fmt.Errorf("%d services exist, want 1", n)
					}
					if countStatus(http.StatusTooManyRequests) == 0 || countStatus(http.StatusServiceUnavailable) == 0 {
						return fmt.Errorf("the test did not exercise the faults: 429s=%d 503s=%d",
							countStatus(http.StatusTooManyRequests), countStatus(http.StatusServiceUnavailable))
					}
					return nil
				},
			),
		},
		resource.TestStep{
			Config: stackConfig(srv, "flaky-net-renamed", 2, 1000, 4),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction("dbcloud_vpc.net", plancheck.ResourceActionUpdate),
				// nodes 1 -> 2: the live API fixes a set's node count at create, so the set is replaced.
				plancheck.ExpectResourceAction("dbcloud_read_replica_set.reader", plancheck.ResourceActionReplace),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr("dbcloud_service.db", "id", &serviceID),
				resource.TestCheckResourceAttr("dbcloud_read_replica_set.reader", "nodes", "2"),
			),
		},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		srv.SetFaults(emulator.Faults{})
		c := testClient(t, srv)
		services, err := c.ListServices(context.Background())
		if err != nil {
			return err
		}
		vpcs, err := c.ListVPCs(context.Background())
		if err != nil {
			return err
		}
		// The list shows a DELETED service for a while after the destroy that saw it DELETED.
		if live := notDeleted(services); len(live) != 0 || len(vpcs) != 0 {
			return fmt.Errorf("after destroy %d services (not DELETED) and %d VPCs remain", len(live), len(vpcs))
		}
		return nil
	}
	resource.ParallelTest(t, tc)
}

// Updates whose answers are lost are resolved by looking: a change the service shows applied is not
// sent again (resize answered 500 after it was carried out; attach whose connection dropped after it
// was carried out); a change that did not happen is sent again once the service is READY (environment
// answered 500, pooler answered 503, both without doing anything). The apply succeeds either way.
func TestAccFlakyAPI_lostUpdateAnswers(t *testing.T) {
	srv := newTestEmulator(t)
	config := func(cpu, mem int, env string, pooler bool, withVPC bool) string {
		vpc := ""
		if withVPC {
			vpc = "vpc_id = dbcloud_vpc.net.id"
		}
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = "flaky-update-net"
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name                      = "flaky-update"
  region_code               = "us-east-1"
  cpu_millis                = %d
  memory_gbs                = %d
  environment               = %q
  connection_pooler_enabled = %t
  %s
}
`, cpu, mem, env, pooler, vpc)
	}
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: config(1000, 4, "DEV", false, false),
			Check:  netTestCapture("dbcloud_service.db", "id", &id),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.ResetRequests()
				srv.InjectFault("resizeService", emulator.FaultCommitThenFail, 1)
				srv.InjectFault("attachServiceToVPC", emulator.FaultCommitThenDrop, 1)
				srv.InjectFault("setEnvironment", emulator.FaultServerError, 1)
				srv.InjectFault("enablePooler", emulator.FaultUnavailable, 1)
			},
			Config: config(2000, 8, "PROD", true, true),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction("dbcloud_service.db", plancheck.ResourceActionUpdate),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr("dbcloud_service.db", "id", &id),
				resource.TestCheckResourceAttr("dbcloud_service.db", "cpu_millis", "2000"),
				resource.TestCheckResourceAttr("dbcloud_service.db", "environment", "PROD"),
				resource.TestCheckResourceAttr("dbcloud_service.db", "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttrPair("dbcloud_service.db", "vpc_id", "dbcloud_vpc.net", "id"),
				func(*terraform.State) error {
					for op, want := range map[string]int{
						"resizeService": 1, "attachServiceToVPC": 1, // carried out: looked, not sent again
						"setEnvironment": 2, "enablePooler": 2, // not carried out: sent again
					} {
						if got := srv.Calls(op); got != want {
							return fmt.Errorf("%s sent %d times, want %d", op, got, want)
						}
					}
					svc, _ := srv.Service(testProjectID, id)
					f := flattenService(&svc)
					if f.CPUMillis.ValueInt64() != 2000 || f.Environment.ValueString() != "PROD" || !f.ConnectionPoolerEnabled.ValueBool() || f.VpcID.IsNull() {
						return fmt.Errorf("emulator state not as configured: %+v", f)
					}
					return nil
				},
			),
		},
	))
}

// The same for a read replica set: a resize carried out but answered 500 is not sent again; an
// environment change answered 500 without being carried out, and a pooler change answered 502, are
// sent again.
func TestAccFlakyAPI_lostReplicaSetUpdateAnswers(t *testing.T) {
	srv := newTestEmulator(t)
	config := func(nodes, cpu, mem int, env string, pooler bool) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "db" {
  name = "flaky-replica-parent"
}

resource "dbcloud_read_replica_set" "r" {
  service_id                = dbcloud_service.db.id
  name                      = "flaky-replica"
  nodes                     = %d
  cpu_millis                = %d
  memory_gbs                = %d
  environment               = %q
  connection_pooler_enabled = %t
}
`, nodes, cpu, mem, env, pooler)
	}
	const addr = "dbcloud_read_replica_set.r"
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: config(1, 500, 2, "DEV", false),
			Check:  netTestCapture(addr, "id", &id),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.ResetRequests()
				srv.InjectFault("resizeReplicaSet", emulator.FaultCommitThenFail, 1)
				srv.InjectFault("setReplicaSetEnvironment", emulator.FaultServerError, 1)
				srv.InjectFault("enableReplicaSetPooler", emulator.FaultBadGateway, 1)
			},
			Config: config(1, 1000, 4, "PROD", true),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(addr, "id", &id),
				resource.TestCheckResourceAttr(addr, "nodes", "1"),
				resource.TestCheckResourceAttr(addr, "cpu_millis", "1000"),
				resource.TestCheckResourceAttr(addr, "environment", "PROD"),
				resource.TestCheckResourceAttr(addr, "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttr(addr, "status", "active"),
				func(*terraform.State) error {
					for op, want := range map[string]int{"resizeReplicaSet": 1, "setReplicaSetEnvironment": 2, "enableReplicaSetPooler": 2} {
						if got := srv.Calls(op); got != want {
							return fmt.Errorf("%s sent %d times, want %d", op, got, want)
						}
					}
					return nil
				},
			),
		},
		// A nodes change is a replacement, not an update.
		resource.TestStep{
			Config: config(2, 1000, 4, "PROD", true),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(addr, "nodes", "2"),
				resource.TestCheckResourceAttr(addr, "connection_pooler_enabled", "true"),
				netTestCalls(srv, "resizeReplicaSet", 1),
				netTestCalls(srv, "createReplicaSet", 1),
			),
		},
	))
}
