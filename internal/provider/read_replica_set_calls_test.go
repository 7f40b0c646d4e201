package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// dbcloud_read_replica_set's calls and waits (read_replica_set_calls.go): a create on a busy service
// and a 409, a set that ends in status error, and updates whose answers were lost.

// conflictProxy sits in front of the emulator: it answers 409 to the first createReplicaSet requests, and
// while busyService is set it flips that service to READY after the provider has polled it busyPolls times.
type conflictProxy struct {
	srv *emulatortest.Server

	mu              sync.Mutex
	conflictsToSend int
	creates         int
	busyService     string
	busyPolls       int
	polledWhileBusy int
	onListSets      func()
}

func (p *conflictProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/replicaSets"):
		p.creates++
		if p.conflictsToSend > 0 {
			p.conflictsToSend--
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"code":"CONFLICT","message":"service is CONFIGURING, not READY","details":"injected by the test proxy"}`))
			return
		}
	case r.Method == http.MethodGet && p.busyService != "" && strings.HasSuffix(r.URL.Path, "/services/"+p.busyService):
		p.polledWhileBusy++
		if p.polledWhileBusy >= p.busyPolls {
			p.srv.UpdateService(testProjectID, p.busyService, func(s *api.Service) { s.Status = ptr(api.READY) })
			p.busyService = ""
		}
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/replicaSets") && p.onListSets != nil:
		p.onListSets()
	}
	p.mu.Unlock()
	p.srv.ServeHTTP(w, r)
}

// A replica set created while its service is busy waits for READY, and a 409 from the create call is
// waited out and the create sent again, instead of failing. A 409 that cannot clear by waiting (the set
// is in status error) fails an update at once instead of waiting out the timeout.
func TestAccReadReplicaSet_busyService(t *testing.T) {
	srv := newTestEmulator(t)
	svc := netTestService(t, srv, "busy-parent")
	proxy := &conflictProxy{srv: srv, conflictsToSend: 1, busyPolls: 3}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	busyConfig := func(cpu, mem int) string {
		return proxyProviderBlock(ts.URL) + fmt.Sprintf(`
resource "dbcloud_read_replica_set" "test" {
  service_id = %q
  name       = "patient"
  cpu_millis = %d
  memory_gbs = %d
  timeouts {
    update = "10m"
  }
}
`, svc, cpu, mem)
	}
	var id string

	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			PreConfig: func() {
				srv.UpdateService(testProjectID, svc, func(s *api.Service) { s.Status = ptr(api.CONFIGURING) })
				proxy.mu.Lock()
				proxy.busyService = svc
				proxy.mu.Unlock()
			},
			Config:           busyConfig(500, 2),
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(rsAddr, "status", "active"),
				func(*terraform.State) error {
					proxy.mu.Lock()
					defer proxy.mu.Unlock()
					if proxy.polledWhileBusy < proxy.busyPolls {
						return fmt.Errorf("the provider polled the busy service %d times, want at least %d", proxy.polledWhileBusy, proxy.busyPolls)
					}
					if proxy.creates != 2 {
						return fmt.Errorf("the provider sent %d creates, want 2 (one answered 409, one accepted)", proxy.creates)
					}
					return nil
				},
				netTestCalls(srv, "createReplicaSet", 1),
				netTestCapture(rsAddr, "id", &id),
			),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.UpdateReplicaSet(testProjectID, svc, id, func(rs *api.ReadReplicaSet) { rs.Status = ptr(api.ReplicaSetStatusError) })
			},
			Config:      busyConfig(1000, 4),
			ExpectError: words(`Could not update read replica set`, `is in status "error" and cannot be changed`, `-replace`),
		},
	))
}

// A set that ends in status error fails the apply with a message naming it and the status; the set
// stays in state (tainted) and the final destroy removes it.
func TestAccReadReplicaSet_errorStatus(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ReplicaCreating = time.Hour })
	svc := netTestService(t, srv, "error-parent")
	proxy := &conflictProxy{srv: srv}
	proxy.onListSets = func() {
		s, _ := srv.Service(testProjectID, svc)
		for _, rs := range deref(s.ReadReplicaSets) {
			if deref(rs.Status) == api.ReplicaSetStatusCreating {
				srv.UpdateReplicaSet(testProjectID, svc, deref(rs.ID), func(x *api.ReadReplicaSet) {
					x.Status = ptr(api.ReplicaSetStatusError)
				})
			}
		}
	}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)

	tc := testCase(t, srv,
		resource.TestStep{
			Config: proxyProviderBlock(ts.URL) + fmt.Sprintf(`
resource "dbcloud_read_replica_set" "test" {
  service_id = %q
  name       = "doomed"
  cpu_millis = 500
  memory_gbs = 2
}
`, svc),
			ExpectError: words(`read replica set "doomed"`, `is in status "error"`),
		},
		// The failed set was kept in state (tainted) with its status: the next plan replaces it.
		resource.TestStep{
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			RefreshPlanChecks: resource.RefreshPlanChecks{
				PostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(rsAddr, plancheck.ResourceActionDestroyBeforeCreate)},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrSet(rsAddr, "id"),
				resource.TestCheckResourceAttr(rsAddr, "status", "error"),
				resource.TestCheckResourceAttr(rsAddr, "name", "doomed"),
			),
		},
	)
	tc.CheckDestroy = func(*terraform.State) error {
		s, _ := srv.Service(testProjectID, svc)
		if n := len(deref(s.ReadReplicaSets)); n != 0 {
			// Deletion is asynchronous but the provider waits until the set has left the list.
			return fmt.Errorf("service %s still has %d replica sets after destroy", svc, n)
		}
		return nil
	}
	resource.ParallelTest(t, tc)
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
