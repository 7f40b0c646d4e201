package provider

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Fleets: many services in one run, and many runs at once, against an API that rate-limits them (and
// goes away for a while): the client's shared limiter and backoff across resources, runs and
// provider processes.

const (
	fleetSize      = 30
	fleetRateLimit = 5 // requests per second the emulator accepts
)

// fleetStats summarises the emulator's request log.
type fleetStats struct {
	requests, limited               int
	createsAccepted, createsLimited int
	deletesAccepted, deletesLimited int
	polls, otherErrors              int
	byOperation                     map[string]int
}

func statsOf(reqs []emulator.Request) fleetStats {
	s := fleetStats{byOperation: map[string]int{}}
	for _, r := range reqs {
		s.requests++
		s.byOperation[r.OperationID]++
		limited := r.Status == http.StatusTooManyRequests
		if limited {
			s.limited++
		}
		switch {
		case r.OperationID == "createService" && limited:
			s.createsLimited++
		case r.OperationID == "createService" && r.Status >= 200 && r.Status < 300: // carried out (a dropped request logs 0)
			s.createsAccepted++
		case r.OperationID == "deleteService" && limited:
			s.deletesLimited++
		case r.OperationID == "deleteService" && r.Status >= 200 && r.Status < 300: // carried out (a dropped request logs 0)
			s.deletesAccepted++
		}
		if r.OperationID == "getService" {
			s.polls++
		}
		// A 404 is how a poll sees a deleted service; anything else but 429 is an error.
		if !limited && r.Status >= 400 && (r.Status != http.StatusNotFound || r.OperationID != "getService") {
			s.otherErrors++
		}
	}
	return s
}

// Issue 11, point 3: a fleet of 30 services is applied and destroyed against an API that accepts 5
// requests per second and answers the rest 429 with Retry-After. Every create and delete succeeds,
// each service is created exactly once, nothing is left, and the shared limiter keeps the 429s to a
// small share of the requests.
//
// Parallelism: terraform-plugin-testing runs apply and destroy with Terraform's default parallelism of
// 10 and offers no setting for it; terraform-exec strips TF_CLI_ARGS and TF_CLI_ARGS_* from the
// environment of the commands it runs, so -parallelism=30 cannot be passed either. With 10 operations
// at a time against 5 requests per second the API, not Terraform, is the bottleneck either way: the
// client's shared limiter is what is being tested.
func TestAccFleet_thirtyServicesUnderRateLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about a minute")
	}
	// In parallel with the other tests: its own emulator and provider, so its own rate limit and
	// limiter; the minute it waits on the rate limit is not added to the package's time.
	t.Parallel()
	srv := newTestEmulator(t)
	srv.SetModes(emulator.Modes{RequestsPerSecond: fleetRateLimit})
	config := providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "fleet" {
  count = %d
  name  = "fleet-${count.index}"
}
`, fleetSize)

	start := time.Now()
	var applied fleetStats
	var applyTime time.Duration
	tc := testCase(t, srv, resource.TestStep{
		Config: config,
		Check: func(*terraform.State) error {
			applyTime = time.Since(start)
			applied = statsOf(srv.Requests())
			services := srv.Services(testProjectID)
			if len(services) != fleetSize {
				return fmt.Errorf("%d services exist after apply, want %d", len(services), fleetSize)
			}
			names := map[string]bool{}
			for _, s := range services {
				if s.Status == nil || *s.Status != "READY" {
					return fmt.Errorf("service %s is %v, want READY", *s.Name, s.Status)
				}
				names[*s.Name] = true
			}
			if len(names) != fleetSize {
				return fmt.Errorf("%d distinct names among %d services: a duplicate", len(names), fleetSize)
			}
			if applied.createsAccepted != fleetSize {
				return fmt.Errorf("%d create POSTs accepted, want exactly %d", applied.createsAccepted, fleetSize)
			}
			return nil
		},
	})
	tc.CheckDestroy = func(*terraform.State) error {
		if left := liveServices(srv); len(left) != 0 {
			return fmt.Errorf("%d services left after destroy (not DELETED)", len(left))
		}
		return nil
	}
	resource.Test(t, tc)
	wall := time.Since(start)

	all := statsOf(srv.Requests())
	t.Logf("fleet of %d services at %d req/s: apply %v (%d requests, %d answered 429), apply+destroy %v",
		fleetSize, fleetRateLimit, applyTime.Round(100*time.Millisecond), applied.requests, applied.limited, wall.Round(100*time.Millisecond))
	t.Logf("all: %d requests, %d answered 429 (%.1f%%), %d other errors; creates: %d accepted, %d answered 429; deletes: %d accepted, %d answered 429; service GETs: %d",
		all.requests, all.limited, 100*float64(all.limited)/float64(max(all.requests, 1)), all.otherErrors,
		all.createsAccepted, all.createsLimited, all.deletesAccepted, all.deletesLimited, all.polls)
	var ops []string
	for op, n := range all.byOperation {
		ops = append(ops, fmt.Sprintf("%s=%d", op, n))
	}
	t.Logf("by operation: %s", strings.Join(ops, " "))

	if all.createsAccepted != fleetSize || all.deletesAccepted != fleetSize {
		t.Errorf("%d creates and %d deletes accepted, want exactly %d of each", all.createsAccepted, all.deletesAccepted, fleetSize)
	}
	if all.otherErrors != 0 {
		t.Errorf("%d answers were errors other than 429 and the 404s of deleted services", all.otherErrors)
	}
	// Without a shared limiter, 366 of 516 requests were answered 429; with it, a small share.
	if all.limited*4 > all.requests {
		t.Errorf("%d of %d requests answered 429: the client's requests did not slow down together", all.limited, all.requests)
	}
}

// The same fleet as TestAccFleet_thirtyServicesUnderRateLimit, run the way the issue describes it:
// `terraform apply -parallelism=30` and `terraform destroy -parallelism=30` with the real terraform
// binary, against the provider served in-process (TF_REATTACH_PROVIDERS), since
// terraform-plugin-testing cannot pass -parallelism.
func TestAccFleet_parallelism30(t *testing.T) {
	testAccPreCheck(t)
	if testing.Short() {
		t.Skip("takes about a minute")
	}
	t.Parallel() // its own emulator and provider, as TestAccFleet_thirtyServicesUnderRateLimit
	srv := newTestEmulator(t)
	srv.SetModes(emulator.Modes{RequestsPerSecond: fleetRateLimit})
	tf := newTF(t, tfOptions{onPath: true})
	tf.srv = srv
	tf.write(fmt.Sprintf(`
resource "dbcloud_service" "fleet" {
  count = %d
  name  = "fleet-${count.index}"
}
`, fleetSize))

	tf.must("init", "-input=false")
	srv.ResetRequests()
	start := time.Now()
	tf.must("apply", "-auto-approve", "-input=false", "-parallelism=30")
	applyTime := time.Since(start)
	applied := statsOf(srv.Requests())
	if n := len(srv.Services(testProjectID)); n != fleetSize {
		t.Errorf("%d services after apply, want %d", n, fleetSize)
	}
	tf.must("destroy", "-auto-approve", "-input=false", "-parallelism=30")
	wall := time.Since(start)
	all := statsOf(srv.Requests())

	t.Logf("-parallelism=30, %d services at %d req/s: apply %v (%d requests, %d answered 429), apply+destroy %v",
		fleetSize, fleetRateLimit, applyTime.Round(100*time.Millisecond), applied.requests, applied.limited, wall.Round(100*time.Millisecond))
	t.Logf("all: %d requests, %d answered 429 (%.1f%%), %d other errors; creates: %d accepted, %d answered 429; deletes: %d accepted, %d answered 429; service GETs: %d",
		all.requests, all.limited, 100*float64(all.limited)/float64(max(all.requests, 1)), all.otherErrors,
		all.createsAccepted, all.createsLimited, all.deletesAccepted, all.deletesLimited, all.polls)
	if left := liveServices(srv); len(left) != 0 {
		t.Errorf("%d services left after destroy (not DELETED)", len(left))
	}
	if all.createsAccepted != fleetSize || all.deletesAccepted != fleetSize {
		t.Errorf("%d creates and %d deletes accepted, want exactly %d of each", all.createsAccepted, all.deletesAccepted, fleetSize)
	}
	if all.otherErrors != 0 {
		t.Errorf("%d answers were errors other than 429 and the 404s of deleted services", all.otherErrors)
	}
	// Each terraform command starts a client whose limiter is open until its first 429, so the first
	// burst of 30 (the creates, the destroy's refreshes) can meet up to 29 answers of 429 each time.
	if all.limited*3 > all.requests {
		t.Errorf("%d of %d requests answered 429: the client's requests did not slow down together", all.limited, all.requests)
	}
}

// Six pipelines at once: six states, one API key, five services each, against an API that accepts 5
// requests per second and goes away for 60 s (at full scale: outageWindow; the provider is built with
// its backoff shrunk by the same factor) in the middle of the applies, once for each kind of
// outage (every request answered 503; every connection closed unanswered). Each run is its own
// terraform process with its own provider process (the provider binary built from this module,
// through dev_overrides), so each only knows its own requests, as separate pipelines do. The applies,
// the no-change plans (-detailed-exitcode) and the destroys all exit 0, and every service is created
// and deleted exactly once. The kinds run in parallel (twelve terraform processes at a time, each
// kind against its own emulator): the runs mostly wait on the rate limit.
func TestAccFleet_sixRunsThroughAnOutage(t *testing.T) {
	testAccPreCheck(t)
	if testing.Short() {
		t.Skip("takes about a minute per kind of outage")
	}
	acceptanceCLI(t)
	t.Parallel()
	devOverrides(t) // the provider's binary (its backoff scaled as the outage windows are), built before the kinds run
	for _, kind := range outageKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			sixRunsThroughAnOutage(t, kind)
		})
	}
}

// sixRunsThroughAnOutage is one kind's case of TestAccFleet_sixRunsThroughAnOutage: its own emulator,
// six directories, and the provider's binary through dev_overrides.
func sixRunsThroughAnOutage(t *testing.T, kind emulator.OutageKind) {
	const runs, perRun = 6, 5
	// At least 15 s: each run's limiter paces its retries at the API's real rate, which does not
	// shrink, so a shorter window would be met by too few attempts of each request to prove that an
	// outage is not counted against max_retries (with 503s counted, runs fail at 6 s, not always all).
	window := max(outageWindow(60*time.Second), 15*time.Second)
	srv := newTestEmulator(t)
	srv.SetModes(emulator.Modes{RequestsPerSecond: fleetRateLimit})

	dirs := make([]*tfWorkdir, runs)
	for i := range dirs {
		dirs[i] = newTF(t, tfOptions{binary: true})
		dirs[i].srv, dirs[i].timeout = srv, 10*time.Minute
		dirs[i].write(fmt.Sprintf(`
resource "dbcloud_service" "s" {
  count = %d
  name  = "run%d-${count.index}"
}
`, perRun, i))
	}
	// all runs one command in every directory at once, fails the test for each that does not exit 0,
	// and returns the wall time and the exit status of each run.
	all := func(args ...string) (time.Duration, []int) {
		start := time.Now()
		codes := make([]int, len(dirs))
		var wg sync.WaitGroup
		for i, dir := range dirs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := dir.start(args...)
				err := p.waitAtMost(t, dir.timeout)
				out := p.out.String()
				codes[i] = -1 // not started
				if p.cmd.ProcessState != nil {
					codes[i] = p.cmd.ProcessState.ExitCode()
				}
				if err != nil {
					t.Errorf("run %d: terraform %v: %v\n%s", i, args, err, out)
				}
			}()
		}
		wg.Wait()
		return time.Since(start), codes
	}

	// The outage starts once half the services have been created, in the middle of the applies.
	outageStarted := make(chan struct{})
	go func() {
		defer close(outageStarted)
		if waitUntil(5*time.Minute, func() bool { return srv.Calls("createService") >= runs*perRun/2 }) {
			srv.SetOutage(emulator.Outage{Kind: kind, Duration: window})
		}
	}()
	applyTime, applyCodes := all("apply", "-auto-approve", "-input=false", "-no-color")
	<-outageStarted
	rep := srv.LastOutage()
	if rep.Refused == 0 || time.Now().Before(rep.End) {
		t.Fatalf("the applies did not meet the whole outage: %+v", rep)
	}
	planTime, planCodes := all("plan", "-detailed-exitcode", "-input=false", "-no-color")
	destroyTime, destroyCodes := all("destroy", "-auto-approve", "-input=false", "-no-color")

	st := statsOf(srv.Requests())
	t.Logf("six runs through a %s %s outage at %d req/s: applies %s, plans %s, destroys %s; %d requests met the outage; %d requests, %d answered 429; "+
		"exit statuses: applies %v, plans %v, destroys %v",
		window, kind, fleetRateLimit, applyTime.Round(time.Second), planTime.Round(time.Second), destroyTime.Round(time.Second), rep.Refused, st.requests, st.limited,
		applyCodes, planCodes, destroyCodes)
	if st.createsAccepted != runs*perRun || st.deletesAccepted != runs*perRun {
		t.Errorf("%d creates and %d deletes carried out, want exactly %d of each", st.createsAccepted, st.deletesAccepted, runs*perRun)
	}
	if left := liveServices(srv); len(left) != 0 {
		t.Errorf("%d services left after the destroys", len(left))
	}
}
