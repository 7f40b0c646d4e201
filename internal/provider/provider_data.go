package provider

// The provider's data: what Configure hands every resource, data source, list resource and action.
// It uses nothing of the package but the analytics client, the service read cache, the record of
// unfinished final copies and the record of this run's pauses (all leaves),
// so that no file depends on the registry (provider.go).

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client    *api.Client
	analytics *analytics
	backoff   wait.Backoff
	reads     *readCache  // serves Reads from shared lists (refresh_cache.go); use read()
	copies    finalCopies // services whose fork action did not finish in this run (final_copies.go)
	walk      runWalk     // whether this run plans or applies (logins_stop.go)
	// credentials is the run's one plan-time check of the credentials (credentials_check.go).
	credentials credentialsCheck
	// pauses is this run's record of the pauses of services, written by dbcloud_service
	// (service_pauses.go).
	pauses runPauses
}

// outageWarnings adds a warning for each outage the client rode out since the last call: the API was
// away for a while, the provider waited, and nothing was lost. The wrappers (base.go) call it at the
// end of every operation, so a run that waited out an outage says so without TF_LOG, once.
func (pd *providerData) outageWarnings(diags *diag.Diagnostics) {
	if pd == nil || pd.client == nil {
		return
	}
	for _, o := range pd.client.TakeRiddenOutages() {
		diags.AddWarning("The dbcloud API was unavailable for "+o.Until.Sub(o.Since).Round(time.Second).String(),
			fmt.Sprintf("The dbcloud API at %s did not answer (or answered that it was unavailable) for %s, from %s to %s UTC. "+
				"The provider waited for it and went on once it answered again: nothing was lost, and no request was carried "+
				"out twice. If this run seemed stuck, that was why; how long the provider waits is set by `outage_timeout` "+
				"and the resources' `timeouts`.", pd.client.BaseURL(), o.Until.Sub(o.Since).Round(time.Second),
				o.Since.UTC().Format(time.TimeOnly), o.Until.UTC().Format(time.TimeOnly)))
	}
}

// withOutageBudget bounds an operation that has no `timeouts` of its own (a VPC's create and rename) by
// the client's outage budget (outage_timeout): every operation's deadline comes from its resource's
// timeouts or from the client, never from a budget of the waits' own.
func (pd *providerData) withOutageBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, pd.client.OutageBudget())
}

// providerDataFrom extracts the configured provider data in Configure of a resource or data source.
// It returns nil (and no error) while the provider is not configured yet.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerData, got %T: this is a bug in the provider", data))
		return nil
	}
	return pd
}

// notConfigured reports (as an error diagnostic) an operation before the provider was configured.
func notConfigured(pd *providerData, diags *diag.Diagnostics) bool {
	if pd == nil {
		diags.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
	}
	return pd == nil
}

// read is the read cache (refresh_cache.go): Reads, data sources and list resources read through it.
// Provider data built without one (tests) reads through the client directly.
func (pd *providerData) read() *readCache {
	if pd.reads == nil {
		return uncachedReads(pd.client)
	}
	return pd.reads
}

// credentialsCheck is the one plan-time check of the credentials of a provider run (one per Configure;
// the check itself, refusedAtPlan, is in credentials_check.go, above this file).
type credentialsCheck struct{ once sync.Once }

// runWalk records what the provider's resources did since Configure (logins_stop.go says why; declared
// here so that the files above, the wrappers and the ephemeral resource, share it without a cycle).
type runWalk struct {
	readOrPlanned, applied atomic.Bool
}

func (w *runWalk) readOrPlan() { w.readOrPlanned.Store(true) }
func (w *runWalk) apply()      { w.applied.Store(true) }

// planning: this walk read or planned resources and applied none.
func (w *runWalk) planning() bool { return w.readOrPlanned.Load() && !w.applied.Load() }
