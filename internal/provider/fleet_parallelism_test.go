package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

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
