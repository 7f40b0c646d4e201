package provider

// What dbcloud_service_credentials needs to know of the run, from the framework's own calls (no
// wrapper around the protocol server):
//
//   - Plan or apply (runWalk). A login that cannot be made for a reason the run itself may remove (the
//     service paused, not READY or gone, the admin password about to change, a member_of role about to
//     be created) must not stop a plan or a destroy, but must fail an apply: Terraform hands an unknown
//     value to a provisioner at apply as a crash. Terraform does not say which walk an Open belongs to.
//     The provider's own resources do: the provider is configured once per walk (a new providerData), a
//     planning walk reads or plans resources and applies none, an applying walk has applied what the
//     login depends on (or, with a literal service_id and no resource before it, touched nothing).
//     managedResource (base.go) records both; the login's Open asks planning().
//   - Ctrl-C (dropLoginsOnStop). On an interrupt Terraform cancels the requests in flight and exits
//     without closing the ephemeral resources it opened. A resource operation that ends cancelled drops
//     every open login at once and names, with its expiry, each one it could not drop, in a warning of
//     its answer. When nothing of this provider was running, the provider's process drops them as it
//     exits (DropOpenLogins, called by main.go once the server stopped: Terraform stops its plugins on
//     the way out), and logs what it could not drop.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/logins"
)

// openLogins keeps what Close needs in the provider's memory (declared here, below the ephemeral
// resource and the wrappers, which both use it).
var openLogins = &logins.Registry{}

// droppedAtStop holds the tokens of logins dropped at an interrupt: their Close has nothing to do.
var droppedAtStop sync.Map

// dropLoginsOnStop drops every open login (each with 30 seconds of its own: the request's context is
// cancelled) and warns, in diags, of each it could not drop.
func dropLoginsOnStop(ctx context.Context, diags *diag.Diagnostics) {
	for _, failed := range dropOpenLogins(ctx) {
		diags.AddWarning("Login "+failed.login+" was not dropped", failed.detail)
	}
}

// DropOpenLogins drops the logins still open when the provider's server has stopped (main.go), and
// logs each it could not drop.
func DropOpenLogins() {
	ctx := context.Background()
	for _, failed := range dropOpenLogins(ctx) {
		tflog.Warn(ctx, "Login "+failed.login+" was not dropped: "+failed.detail)
	}
}

type undropped struct{ login, detail string }

func dropOpenLogins(ctx context.Context) []undropped {
	all := openLogins.TakeAll()
	var (
		mu     sync.Mutex
		failed []undropped
		wg     sync.WaitGroup
	)
	for token, t := range all {
		droppedAtStop.Store(token, true)
		wg.Go(func() {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			err := t.Drop(dctx)
			if err == nil {
				tflog.Info(ctx, "dbcloud_service_credentials: login dropped on stop", map[string]any{"service_id": t.Service, "username": t.Login})
				return
			}
			expires := t.Expires.UTC().Format(time.RFC3339)
			mu.Lock()
			defer mu.Unlock()
			failed = append(failed, undropped{t.Login, fmt.Sprintf("Terraform was interrupted; dropping login %s on service %s failed: %s\n\nIt stops working at %s anyway.",
				t.Login, t.Service, t.Mask(err.Error()), expires)})
		})
	}
	wg.Wait()
	return failed
}
