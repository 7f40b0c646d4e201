package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Waiting for READY fails at once on statuses that cannot turn READY by waiting, names them, and
// waits out the ones that recover.
func TestServiceWaitReadyStatuses(t *testing.T) {
	srv := newTestEmulator(t)
	client := testClient(t, srv)
	pd := &providerData{client: client, backoff: testBackoff}
	ctx := context.Background()
	svc, err := client.CreateService(ctx, api.ServiceCreate{Name: "wait-statuses"})
	if err != nil {
		t.Fatal(err)
	}
	id := *svc.ServiceID
	if _, err := waitServiceReady(ctx, pd, id, true); err != nil {
		t.Fatalf("a new service must become READY: %v", err)
	}
	for _, st := range []api.ServiceStatus{api.PAUSED, api.PAUSING, api.DELETING} {
		srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &st })
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		start, gets := time.Now(), srv.Calls("getService")
		_, err := waitServiceReady(ctx, pd, id, false)
		cancel()
		if err == nil || !strings.Contains(err.Error(), string(st)) {
			t.Errorf("status %s: want an error naming it, got %v", st, err)
		}
		// "At once" is one poll, however slow a busy machine makes it; the time bound only catches a
		// wait that ran on towards the 10s deadline.
		if n := srv.Calls("getService") - gets; n != 1 {
			t.Errorf("status %s: the wait polled %d times; it must fail at once, on the first poll", st, n)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("status %s: the wait took %s; it must fail at once", st, time.Since(start))
		}
	}
	// UNSTABLE usually recovers: it is waited out. It turns READY once the wait has seen it UNSTABLE
	// twice (not after a fixed time, which a busy machine can overrun before the first poll).
	unstable := api.UNSTABLE
	srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &unstable })
	gets := srv.Calls("getService")
	go func() {
		waitUntil(30*time.Second, func() bool { return srv.Calls("getService") >= gets+2 })
		ready := api.READY
		srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &ready })
	}()
	if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
		t.Fatalf("UNSTABLE must be waited out: %v", err)
	}
	if n := srv.Calls("getService") - gets; n < 3 {
		t.Errorf("the wait polled %d times: UNSTABLE was not waited out", n)
	}
}
