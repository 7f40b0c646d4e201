package provider

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

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
