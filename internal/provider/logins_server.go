package provider

// The protocol server around the framework's, for dbcloud_service_credentials (main.go serves it):
//
//   - Plan or apply. A login that cannot be made for a reason the run may remove (see
//     service_credentials_ephemeral.go) must not stop a plan or a destroy, but must fail an apply:
//     Terraform hands an unknown value to a provisioner at apply as a crash. Terraform does not say
//     which walk an OpenEphemeralResource belongs to; this server sees it: since the provider was
//     configured (once per walk), a planning walk has read or planned resources and applied none,
//     while an applying walk has applied every resource the login depends on, or touched none. So
//     the warning "No login made" stays a warning while planning and becomes an error otherwise.
//   - Ctrl-C. On an interrupt Terraform tells every provider to stop and then exits without
//     closing the ephemeral resources it opened, so the provider drops the logins it made itself,
//     at once. A login it cannot drop is named, with its expiry, in a warning on the answer of
//     every request still running (a service being created or changed, a login being opened), and
//     in the provider's log.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ServerClosingLoginsOnStop is s (the framework's server), dropping the open logins of
// dbcloud_service_credentials when Terraform stops the provider. It keeps every optional server of
// s (tf6server finds actions, list resources and state stores by type assertion).
func ServerClosingLoginsOnStop(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	full, ok := s.(fullServer)
	if !ok {
		panic("provider: the framework's server lacks an optional server the provider uses")
	}
	return &stopServer{fullServer: full}
}

// fullServer is every server the framework's implements.
type fullServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

type stopServer struct {
	fullServer
	// Since the last ConfigureProvider: a resource read or planned, a resource applied.
	readOrPlanned, applied atomic.Bool
}

func (s *stopServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	s.readOrPlanned.Store(false)
	s.applied.Store(false)
	return s.fullServer.ConfigureProvider(ctx, req)
}

func (s *stopServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	s.readOrPlanned.Store(true)
	return s.fullServer.ReadResource(ctx, req)
}

func (s *stopServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	s.readOrPlanned.Store(true)
	return s.fullServer.PlanResourceChange(ctx, req)
}

var stopped struct {
	sync.Mutex
	dropped  map[string]bool         // tokens of logins dropped at stop: their Close has nothing to do
	warnings []*tfprotov6.Diagnostic // logins that could not be dropped
}

func droppedAtStop(token string) bool {
	stopped.Lock()
	defer stopped.Unlock()
	return stopped.dropped[token]
}

// StopProvider drops every open login (each with 30 seconds of its own: the requests' contexts
// are about to be cancelled), then lets the framework stop.
func (s *stopServer) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	all := openLogins.TakeAll()
	var wg sync.WaitGroup
	for token, t := range all {
		wg.Go(func() {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			err := t.Drop(dctx)
			stopped.Lock()
			defer stopped.Unlock()
			if stopped.dropped == nil {
				stopped.dropped = map[string]bool{}
			}
			stopped.dropped[token] = true
			if err == nil {
				tflog.Info(ctx, "dbcloud_service_credentials: login dropped on stop", map[string]any{"service_id": t.Service, "username": t.Login})
				return
			}
			expires := t.Expires.UTC().Format(time.RFC3339)
			detail := fmt.Sprintf("Terraform was interrupted; dropping login %s on service %s failed: %s\n\nIt stops working at %s anyway.",
				t.Login, t.Service, t.Mask(err.Error()), expires)
			tflog.Warn(ctx, "dbcloud_service_credentials: login not dropped on stop", map[string]any{"service_id": t.Service, "username": t.Login, "expires_at": expires})
			stopped.warnings = append(stopped.warnings, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning,
				Summary: "Login " + t.Login + " was not dropped", Detail: detail})
		})
	}
	wg.Wait()
	return s.fullServer.StopProvider(ctx, req)
}

// stopWarnings are the warnings of logins not dropped at stop, for the answers still to come.
func stopWarnings() []*tfprotov6.Diagnostic {
	stopped.Lock()
	defer stopped.Unlock()
	return stopped.warnings
}

func (s *stopServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	s.applied.Store(true)
	resp, err := s.fullServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		resp.Diagnostics = append(resp.Diagnostics, stopWarnings()...)
	}
	return resp, err
}

func (s *stopServer) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	resp, err := s.fullServer.OpenEphemeralResource(ctx, req)
	if resp == nil {
		return resp, err
	}
	planning := s.readOrPlanned.Load() && !s.applied.Load()
	for _, d := range resp.Diagnostics {
		if d.Severity != tfprotov6.DiagnosticSeverityWarning || !strings.HasPrefix(d.Summary, notNowSummary) {
			continue
		}
		if planning {
			d.Detail += ".\n\nWhile planning, the login's values are unknown: the plan (or destroy) goes on, and the login is made when " +
				"the run applies, after what it depends on (the service, its new password, the roles of member_of). Nothing was created on the service."
			continue
		}
		d.Severity = tfprotov6.DiagnosticSeverityError
		d.Summary = strings.Replace(d.Summary, notNowSummary, "Could not create a login on", 1)
		d.Detail += "."
	}
	resp.Diagnostics = append(resp.Diagnostics, stopWarnings()...)
	return resp, err
}
