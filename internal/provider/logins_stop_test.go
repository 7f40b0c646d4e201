package provider

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/logins"
)

// TestStopDropsLoginsAndNamesTheRest: an interrupted operation takes every open login; one whose
// service cannot be reached is named, with its expiry and service, in a warning of the operation's
// answer (no secret in it), and its Close later has nothing more to say.
func TestStopDropsLoginsAndNamesTheRest(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0") // a port nobody listens on
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	tg, err := logins.NewTarget("127.0.0.1", port, "", true)
	if err != nil {
		t.Fatal(err)
	}
	tg.AdminPassword, tg.Login, tg.LoginPassword = "admin-secret", "tf_login_unreachable", "login-secret"
	tg.Service, tg.Expires = "svc0000001", time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)
	token := openLogins.Add(tg)

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C: the operation's context is cancelled
	var diags diag.Diagnostics
	interruptedLogins(ctx, &diags)

	if openLogins.Take(token) != nil {
		t.Error("the login is still open after the interrupt")
	}
	if _, dropped := droppedAtStop.Load(token); !dropped {
		t.Error("Close would warn again for a login the interrupt took")
	}
	if diags.HasError() || len(diags) != 1 {
		t.Fatalf("diagnostics after the interrupt: %+v", diags)
	}
	d := diags[0]
	if !strings.Contains(d.Summary(), "tf_login_unreachable") || !strings.Contains(d.Detail(), "2026-11-26T18:00:00Z") ||
		!strings.Contains(d.Detail(), "svc0000001") || strings.Contains(d.Detail(), "secret") {
		t.Fatalf("warning: %s: %s", d.Summary(), d.Detail())
	}

	// An operation that was not interrupted leaves the logins open.
	token = openLogins.Add(tg)
	diags = nil
	interruptedLogins(context.Background(), &diags)
	if openLogins.Take(token) == nil || len(diags) != 0 {
		t.Errorf("an operation that ended normally dropped the logins: %+v", diags)
	}
}

// TestRunWalk: a walk that read or planned resources and applied none is planning; one that
// applied, or touched no resource, is not.
func TestRunWalk(t *testing.T) {
	var w runWalk
	if w.planning() {
		t.Error("a walk that touched nothing is planning")
	}
	w.readOrPlan()
	if !w.planning() {
		t.Error("a walk that read resources is not planning")
	}
	w.apply()
	if w.planning() {
		t.Error("a walk that applied a resource is planning")
	}
}

// TestLeftoverWarning: the warning of a login an earlier run left says it would have stopped
// working at its expiry, or that it had stopped working already when its expiry had passed, for a
// login dropped and for one that could not be (without a secret in it).
func TestLeftoverWarning(t *testing.T) {
	tg := &logins.Target{Service: "svc0000001", AdminPassword: "admin-secret"}
	for _, c := range []struct {
		l            logins.Leftover
		summary      string
		want, wantNo string
	}{
		{logins.Leftover{Login: "tf_login_a", Expires: "2026-11-26T18:00:00Z"}, "Dropped login tf_login_a, left by an earlier run",
			"(it would have stopped working at 2026-11-26T18:00:00Z)", "already"},
		{logins.Leftover{Login: "tf_login_b", Expires: "2026-11-25T18:00:00Z", Expired: true}, "Dropped login tf_login_b, left by an earlier run",
			"(it had stopped working at 2026-11-25T18:00:00Z already)", "would have"},
		{logins.Leftover{Login: "tf_login_c", Expires: "2026-11-26T18:00:00Z", Err: errors.New("refused admin-secret")}, "Login tf_login_c was not dropped",
			"It stops working at 2026-11-26T18:00:00Z anyway.", "admin-secret"},
		{logins.Leftover{Login: "tf_login_d", Expires: "2026-11-25T18:00:00Z", Expired: true, Err: errors.New("refused")}, "Login tf_login_d was not dropped",
			"It stopped working at 2026-11-25T18:00:00Z already.", "anyway"},
	} {
		summary, detail := leftoverWarning(tg, c.l)
		if summary != c.summary || !strings.Contains(detail, c.want) || !strings.Contains(detail, "svc0000001") || strings.Contains(detail, c.wantNo) {
			t.Errorf("%+v: %q / %q, want %q with %q and without %q", c.l, summary, detail, c.summary, c.want, c.wantNo)
		}
	}
}
