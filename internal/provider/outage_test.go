package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// The API goes away for a while (every request answered 503, or connections closed unanswered, and
// nothing carried out) during an apply, a plan, a create and a destroy: each rides it out, creates
// nothing twice, and the plan after it is empty. Each case runs for both kinds of outage, in parallel:
// the wall time of the file is about that of its longest outage (90 s) plus the apply.

// outageRetry is the client's retry policy of these tests: a backoff capped at 2 s, as a real
// outage would see it (the other tests' 100 ms would flood the log), and the default budget of reads.
var outageRetry = testOutageRetry()

func testOutageRetry() *api.RetryPolicy {
	p := *testRetry
	p.WaitMin, p.WaitMax = 200*time.Millisecond, 2*time.Second
	p.MaxElapsed = 0 // the default: 5 minutes for a read in a plan
	return &p
}

func outageProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"dbcloud": func() (tfprotov6.ProviderServer, error) {
			return providerserver.NewProtocol6WithError(newWithOptions("test", options{backoff: testBackoff, apiRetry: outageRetry})())()
		},
	}
}

var outageKinds = []emulator.OutageKind{emulator.OutageUnavailable, emulator.OutageDrop}

// outageCase is testCase with the provider of these tests.
func outageCase(t *testing.T, srv *emulator.Server, steps ...resource.TestStep) resource.TestCase {
	tc := testCase(t, srv, steps...)
	tc.ProtoV6ProviderFactories = outageProviderFactories()
	return tc
}

// outageRidden checks that the outage srv had was met and is over, and logs its figures.
func outageRidden(t *testing.T, srv *emulator.Server, name string, started *time.Time) resource.TestCheckFunc {
	return func(*terraform.State) error {
		rep := srv.LastOutage()
		if rep.Start.IsZero() || rep.Refused == 0 {
			return fmt.Errorf("%s: the outage never started (%+v)", name, rep)
		}
		if time.Now().Before(rep.End) {
			return fmt.Errorf("%s: the command finished at %s, before the outage ended at %s: it cannot have ridden it out", name, time.Now(), rep.End)
		}
		t.Logf("outage case %s: %s outage of %s met %d requests; the command took %s", name, rep.Kind, rep.Duration, rep.Refused, time.Since(*started).Round(time.Second))
		return nil
	}
}

// An apply of a VPC, two services, a replica set and a peering through 90 s of outage that starts
// at its first create.
func TestAccOutage_applyStack(t *testing.T) {
	t.Parallel()
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			var started time.Time
			config := stackConfig(srv, "outage-net", 1, 500, 2) + `
resource "dbcloud_service" "second" {
  name = "outage-second"
}
`
			resource.Test(t, outageCase(t, srv, resource.TestStep{
				PreConfig: func() {
					started = time.Now()
					srv.SetOutage(emulator.Outage{Kind: kind, Duration: 90 * time.Second, StartOn: "write"})
				},
				Config:           config,
				ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_vpc_peering.peer", plancheck.ResourceActionCreate)),
				Check: resource.ComposeAggregateTestCheckFunc(
					outageRidden(t, srv, "apply of the stack through 90 s of "+kind.String(), &started),
					oneCreateEach(srv, map[string]int{"createVPC": 1, "createService": 2, "createReplicaSet": 1, "createPeering": 1}),
				),
			}))
		})
	}
}

// oneCreateEach checks that each create operation was carried out (answered 2xx) exactly want times
// since the emulator started: no duplicate, nothing missing.
func oneCreateEach(srv *emulator.Server, want map[string]int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := map[string]int{}
		for _, r := range srv.Requests() {
			if r.Status >= 200 && r.Status < 300 {
				got[r.OperationID]++
			}
		}
		for op, n := range want {
			if got[op] != n {
				return fmt.Errorf("%s carried out %d times, want %d (a duplicate or a missing object)", op, got[op], n)
			}
		}
		return nil
	}
}

// A no-change plan through 60 s of outage that starts right before it.
func TestAccOutage_noChangePlan(t *testing.T) {
	t.Parallel()
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			config := stackConfig(srv, "outage-plan", 1, 500, 2)
			var started time.Time
			resource.Test(t, outageCase(t, srv,
				resource.TestStep{Config: config},
				resource.TestStep{
					PreConfig: func() {
						started = time.Now()
						srv.SetOutage(emulator.Outage{Kind: kind, Duration: 60 * time.Second})
					},
					Config:   config,
					PlanOnly: true, // fails unless the plan (with its refresh) succeeds and is empty
				},
				resource.TestStep{
					Config: config, PlanOnly: true,
					PreConfig: func() {
						if rep := srv.LastOutage(); rep.Refused == 0 || time.Now().Before(rep.End) {
							t.Errorf("the plan did not ride out the outage: %+v", rep)
						} else {
							t.Logf("outage case no-change plan through 60 s of %s: %d requests met the outage; the plan took %s", kind, rep.Refused, time.Since(started).Round(time.Second))
						}
					},
				},
			))
		})
	}
}

// A create sent into 45 s of outage: the apply adds a service, and the outage starts at its create.
// One create is made, no duplicate.
func TestAccOutage_createSentIntoOutage(t *testing.T) {
	t.Parallel()
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			base := stackConfig(srv, "outage-create", 1, 500, 2)
			var started time.Time
			resource.Test(t, outageCase(t, srv,
				resource.TestStep{Config: base},
				resource.TestStep{
					PreConfig: func() {
						started = time.Now()
						srv.SetOutage(emulator.Outage{Kind: kind, Duration: 45 * time.Second, StartOn: "createService"})
					},
					Config: base + `
resource "dbcloud_service" "added" {
  name = "outage-added"
}
`,
					ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_service.added", plancheck.ResourceActionCreate)),
					Check: resource.ComposeAggregateTestCheckFunc(
						outageRidden(t, srv, "create sent into 45 s of "+kind.String(), &started),
						oneCreateEach(srv, map[string]int{"createService": 2}), // the stack's and the added one
					),
				},
			))
		})
	}
}

// A destroy through 60 s of outage that starts at its first delete; CheckDestroy then finds nothing.
func TestAccOutage_destroy(t *testing.T) {
	t.Parallel()
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			var started time.Time
			tc := outageCase(t, srv, resource.TestStep{
				Config: stackConfig(srv, "outage-destroy", 1, 500, 2),
				Check: func(*terraform.State) error {
					// Armed here, it starts at the destroy's first delete (the test's last command).
					started = time.Now()
					srv.SetOutage(emulator.Outage{Kind: kind, Duration: 60 * time.Second, StartOn: "write"})
					return nil
				},
			})
			checkDestroyed := tc.CheckDestroy
			tc.CheckDestroy = func(s *terraform.State) error {
				if err := outageRidden(t, srv, "destroy through 60 s of "+kind.String(), &started)(s); err != nil {
					return err
				}
				return checkDestroyed(s)
			}
			resource.Test(t, tc)
		})
	}
}

// A rename sent into 15 s of outage (the emulator's chaos run found it): the rename's lost answer is
// followed by a look once the API answers, and the rename again; the plan after it is empty.
func TestAccOutage_renameSentIntoOutage(t *testing.T) {
	t.Parallel()
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			config := func(name string) string {
				return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = %q
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}
`, name)
			}
			var started time.Time
			resource.Test(t, outageCase(t, srv,
				resource.TestStep{Config: config("outage-rename")},
				resource.TestStep{
					PreConfig: func() {
						started = time.Now()
						srv.SetOutage(emulator.Outage{Kind: kind, Duration: 15 * time.Second, StartOn: "renameVPC"})
					},
					Config: config("outage-renamed"),
					Check: resource.ComposeAggregateTestCheckFunc(
						outageRidden(t, srv, "rename sent into 15 s of "+kind.String(), &started),
						resource.TestCheckResourceAttr("dbcloud_vpc.net", "name", "outage-renamed"),
					),
				},
			))
		})
	}
}
