package provider

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// A fork sent into 45 s of outage (at full scale: outageWindow) that starts at the fork call itself, for
// both kinds of outage: the `fork` block of dbcloud_service and the dbcloud_service_fork action. A fork
// whose answer was lost (a dropped connection) is looked for once the API answers, and sent again only
// when the look proves it was not made: exactly one fork is made, and the plan after is empty.

// outageProviderServer is the provider of the outage tests (outage_test.go: a backoff capped at 2 s at
// full scale, the default budget of reads), for the tests that drive the terraform binary themselves.
func outageProviderServer() (tfprotov6.ProviderServer, error) {
	return outageProviderFactories()["dbcloud"]()
}

// forkCalls counts the fork calls the emulator received since its request log was last reset (sent),
// and those that reached its handler: not met by the outage, which drops them (status 0) or answers
// 503 (nothing else answers 503 in these tests).
func forkCalls(srv *emulatortest.Server) (sent, handled int) {
	for _, r := range srv.Requests() {
		if r.OperationID != "forkService" {
			continue
		}
		sent++
		if r.Status != 0 && r.Status != http.StatusServiceUnavailable {
			handled++
		}
	}
	return sent, handled
}

// oneForkOf checks that exactly one fork of the source exists, that it is the one in state (fork, a
// dbcloud_service address; "" for none), and that exactly one fork call reached the API's handler.
func oneForkOf(t *testing.T, srv *emulatortest.Server, what, sourceID, forkID string) error {
	forks := forksOf(srv, sourceID)
	sent, handled := forkCalls(srv)
	t.Logf("%s: %d fork calls sent, %d reached the API's handler; %d forks of %s", what, sent, handled, len(forks), sourceID)
	if len(forks) != 1 {
		ids := make([]string, 0, len(forks))
		for _, f := range forks {
			ids = append(ids, deref(f.ServiceID))
		}
		return fmt.Errorf("%s: %d forks of %s (%s), want exactly 1", what, len(forks), sourceID, strings.Join(ids, ", "))
	}
	if forkID != "" && deref(forks[0].ServiceID) != forkID {
		return fmt.Errorf("%s: the fork of %s is %s, but state holds %s", what, sourceID, deref(forks[0].ServiceID), forkID)
	}
	if handled != 1 {
		return fmt.Errorf("%s: %d fork calls reached the API's handler, want 1", what, handled)
	}
	return nil
}

const forkOutageConfig = `
resource "dbcloud_service" "source" {
  name = "outage-source"
}

resource "dbcloud_service" "fork" {
  name = "outage-fork"
  fork {
    source_service_id = dbcloud_service.source.id
    strategy          = "NOW"
  }
}
`

// The fork block: an apply that creates a source and its fork, with the outage starting at the fork.
// The fork is made once, its answer (with initial_password) is the one in state, the plan after is
// empty.
func TestAccOutage_forkSentIntoOutage(t *testing.T) {
	t.Parallel()
	window := outageWindow(45 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		srv := newTestEmulator(t)
		name := "fork sent into " + window.String() + " of " + kind.String()
		var started time.Time
		resource.Test(t, outageCase(t, srv, resource.TestStep{
			PreConfig: func() {
				started = time.Now()
				srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "forkService"})
			},
			Config:           providerBlock(srv) + forkOutageConfig,
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_service.fork", plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				outageRidden(t, srv, name, &started),
				oneCreateEach(srv, map[string]int{"createService": 1, "forkService": 1}),
				func(s *terraform.State) error {
					source, fork := s.RootModule().Resources["dbcloud_service.source"], s.RootModule().Resources["dbcloud_service.fork"]
					if source == nil || fork == nil {
						return fmt.Errorf("%s: the source or the fork is not in state", name)
					}
					return oneForkOf(t, srv, name, source.Primary.ID, fork.Primary.ID)
				},
				resource.TestCheckResourceAttrPair("dbcloud_service.fork", "forked_from.service_id", "dbcloud_service.source", "id"),
				resource.TestCheckResourceAttr("dbcloud_service.fork", "status", "READY"),
				// The answer of the fork that was made, not an adoption (whose password is unknown).
				resource.TestCheckResourceAttrSet("dbcloud_service.fork", "initial_password"),
			),
		}))
	})
}

const forkActionOutageConfig = `
resource "dbcloud_service" "s" {
  name = "orders"
}

action "dbcloud_service_fork" "copy" {
  config {
    service_id = dbcloud_service.s.id
    name       = "orders-copy"
  }
}
`

// The dbcloud_service_fork action, invoked with the outage starting at its fork: it succeeds, one fork
// is made and is READY, the progress says what happened, the plan after is empty.
func TestAccServiceForkAction_outage(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	window := outageWindow(45 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		at := newActionTestOn(t, newTerraformServing(t, "1.14.0", outageProviderServer), forkActionOutageConfig)
		name := "fork action sent into " + window.String() + " of " + kind.String()
		started := time.Now()
		at.srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "forkService"})
		out, code, _ := at.invoke(t, "dbcloud_service_fork.copy")
		if code != 0 {
			t.Fatalf("%s: exit code %d\n%s", name, code, out)
		}
		if err := outageRidden(t, at.srv, name, &started)(nil); err != nil {
			t.Error(err)
		}
		if err := oneForkOf(t, at.srv, name, at.id, ""); err != nil {
			t.Fatal(err)
		}
		fork := forksOf(at.srv, at.id)[0]
		id := deref(fork.ServiceID)
		want := []string{fmt.Sprintf("fork %s (%q) is READY after", id, "orders-copy")}
		if kind == emulator.OutageDrop {
			// The dropped fork: looked for, not found, sent again.
			want = append(want,
				`the answer to the fork was lost: looking for a new service "orders-copy" instead of forking again`,
				`no service "orders-copy" appeared, so the fork was not made: forking again`)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no progress message %q in the output:\n%s", name, w, out)
			}
		}
		at.emptyPlan(t, name)
	})
}
