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
func TestUnitServiceWaitReadyStatuses(t *testing.T) {
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
		start := time.Now()
		_, err := waitServiceReady(ctx, pd, id, false)
		cancel()
		if err == nil || !strings.Contains(err.Error(), string(st)) {
			t.Errorf("status %s: want an error naming it, got %v", st, err)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("status %s: the wait took %s; it must fail at once", st, time.Since(start))
		}
	}
	// UNSTABLE usually recovers: it is waited out.
	unstable := api.UNSTABLE
	srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &unstable })
	go func() {
		time.Sleep(100 * time.Millisecond)
		ready := api.READY
		srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &ready })
	}()
	if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
		t.Fatalf("UNSTABLE must be waited out: %v", err)
	}
}
