package provider

// The services whose before_destroy copy did not finish in this run: the fork action marks them, the
// service's Delete refuses them. A leaf of the package: the provider's data holds one.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// finalCopies guards the services whose fork action did not finish in this run (this provider
// process): Delete refuses them. Terraform deletes the source of a `before_destroy` fork even when
// the fork failed in a full `terraform destroy` (it turns an action's error into a warning there,
// whatever on_failure says), and after Ctrl-C during the action (the plugin server ends the action
// without an answer once Terraform asked the provider to stop, and Terraform goes on to the delete).
// A service is marked before the action sends anything and unmarked only when the action succeeded;
// a delete that comes while the action still runs (after Ctrl-C: a lost answer is still being looked
// for) waits for its end first. The zero value is ready to use.
type finalCopies struct {
	mu      sync.Mutex
	running map[string]*forkRuns // service id -> its fork actions under way
	failed  map[string]string    // service id -> why its last fork action did not finish
}

// forkRuns counts the fork actions of one service under way; idle is closed when the last ends.
type forkRuns struct {
	n    int
	idle chan struct{}
}

// start marks a fork action of id as under way; the returned func ends it: "" (the copy is made)
// clears the mark, anything else records why the copy was not made.
func (c *finalCopies) start(id string) func(failure string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil {
		c.running, c.failed = map[string]*forkRuns{}, map[string]string{}
	}
	r := c.running[id]
	if r == nil {
		r = &forkRuns{idle: make(chan struct{})}
		c.running[id] = r
	}
	r.n++
	return func(failure string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if r.n--; r.n == 0 {
			close(r.idle)
			delete(c.running, id)
		}
		if failure == "" {
			delete(c.failed, id)
		} else {
			c.failed[id] = failure
		}
	}
}

// refuseDelete adds an error and reports true when a fork action of id did not finish in this run.
// An action still under way is waited for (at most as long as a lost answer is looked for, plus a
// margin; a wait of the action ends at once after Ctrl-C).
func (c *finalCopies) refuseDelete(ctx context.Context, id string, diags *diag.Diagnostics) bool {
	c.mu.Lock()
	r := c.running[id]
	c.mu.Unlock()
	if r != nil {
		select {
		case <-r.idle:
		case <-ctx.Done():
		case <-time.After(wait.LookFor + time.Minute):
		}
	}
	c.mu.Lock()
	running, failure := c.running[id] != nil, c.failed[id]
	c.mu.Unlock()
	if !running && failure == "" {
		return false
	}
	why := "is still under way (Terraform was interrupted while it ran)"
	if !running {
		why = "did not finish: " + failure
	}
	diags.AddError("Service not deleted: its copy was not made",
		fmt.Sprintf("A dbcloud_service_fork action of service %s ran in this run (a before_destroy action trigger) and %s\n\n"+
			"The provider keeps the service (and Terraform its state) rather than delete it without its copy: Terraform "+
			"goes on with a delete after a failed action in `terraform destroy`, and after Ctrl-C. Fix the cause and "+
			"destroy again (the action makes a new copy); to delete the service without a copy, remove the action "+
			"trigger first. See the \"Final copies before destroy\" guide.", id, why))
	return true
}
