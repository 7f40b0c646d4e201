package emulator

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// TestConcurrentClients hammers one emulator from many goroutines (run with -race).
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timing: Timing{ServiceQueued: 5 * time.Millisecond, ServiceConfiguring: 5 * time.Millisecond}})
	const workers = 12
	var wg sync.WaitGroup
	ids := make([]string, workers)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: fmt.Sprintf("svc-%d", i)})
			if err != nil || r.StatusCode() != http.StatusAccepted {
				t.Errorf("create: %v", err)
				return
			}
			id := *r.JSON202.ServiceID
			ids[i] = id
			for {
				g, err := e.c.GetServiceWithResponse(e.ctx, testProject, id)
				if err != nil {
					t.Error(err)
					return
				}
				if status(g.JSON200) == api.READY {
					break
				}
				_, _ = e.srv.Service(testProject, id)
				_ = e.srv.Requests()
				time.Sleep(time.Millisecond)
			}
			if r, err := e.c.DeleteServiceWithResponse(e.ctx, testProject, id); err != nil || r.StatusCode() != http.StatusAccepted {
				t.Errorf("delete: %v", err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("duplicate id %s", id)
		}
		seen[id] = true
	}
}
