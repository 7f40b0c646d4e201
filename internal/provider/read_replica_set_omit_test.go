package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Removing an optional argument from the configuration never changes or replaces anything: the
// object keeps the server's value. Every optional argument of dbcloud_read_replica_set is set to a
// value other than its create-time default, then removed: the plan is empty (one argument at a time,
// then all of them at once). dbcloud_vpc and dbcloud_vpc_peering have no optional arguments (every
// argument is required), so they have no row here.
func TestAccNetOptionalArgumentsRemoved(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "omit-parent")
	optional := map[string]string{
		"nodes":                     "nodes = 2",
		"environment":               `environment = "PROD"`,
		"connection_pooler_enabled": "connection_pooler_enabled = true",
	}
	body := func(except ...string) string {
		var b strings.Builder
		b.WriteString("  cpu_millis = 500\n  memory_gbs = 2\n")
		for _, name := range []string{"nodes", "environment", "connection_pooler_enabled"} {
			skip := false
			for _, e := range except {
				skip = skip || e == name
			}
			if !skip {
				b.WriteString("  " + optional[name] + "\n")
			}
		}
		return b.String()
	}
	steps := []resource.TestStep{{
		Config: rsConfig(srv, svc, "omit", body()),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
			resource.TestCheckResourceAttr(rsAddr, "environment", "PROD"),
			resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "true"),
		),
	}}
	for _, name := range []string{"nodes", "environment", "connection_pooler_enabled"} {
		steps = append(steps, resource.TestStep{
			Config:   rsConfig(srv, svc, "omit", body(name)),
			PlanOnly: true, // fails on any planned change
		})
	}
	// All removed at once, applied: nothing is sent, the set keeps its values.
	steps = append(steps, resource.TestStep{
		PreConfig: srv.ResetRequests,
		Config:    rsConfig(srv, svc, "omit", body("nodes", "environment", "connection_pooler_enabled")),
		ConfigPlanChecks: emptyPlanAfterApply(
			plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionNoop),
			plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("nodes"), knownvalue.Int64Exact(2)),
		),
		Check: resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(rsAddr, "nodes", "2"),
			resource.TestCheckResourceAttr(rsAddr, "environment", "PROD"),
			resource.TestCheckResourceAttr(rsAddr, "connection_pooler_enabled", "true"),
			func(*terraform.State) error {
				for _, r := range srv.Requests() {
					if r.Method != "GET" {
						return fmt.Errorf("removing optional arguments sent %s %s", r.Method, r.Path)
					}
				}
				return nil
			},
		),
	})
	resource.ParallelTest(t, testCase(t, srv, steps...))
}

// A set whose status is creating in state (an apply interrupted during the create's wait, here put
// there through the emulator) plans an update to active, and the apply waits for the set: same id, no
// second create.
func TestAccReadReplicaSet_resumesTransitionalStatus(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "resume-parent")
	cfg := rsConfig(srv, svc, "resumed", "  cpu_millis = 500\n  memory_gbs = 2\n")
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg, Check: netTestCapture(rsAddr, "id", &id)},
		resource.TestStep{
			PreConfig: func() {
				srv.SetReplicaSetStatus(testProjectID, svc, id, api.ReplicaSetStatusCreating)
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check:              resource.TestCheckResourceAttr(rsAddr, "status", "creating"),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.ResetRequests()
				go func() {
					// Active once the apply has polled the set a few times (bounded: a failed step
					// must not leave this goroutine behind).
					waitUntil(2*time.Minute, func() bool { return srv.Calls("listReplicaSets") >= 3 })
					srv.SetReplicaSetStatus(testProjectID, svc, id, api.ReplicaSetStatusActive)
				}()
			},
			Config: cfg,
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(rsAddr, tfjsonpath.New("status"), knownvalue.StringExact("active")),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr(rsAddr, "id", &id),
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				netTestCalls(srv, "createReplicaSet", 0),
			),
		},
	))
}
