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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// ---- Leftovers of an earlier run ----
//
// Where Terraform gives the provider no hook (it skips the ephemeral Close after an upstream error,
// a killed run, an endpoint down at the end), a login stays until its expiry. Each login carries
// a marker (a comment on its role: logins.Marker) with the key of the configuration that asked for
// it; a later Open with the same key, once its own login is made (the endpoint reachable, the admin
// password right), drops the logins of that key that no Open of this process holds, and says so.

// makingLogins holds the names of logins being made in this process (not yet in openLogins).
var makingLogins sync.Map

// loginKey names the configuration that asks for a login: the working directory Terraform runs in
// (the provider's own), the service and what the login gets. Two runs of the same configuration
// share it; a login of another configuration (another directory, other arguments) is never a
// leftover of this one.
func loginKey(serviceID string, spec logins.Spec) string {
	dir, _ := os.Getwd()
	h := sha256.New()
	for _, part := range []string{dir, serviceID, spec.TTL.String(), strconv.FormatBool(spec.ReadOnly), strings.Join(spec.MemberOf, ","), spec.StatementTimeout.String()} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// dropLeftovers drops what an earlier run of the same configuration left on the target's service
// and warns, naming each login with its expiry: dropped, or not (and why).
func dropLeftovers(ctx context.Context, t *logins.Target, key string, diags *diag.Diagnostics) {
	keep := func(login string) bool {
		_, making := makingLogins.Load(login)
		return making || openLogins.Holds(login)
	}
	found, err := t.DropLeftovers(ctx, key, keep)
	if err != nil {
		tflog.Warn(ctx, "dbcloud_service_credentials: could not look for logins left by an earlier run: "+t.Mask(err.Error()))
		return
	}
	for _, l := range found {
		diags.AddWarning(leftoverWarning(t, l))
	}
}

// leftoverWarning is the warning of a login an earlier run left: dropped, or not (and why), with
// its expiry, which may have passed already.
func leftoverWarning(t *logins.Target, l logins.Leftover) (summary, detail string) {
	life, anyway := "it would have stopped working at "+l.Expires, "It stops working at "+l.Expires+" anyway."
	if l.Expired {
		life, anyway = "it had stopped working at "+l.Expires+" already", "It stopped working at "+l.Expires+" already."
	}
	if l.Err == nil {
		return "Dropped login " + l.Login + ", left by an earlier run",
			fmt.Sprintf("Login %s on service %s (%s) was left by an earlier run of this configuration, "+
				"which could not drop it (Terraform did not close it, or the endpoint could not be reached then). This run dropped it.",
				l.Login, t.Service, life)
	}
	return "Login " + l.Login + " was not dropped",
		fmt.Sprintf("Login %s on service %s, left by an earlier run of this configuration, could not be dropped: %s\n\n%s",
			l.Login, t.Service, t.Mask(l.Err.Error()), anyway)
}
