package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// The API goes away for a while (every request answered 503, or connections closed unanswered, and
// nothing carried out) during an apply, a plan, a create and a destroy: each rides it out, creates
// nothing twice, and the plan after it is empty. Each case runs for both kinds of outage, in parallel
// (a change cut by drops: the drop kind only; a POST answered 503 is retried by the client itself):
// the wall time of the file is about that of its longest outage plus the apply.
//
// The windows are written at the scale of a real outage (90 s, 60 s, ...) and shrunk by outageScale,
// with the backoff that rides them out, so that each command meets an outage with as many attempts as
// at full scale, in a tenth of the time.

// outageScaleEnv names the factor by which the outage tests shrink their outage windows and the
// backoff that rides them out: 0.1 when unset (make test), 1 for the reliability guide's figures
// (TEST_OUTAGE_SCALE=1 go test -run TestAccOutage ...).
const outageScaleEnv = "TEST_OUTAGE_SCALE"

var outageScale = outageScaleFrom(os.Getenv(outageScaleEnv))

// outageScaleFrom reads the factor: a number in (0, 1], 0.1 otherwise.
func outageScaleFrom(v string) float64 {
	if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 && f <= 1 {
		return f
	}
	return 0.1
}

// outageWindow is the test's window for an outage of d at full scale.
func outageWindow(d time.Duration) time.Duration {
	return time.Duration(float64(d) * outageScale)
}

// outageRetry is the client's retry policy of these tests: a backoff from 200 ms capped at 2 s at full
// scale, as a real outage would see it (the other tests' 100 ms would flood the log), and the default
// budget of reads.
var outageRetry = testOutageRetry()

func testOutageRetry() *api.RetryPolicy {
	p := *testRetry
	p.WaitMin, p.WaitMax = outageWindow(200*time.Millisecond), outageWindow(2*time.Second)
	p.MaxElapsed = 0 // the default: 5 minutes for a read in a plan
	return &p
}

func outageProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return outageProviderFactoriesWith(outageRetry)
}

// outageProviderFactoriesWith is outageProviderFactories with the client's retry policy retry.
func outageProviderFactoriesWith(retry *api.RetryPolicy) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"dbcloud": func() (tfprotov6.ProviderServer, error) {
			return providerserver.NewProtocol6WithError(newWithOptions("test", options{backoff: testBackoff, apiRetry: retry})())()
		},
	}
}

// outageProviderServer is the provider of the outage tests (a backoff capped at 2 s at full scale, the
// default budget of reads), for the tests that drive the terraform binary themselves.
func outageProviderServer() (tfprotov6.ProviderServer, error) {
	return outageProviderFactories()["dbcloud"]()
}

var outageKinds = []emulator.OutageKind{emulator.OutageUnavailable, emulator.OutageDrop}

// forEachOutageKind runs test as a parallel subtest for each kind of outage.
func forEachOutageKind(t *testing.T, test func(t *testing.T, kind emulator.OutageKind)) {
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			test(t, kind)
		})
	}
}

// outageCase is testCase with the provider of these tests.
func outageCase(t *testing.T, srv *emulatortest.Server, steps ...resource.TestStep) resource.TestCase {
	tc := testCase(t, srv, steps...)
	tc.ProtoV6ProviderFactories = outageProviderFactories()
	return tc
}

// outageRidden checks that the outage srv had was met and is over, and logs its figures.
func outageRidden(t *testing.T, srv *emulatortest.Server, name string, started *time.Time) resource.TestCheckFunc {
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

// An apply of a VPC, two services, a replica set and a peering through 90 s of outage (at full scale)
// that starts at its first create.
func TestAccOutage_applyStack(t *testing.T) {
	t.Parallel()
	window := outageWindow(90 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
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
				srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "write"})
			},
			Config:           config,
			ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_vpc_peering.peer", plancheck.ResourceActionCreate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				outageRidden(t, srv, "apply of the stack through "+window.String()+" of "+kind.String(), &started),
				oneCreateEach(srv, map[string]int{"createVPC": 1, "createService": 2, "createReplicaSet": 1, "createPeering": 1}),
			),
		}))
	})
}

// oneCreateEach checks that each create operation was carried out (answered 2xx) exactly want times
// since the emulator started: no duplicate, nothing missing.
func oneCreateEach(srv *emulatortest.Server, want map[string]int) resource.TestCheckFunc {
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

// A no-change plan through 60 s of outage (at full scale) that starts at its first request.
func TestAccOutage_noChangePlan(t *testing.T) {
	t.Parallel()
	window := outageWindow(60 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		srv := newTestEmulator(t)
		config := stackConfig(srv, "outage-plan", 1, 500, 2)
		var started time.Time
		resource.Test(t, outageCase(t, srv,
			resource.TestStep{Config: config},
			resource.TestStep{
				PreConfig: func() {
					started = time.Now()
					srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "any"})
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
						t.Logf("outage case no-change plan through %s of %s: %d requests met the outage; the plan took %s", window, kind, rep.Refused, time.Since(started).Round(time.Second))
					}
				},
			},
		))
	})
}

// A create sent into 45 s of outage (at full scale): the apply adds a service, and the outage starts at
// its create. One create is made, no duplicate.
func TestAccOutage_createSentIntoOutage(t *testing.T) {
	t.Parallel()
	window := outageWindow(45 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		srv := newTestEmulator(t)
		base := stackConfig(srv, "outage-create", 1, 500, 2)
		var started time.Time
		resource.Test(t, outageCase(t, srv,
			resource.TestStep{Config: base},
			resource.TestStep{
				PreConfig: func() {
					started = time.Now()
					srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "createService"})
				},
				Config: base + `
resource "dbcloud_service" "added" {
  name = "outage-added"
}
`,
				ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_service.added", plancheck.ResourceActionCreate)),
				Check: resource.ComposeAggregateTestCheckFunc(
					outageRidden(t, srv, "create sent into "+window.String()+" of "+kind.String(), &started),
					oneCreateEach(srv, map[string]int{"createService": 2}), // the stack's and the added one
				),
			},
		))
	})
}

// A destroy through 60 s of outage (at full scale) that starts at its first delete; CheckDestroy then
// finds nothing.
func TestAccOutage_destroy(t *testing.T) {
	t.Parallel()
	window := outageWindow(60 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		srv := newTestEmulator(t)
		var started time.Time
		tc := outageCase(t, srv, resource.TestStep{
			Config: stackConfig(srv, "outage-destroy", 1, 500, 2),
			Check: func(*terraform.State) error {
				// Armed here, it starts at the destroy's first delete (the test's last command).
				started = time.Now()
				srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "write"})
				return nil
			},
		})
		checkDestroyed := tc.CheckDestroy
		tc.CheckDestroy = func(s *terraform.State) error {
			if err := outageRidden(t, srv, "destroy through "+window.String()+" of "+kind.String(), &started)(s); err != nil {
				return err
			}
			return checkDestroyed(s)
		}
		resource.Test(t, tc)
	})
}

// A rename sent into 15 s of outage (at full scale; the emulator's chaos run found it): the rename's
// lost answer is followed by a look once the API answers, and the rename again; the plan after it is
// empty.
func TestAccOutage_renameSentIntoOutage(t *testing.T) {
	t.Parallel()
	window := outageWindow(15 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
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
					srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "renameVPC"})
				},
				Config: config("outage-renamed"),
				Check: resource.ComposeAggregateTestCheckFunc(
					outageRidden(t, srv, "rename sent into "+window.String()+" of "+kind.String(), &started),
					resource.TestCheckResourceAttr("dbcloud_vpc.net", "name", "outage-renamed"),
				),
			},
		))
	})
}

// An update call cut by an outage of dropped connections (40 s at full scale) that starts at the call, after which
// reads answer but the call's next 6 sends are dropped too (a load balancer whose write path comes back
// last): more lost answers in a row than the call's retries count (4 for a service, 5 for a VPC) and
// than a wait's transient errors (5). The call is sent again (after a look, where a record shows it)
// until the API answers, within the update's budget; the change is in effect, carried out once, and
// the plan after it is empty. Two calls: the admin password's rotation (password_wo_version bumped: no
// record shows a password, so it is sent again without a look) and a VPC rename.
func TestAccOutage_updateCutByDrops(t *testing.T) {
	t.Parallel()
	const writesDroppedAfter = 6
	window := outageWindow(40 * time.Second)
	cases := []struct {
		name, op string
		config   func(step int) string
		// done checks the change in the emulator; carried is how often op was carried out in all.
		done    func(srv *emulatortest.Server, s *terraform.State) error
		carried int
	}{
		{
			name: "password rotation", op: "updatePassword", carried: 2, // the create's and the rotation's
			config: func(step int) string {
				return fmt.Sprintf(`
resource "dbcloud_service" "pw" {
  name                = "outage-password"
  password_wo         = "Outage-Passw0rd-%[1]d"
  password_wo_version = %[1]d
}
`, step)
			},
			done: func(srv *emulatortest.Server, s *terraform.State) error {
				id := s.RootModule().Resources["dbcloud_service.pw"].Primary.ID
				if got := srv.ServicePassword(testProjectID, id); got != "Outage-Passw0rd-2" {
					return fmt.Errorf("service %s does not have the rotated password (it has one of %d characters)", id, len(got))
				}
				return nil
			},
		},
		{
			name: "VPC rename", op: "renameVPC", carried: 1,
			config: func(step int) string {
				return fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = "outage-drops-%d"
  cidr        = "10.61.0.0/16"
  region_code = "us-east-1"
}
`, step)
			},
			done: func(srv *emulatortest.Server, s *terraform.State) error {
				id := s.RootModule().Resources["dbcloud_vpc.net"].Primary.ID
				if v, ok := srv.VPC(testProjectID, id); !ok || deref(v.Name) != "outage-drops-2" {
					return fmt.Errorf("VPC %s is not renamed in the emulator: %q", id, deref(v.Name))
				}
				return nil
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			var started time.Time
			var sentBefore int
			resource.Test(t, needsWriteOnly(outageCase(t, srv,
				resource.TestStep{Config: providerBlock(srv) + c.config(1)},
				resource.TestStep{
					PreConfig: func() {
						started, sentBefore = time.Now(), srv.Calls(c.op)
						srv.SetOutage(emulator.Outage{Kind: emulator.OutageDrop, Duration: window, StartOn: c.op})
						// Scripted faults come after the outage in the emulator's chain: these meet the
						// call's first sends after the window.
						srv.InjectFault(c.op, emulator.FaultDrop, writesDroppedAfter)
					},
					Config:           providerBlock(srv) + c.config(2),
					ConfigPlanChecks: emptyPlanAfterApply(plancheck.ExpectNonEmptyPlan()),
					Check: resource.ComposeAggregateTestCheckFunc(
						outageRidden(t, srv, c.name+" cut by "+window.String()+" of drop, then "+fmt.Sprint(writesDroppedAfter)+" more drops of "+c.op, &started),
						func(s *terraform.State) error { return c.done(srv, s) },
						oneCreateEach(srv, map[string]int{c.op: c.carried}),
						func(*terraform.State) error {
							// the send that started the window, each of the scripted drops, the one answered
							if sent := srv.Calls(c.op) - sentBefore; sent < 1+writesDroppedAfter+1 {
								return fmt.Errorf("%s sent %d times during the update, want at least %d", c.op, sent, 1+writesDroppedAfter+1)
							}
							t.Logf("%s: %s sent %d times, the update took %s", c.name, c.op, srv.Calls(c.op)-sentBefore, time.Since(started).Round(time.Second))
							return nil
						},
					),
				},
			)))
		})
	}
}

// A VPC's create has no timeouts of its own: the client's outage budget, outage_timeout, is its
// deadline, as it is of every operation without one (the waits have no budget of their own). An
// outage of 6 minutes (at full scale) that starts at the create, longer than the client's default budget
// of 5 minutes (scaled here like the outage), is ridden out when outage_timeout = 10m (scaled) allows it:
// one VPC, and the plan after it is empty. Without outage_timeout the default budget ends the create
// during the outage, with an error and no VPC.
func TestAccOutage_vpcCreateLongerThanTheDefaultBudget(t *testing.T) {
	t.Parallel()
	window := outageWindow(6 * time.Minute)
	scaledDefault := *outageRetry
	scaledDefault.MaxElapsed = outageWindow(api.DefaultMaxElapsed)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		for _, allowed := range []bool{true, false} {
			t.Run(map[bool]string{true: "outage_timeout 10m", false: "default budget"}[allowed], func(t *testing.T) {
				t.Parallel()
				srv := newTestEmulator(t)
				provider := providerBlock(srv)
				if allowed {
					provider = strings.Replace(provider, "\n}\n", fmt.Sprintf("\n  outage_timeout = %q\n}\n", outageWindow(10*time.Minute)), 1)
				}
				var started time.Time
				step := resource.TestStep{
					PreConfig: func() {
						started = time.Now()
						srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: "createVPC"})
					},
					Config: provider + `
resource "dbcloud_vpc" "net" {
  name        = "outage-long"
  cidr        = "10.62.0.0/16"
  region_code = "us-east-1"
}
`,
				}
				if allowed {
					step.ConfigPlanChecks = emptyPlanAfterApply(plancheck.ExpectResourceAction("dbcloud_vpc.net", plancheck.ResourceActionCreate))
					step.Check = resource.ComposeAggregateTestCheckFunc(
						outageRidden(t, srv, "VPC create through "+window.String()+" of "+kind.String()+" with outage_timeout", &started),
						oneCreateEach(srv, map[string]int{"createVPC": 1}),
					)
				} else {
					step.ExpectError = words("Could not create VPC")
				}
				tc := testCase(t, srv, step)
				tc.ProtoV6ProviderFactories = outageProviderFactoriesWith(&scaledDefault)
				resource.Test(t, tc)
				if !allowed {
					if rep := srv.LastOutage(); rep.Refused == 0 || srv.Calls("createVPC") == 0 {
						t.Errorf("the create did not meet the outage: %+v, %d creates sent", rep, srv.Calls("createVPC"))
					}
					if err := oneCreateEach(srv, map[string]int{"createVPC": 0})(nil); err != nil {
						t.Error(err)
					}
				}
			})
		}
	})
}

// A fork sent into 45 s of outage (at full scale: outageWindow) that starts at the fork call itself, for
// both kinds of outage: the `fork` block of dbcloud_service here, the dbcloud_service_fork action in
// TestAccServiceForkAction_outage (service_fork_action_test.go). A fork whose answer was lost (a dropped
// connection) is looked for once the API answers, and sent again only when the look proves it was not
// made: exactly one fork is made, and the plan after is empty.

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

// What is not a resource rides an outage too: data sources and a short-lived login
// (dbcloud_service_credentials) in an apply, a `terraform query` of list resources, and an action
// (dbcloud_service_restart) whose stop is sent into the outage. Each command meets 40 s of outage at
// full scale (every request answered 503, or every connection closed unanswered: longer than the
// attempts after which a read used to give up, about 30 s at full scale; outageWindow shrinks both),
// succeeds, and the action's stop and start are each carried out once. Needs Terraform 1.14 or later (query, actions) and the PostgreSQL
// server binaries (the login is a real one).

const outageReadsPassword = "Outage-reads-pw-1"

// outageReadsConfig is the service, the data sources, a login used by a probe (the test binary, run by
// a local-exec provisioner with the login's connection string, as the credentials tests do), and the
// restart action. var.run replaces the probe, so that each apply opens the login and uses it.
func outageReadsConfig(out string) string {
	bin, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`
variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "run" {
  type    = number
  default = 1
}

resource "dbcloud_service" "s" {
  name                = "outage-reads"
  password_wo         = var.admin_password
  password_wo_version = 1
}

data "dbcloud_services" "all" {}

data "dbcloud_service" "s" {
  id = dbcloud_service.s.id
}

data "dbcloud_vpcs" "all" {}

output "names" {
  value = [for s in data.dbcloud_services.all.services : s.name]
}

output "status" {
  value = data.dbcloud_service.s.status
}

output "vpcs" {
  value = length(data.dbcloud_vpcs.all.vpcs)
}

ephemeral "dbcloud_service_credentials" "login" {
  service_id     = dbcloud_service.s.id
  admin_password = var.admin_password
  ttl            = "10m"
}

resource "terraform_data" "probe" {
  triggers_replace = [var.run]

  provisioner "local-exec" {
    command = %[1]q
    environment = {
      %[2]s = "sql"
      CREDS_SQL = "SELECT 1"
      CREDS_URI = ephemeral.dbcloud_service_credentials.login.connection_uri
      CREDS_OUT = "%[3]s-${var.run}.json"
    }
  }
}

action "dbcloud_service_restart" "restart" {
  config {
    service_id = dbcloud_service.s.id
  }
}
`, bin, credsProbeEnv, out)
}

const outageReadsQuery = `
list "dbcloud_service" "all" {
  provider = dbcloud
}

list "dbcloud_vpc" "all" {
  provider = dbcloud
}
`

func TestAccOutage_readsLoginQueryAndAction(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	window := outageWindow(40 * time.Second)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		tf := newTerraformServing(t, "1.14.0", outageProviderServer)
		tf.env = append(tf.env, "TF_VAR_admin_password="+outageReadsPassword)
		out := filepath.Join(t.TempDir(), "probe")
		_, withPG := startPostgres(t)
		at := newActionTestOn(t, tf, outageReadsConfig(out), withPG)
		writeFile(t, filepath.Join(at.tf.dir, "outage.tfquery.hcl"), outageReadsQuery)
		down := func(what string, startOn string) (met func() string) {
			at.srv.ResetRequests()
			started := time.Now()
			at.srv.SetOutage(emulator.Outage{Kind: kind, Duration: window, StartOn: startOn})
			return func() string {
				rep := at.srv.LastOutage()
				if rep.Start.IsZero() || rep.Refused == 0 {
					t.Fatalf("%s: the outage never started (%+v)", what, rep)
				}
				if time.Now().Before(rep.End) {
					t.Fatalf("%s: the command ended before the outage did (%s)", what, rep.End)
				}
				s := fmt.Sprintf("%s through %s of %s: %d requests met the outage; %s", what, window, kind, rep.Refused, time.Since(started).Round(time.Second))
				t.Log("outage case " + s)
				return s
			}
		}

		// 1. An apply that reads the data sources and opens the login (at plan and at apply), and
		// uses it: the outage starts at its first request.
		met := down("apply with data sources and a login", "any")
		at.tf.env = append(at.tf.env, "TF_VAR_run=2") // this run's probe, and every later command's
		if o, code := at.tf.runCode("apply", "-auto-approve", "-input=false"); code != 0 {
			t.Fatalf("apply through the outage: exit code %d\n%s", code, o)
		}
		met()
		var probe credsProbeResult
		b, err := os.ReadFile(out + "-2.json")
		if err != nil {
			t.Fatalf("the probe of the apply did not run: %v", err)
		}
		if err := json.Unmarshal(b, &probe); err != nil || probe.Err != "" || probe.User == "" || probe.User == "tsdbadmin" {
			t.Fatalf("the login of the apply: %+v (%v), want a session of a login of its own", probe, err)
		}
		outputs := at.tf.must("output", "-json")
		if !strings.Contains(outputs, `"outage-reads"`) || !strings.Contains(outputs, `"READY"`) {
			t.Errorf("the data sources' outputs after the outage: %s", outputs)
		}

		// 2. terraform query of the list resources.
		met = down("terraform query", "any")
		o, code := at.tf.runCode("query")
		if code != 0 {
			t.Fatalf("query through the outage: exit code %d\n%s", code, o)
		}
		met()
		if !strings.Contains(o, at.id) {
			t.Errorf("the query's output does not name the service %s:\n%s", at.id, o)
		}

		// 3. The restart action, its stop sent into the outage: one stop and one start carried out.
		met = down("restart action", "stopService")
		o, code = at.tf.runCode("apply", "-auto-approve", "-input=false", "-invoke=action.dbcloud_service_restart.restart")
		if code != 0 {
			t.Fatalf("restart through the outage: exit code %d\n%s", code, o)
		}
		met()
		handled := map[string]int{}
		for _, r := range at.srv.Requests() {
			if r.Method != http.MethodGet && r.Status != 0 && r.Status != http.StatusServiceUnavailable {
				handled[r.OperationID]++
			}
		}
		if handled["stopService"] != 1 || handled["startService"] != 1 || len(handled) != 2 {
			t.Errorf("calls that reached the API's handler: %v, want one stopService and one startService", handled)
		}
		if st := at.status(t); st != api.READY {
			t.Errorf("the service is %s after the restart, want READY", st)
		}
		at.emptyPlan(t, "the outages")
	})
}
