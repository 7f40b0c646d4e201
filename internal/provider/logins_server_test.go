package provider

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/logins"
)

// TestStopDropsLoginsAndNamesTheRest: StopProvider takes every open login; one whose service cannot
// be reached is named, with its expiry, in a warning on the answers still to come (an apply, a
// login being opened), and its Close later has nothing more to say.
func TestStopDropsLoginsAndNamesTheRest(t *testing.T) {
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
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
	t.Cleanup(func() {
		stopped.Lock()
		stopped.warnings, stopped.dropped = nil, nil
		stopped.Unlock()
	})

	s, err := testProviderServer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StopProvider(context.Background(), &tfprotov6.StopProviderRequest{}); err != nil {
		t.Fatal(err)
	}
	if openLogins.Take(token) != nil {
		t.Error("the login is still open after StopProvider")
	}
	if !droppedAtStop(token) {
		t.Error("Close would warn again for a login StopProvider took")
	}
	ws := stopWarnings()
	if len(ws) != 1 || ws[0].Severity != tfprotov6.DiagnosticSeverityWarning ||
		!strings.Contains(ws[0].Summary, "tf_login_unreachable") || !strings.Contains(ws[0].Detail, "2026-11-26T18:00:00Z") ||
		!strings.Contains(ws[0].Detail, "svc0000001") || strings.Contains(ws[0].Detail, "secret") {
		t.Fatalf("warnings after the stop: %+v", ws)
	}
	resp, _ := s.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{TypeName: "dbcloud_service"})
	found := false
	for _, d := range resp.Diagnostics {
		found = found || strings.Contains(d.Summary, "tf_login_unreachable")
	}
	if !found {
		t.Errorf("the answer of an apply running at the stop does not name the login: %+v", resp.Diagnostics)
	}
}
