package emulator

import (
	"net/http"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// TestSetTiming checks that new timings apply to phases started afterwards.
func TestSetTiming(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	e := newEnv(t, Options{Now: clk.Now})
	e.clk = clk
	id := *e.createService(api.ServiceCreate{Name: "instant"}).ServiceID
	e.mustStatus(id, api.READY) // zero timing: done at the next access
	e.srv.SetTiming(Timing{ServiceConfiguring: time.Minute})
	if r, err := e.c.SetHAWithResponse(e.ctx, testProject, id, api.SetHAInput{ReplicaCount: intp(1)}); err != nil || r.StatusCode() != http.StatusAccepted {
		t.Fatalf("setHA: %v", err)
	}
	clk.Advance(59 * time.Second)
	e.mustStatus(id, api.CONFIGURING)
	clk.Advance(time.Second)
	e.mustStatus(id, api.READY)
}
