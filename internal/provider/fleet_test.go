package provider

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

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
