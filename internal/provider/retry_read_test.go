package provider

import (
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Issue 11, point 2: reads are retried. With a quarter of the GETs answered 500 (and the first two
// service reads for certain), planning the whole stack refreshes every resource without an error and
// plans nothing; no write is sent.
func TestAccRetryRead_planThroughGET500s(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Faults.Seed = 11 })
	config := stackConfig(srv, "retry-read-net", 1, 500, 2)
	getErrors := func() (get500, writes int) {
		for _, r := range srv.Requests() {
			switch {
			case r.Method == http.MethodGet && r.Status == http.StatusInternalServerError:
				get500++
			case r.Method != http.MethodGet:
				writes++
			}
		}
		return get500, writes
	}
	var writesBefore int
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: config},
		resource.TestStep{
			PreConfig: func() {
				_, writesBefore = getErrors()
				srv.ResetRequests()
				srv.SetModes(emulator.Modes{GetErrorRate: 0.25})
				srv.InjectFault("getService", emulator.FaultServerError, 2)
			},
			Config:   config,
			PlanOnly: true, // refresh, then plan: must succeed, and a plan that is not empty fails the step
		},
		resource.TestStep{
			PreConfig: func() {
				get500, writes := getErrors()
				t.Logf("plan through failing reads: %d requests, %d GETs answered 500, %d writes", len(srv.Requests()), get500, writes)
				if get500 < 2 {
					t.Errorf("only %d GETs answered 500: the test did not exercise the retries", get500)
				}
				if writes != 0 {
					t.Errorf("planning sent %d writes", writes)
				}
				srv.SetModes(emulator.Modes{})
			},
			Config:   config,
			PlanOnly: true,
		},
	))
	if writesBefore == 0 {
		t.Errorf("the first apply sent no writes")
	}
}
