package provider

// dbcloud_service: how the provider finds a service, reads its status and waits for it, the one
// stop and one start, and the one way a state-changing call is made (changeService); below the
// CRUD (service_resource.go), the update (service_update.go), the actions (service_actions.go) and
// the fork action (service_fork_action.go), which all call here.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// ambiguousClockSkew widens the "created after the attempt started" window of a lost create.
const ambiguousClockSkew = time.Minute

// findCreatedService resolves an ambiguous create (5xx, or the connection broke after sending) by
// looking (wait.FindCreated), never by sending the create again: a service named name created at or
// after started (minus clock skew) that is not being deleted.
func findCreatedService(ctx context.Context, pd *providerData, name string, started time.Time, cause error) (*api.Service, error) {
	since := started.Add(-ambiguousClockSkew)
	return wait.FindCreated(ctx, pd.backoff, wait.Created[api.Service]{
		Kind: "service", Name: name, List: pd.client.ListServices,
		Match: func(s *api.Service) bool {
			return deref(s.Name) == name && deref(s.ServiceID) != "" && !serviceIsGone(s) && !isStandbyRecord(s) && serviceStatus(s) != string(api.DELETING) &&
				(s.Created == nil || !s.Created.Before(since))
		},
		ID: func(s *api.Service) string { return deref(s.ServiceID) },
	}, cause)
}

// serviceStatus is the record's status, "" when missing.
func serviceStatus(svc *api.Service) string {
	if svc == nil || svc.Status == nil {
		return ""
	}
	return string(*svc.Status)
}

// serviceIsGone reports whether a record means the service no longer exists.
func serviceIsGone(svc *api.Service) bool {
	return serviceStatus(svc) == string(api.DELETED)
}

// maxServiceNotFoundWhileCreating is how many 404s in a row a wait after create tolerates (the new
// service may not be visible to GET at once).
const maxServiceNotFoundWhileCreating = 3

// waitServiceReady polls until the service is READY and returns its record. creating tolerates a few
// 404s right after create; DELETING/DELETED always fail the wait, and so does a paused service
// (api.Service.Paused: PAUSED or PAUSING): nothing asked for a pause, so the service was paused
// outside Terraform, and waiting would only run out the timeout. Every other status (QUEUED, CONFIGURING, UPGRADING, OPTIMIZING, RESUMING, UNSTABLE, which
// usually recovers, and any status this provider does not know) is waited out.
func waitServiceReady(ctx context.Context, pd *providerData, id string, creating bool) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.READY, creating, 0)
}

// waitServiceResumed waits for READY after a start: a few polls may still show PAUSED before the
// start shows.
func waitServiceResumed(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.READY, false, maxServiceStaleAfterCall)
}

// waitServicePaused waits for PAUSED after a stop: PAUSING (and READY for a few polls, before the
// stop shows) is waited out; DELETING/DELETED fail the wait.
func waitServicePaused(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
	return waitServiceStatus(ctx, pd, id, api.PAUSED, false, maxServiceStaleAfterCall)
}

// maxServiceStaleAfterCall is how many polls in a row may still show the status before a stop or
// start call (READY, PAUSED) before the wait fails.
const maxServiceStaleAfterCall = 5

func waitServiceStatus(ctx context.Context, pd *providerData, id string, target api.ServiceStatus, creating bool, staleOK int) (*api.Service, error) {
	notFound, stale := 0, 0
	return wait.For(ctx, pd.backoff, fmt.Sprintf("service %s to become %s", id, target), func(ctx context.Context) (wait.PollResult[*api.Service], error) {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			if creating && api.IsNotFound(err) && notFound < maxServiceNotFoundWhileCreating {
				notFound++
				return wait.PollResult[*api.Service]{Status: "NOT_FOUND"}, nil
			}
			return wait.PollResult[*api.Service]{}, err
		}
		notFound = 0
		if err := notStandby(id, svc); err != nil {
			// Every state-changing call on the service path waits here first: none goes to a replica set's id.
			return wait.PollResult[*api.Service]{}, wait.Stop(err)
		}
		st := serviceStatus(svc)
		switch {
		case st == string(target):
			return wait.PollResult[*api.Service]{Value: svc, Status: st, Done: true}, nil
		case st == string(api.DELETED), st == string(api.DELETING):
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is %s: it is being or was %w", id, st, errDeletedOutside)
		case target == api.READY && st == string(api.PAUSED) && stale < staleOK:
			stale++
		case target == api.READY && svc.Paused():
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is %s: it was paused outside Terraform while Terraform waited for it "+
				"to be READY, and a paused service accepts no change. Set paused = false in the configuration to have Terraform "+
				"start it (or start it elsewhere), then apply again", id, st)
		case target == api.PAUSED && st == string(api.READY):
			if stale++; stale > staleOK {
				return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s stayed READY after the stop call: it did not start pausing; apply again", id)
			}
		case target == api.PAUSED && st == string(api.RESUMING):
			return wait.PollResult[*api.Service]{}, fmt.Errorf("service %s is RESUMING: it was started outside Terraform while Terraform waited for it to pause; apply again", id)
		}
		return wait.PollResult[*api.Service]{Value: svc, Status: st}, nil
	})
}

// serviceDeleteBlocked says, after a DELETE answered 409, whether the conflict will not clear by
// waiting: read replica sets that are not being deleted hold the service (a set Terraform does not
// know: made outside Terraform, or left by an interrupted apply). Any other 409 (the service is busy)
// is waited out.
func serviceDeleteBlocked(ctx context.Context, pd *providerData, id string, conflict error) error {
	sets, err := pd.client.ListReplicaSets(ctx, id)
	if err != nil {
		return nil
	}
	var holding []string
	for _, rs := range sets {
		if deref(rs.Status) != api.ReplicaSetStatusDeleting {
			holding = append(holding, fmt.Sprintf("%s (%q, %s)", deref(rs.ID), deref(rs.Name), deref(rs.Status)))
		}
	}
	if len(holding) == 0 {
		return nil
	}
	return fmt.Errorf("%w\n\nService %s still has read replica sets that this configuration does not delete: %s. "+
		"Delete them first: add them to the configuration with `terraform import dbcloud_read_replica_set.<name> %s/<replica_set_id>` "+
		"and remove them, or delete them in the console; then destroy again", conflict, id, strings.Join(holding, ", "), id)
}

// forkWhenReady forks the source once it is READY (the API refuses with 409 otherwise), and waits
// again and retries after a 409 (which provably did not fork). sent reports whether the error (if
// any) is the fork call's own, so that only a fork call's ambiguous failure is resolved by looking.
func forkWhenReady(ctx context.Context, pd *providerData, sourceID string, body api.ForkServiceCreate) (svc *api.Service, sent bool, err error) {
	for attempt := 0; ; attempt++ {
		if _, err := waitServiceReady(ctx, pd, sourceID, false); err != nil {
			if api.IsNotFound(err) {
				return nil, false, fmt.Errorf("fork source service %s does not exist: %w", sourceID, err)
			}
			return nil, false, fmt.Errorf("the fork source must be READY: %w", err)
		}
		svc, err := pd.client.ForkService(ctx, sourceID, body)
		if err == nil || !api.IsConflict(err) || attempt >= maxServiceConflictRetries || ctx.Err() != nil {
			return svc, true, err
		}
		tflog.Debug(ctx, "dbcloud: fork answered 409; waiting for the source to be READY and trying again",
			map[string]any{"source_service_id": sourceID, "attempt": attempt + 1})
	}
}

// ---- busy service: one state-changing call at a time ----

// maxServiceConflictRetries bounds how often a state-changing call is tried again after a 409 or a
// 500. An outage's lost answers (no answer, 502, 503, 504: wait.OutageLike) are not counted: the call
// is sent again for as long as the update's timeout lasts.
const maxServiceConflictRetries = 4

// changeService makes one state-changing call of a service through wait.WhileBusy: before each
// attempt it waits for READY (DELETING, DELETED, PAUSING and PAUSED fail at once), it tries again after
// a 409 or a 500 (at most maxServiceConflictRetries times) and after an outage's lost answer (until the
// timeout), and when async it waits for READY
// after. applied says whether a service record shows the change; it is nil for a change that cannot be
// observed (the password), which is re-sent: setting the same value twice is harmless.
func changeService(ctx context.Context, pd *providerData, id, what string, async bool, call func(context.Context) error, applied func(*api.Service) bool) error {
	c := wait.Busy{
		What: fmt.Sprintf("service %s to accept %s", id, what),
		Call: call,
		Before: func(ctx context.Context) error {
			if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
				return fmt.Errorf("before %s: %w", what, err)
			}
			return nil
		},
		MaxRetries: maxServiceConflictRetries,
	}
	if applied != nil {
		c.Applied = func(ctx context.Context) bool {
			svc, err := pd.client.GetService(ctx, id)
			return err == nil && applied(svc)
		}
	}
	if err := wait.WhileBusy(ctx, pd.client, pd.backoff, c); err != nil {
		return err
	}
	if async {
		if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
			return fmt.Errorf("after %s: %w", what, err)
		}
	}
	return nil
}

// serviceSwitch is a stop (pause) or a start (resume) of a service: the one way either is sent
// (request, for the actions) and waited for (run, for create and update).
type serviceSwitch struct {
	name, doing string                                                                       // "stop", "stopping"
	call        func(ctx context.Context, c *api.Client, id string) error                    // the API call
	from        func(ctx context.Context, pd *providerData, id string) (*api.Service, error) // waits for the status the call needs
	to          func(ctx context.Context, pd *providerData, id string) (*api.Service, error) // waits for the status it ends in
	there       []api.ServiceStatus                                                          // the call took effect, or is not needed
}

var (
	// serviceStop waits for READY first (the API answers 409 otherwise) and ends in PAUSED.
	serviceStop = serviceSwitch{
		name: "stop", doing: "stopping",
		call: func(ctx context.Context, c *api.Client, id string) error {
			_, err := c.StopService(ctx, id)
			return err
		},
		from: func(ctx context.Context, pd *providerData, id string) (*api.Service, error) {
			return waitServiceReady(ctx, pd, id, false)
		},
		to:    waitServicePaused,
		there: []api.ServiceStatus{api.PAUSING, api.PAUSED},
	}
	// serviceStart waits for PAUSED first (a stop may still be under way) and ends in READY.
	serviceStart = serviceSwitch{
		name: "start", doing: "starting",
		call: func(ctx context.Context, c *api.Client, id string) error {
			_, err := c.StartService(ctx, id)
			return err
		},
		from:  waitServicePaused,
		to:    waitServiceResumed,
		there: []api.ServiceStatus{api.RESUMING, api.READY},
	}
)

// request sends the stop or start through the one busy-retry: it is done at once when the service is
// already on its way there (PAUSING or PAUSED for a stop), else it waits for the status the call
// needs, sends the call again after a 409, and after a lost answer looks whether the call took effect
// before sending it again. It does not wait for the status the call ends in.
func (s serviceSwitch) request(ctx context.Context, pd *providerData, id string) error {
	there := serviceStatusIn(pd, id, s.there...)
	err := wait.WhileBusy(ctx, pd.client, pd.backoff, wait.Busy{
		What: fmt.Sprintf("service %s to accept the %s", id, s.name),
		Call: func(ctx context.Context) error { return s.call(ctx, pd.client, id) },
		Before: func(ctx context.Context) error {
			if there(ctx) {
				return errAlreadyThere
			}
			if _, err := s.from(ctx, pd, id); err != nil {
				return fmt.Errorf("before %s: %w", s.doing, err)
			}
			return nil
		},
		Applied:    there,
		MaxRetries: maxServiceConflictRetries,
	})
	if errors.Is(err, errAlreadyThere) {
		return nil
	}
	return err
}

// run requests the stop or start and waits for the status it ends in (PAUSED, READY).
func (s serviceSwitch) run(ctx context.Context, pd *providerData, id string) error {
	if err := s.request(ctx, pd, id); err != nil {
		return err
	}
	if _, err := s.to(ctx, pd, id); err != nil {
		return fmt.Errorf("after %s: %w", s.doing, err)
	}
	return nil
}

// serviceStatusIn is a wait.Busy Applied: whether the service's status is one of statuses.
func serviceStatusIn(pd *providerData, id string, statuses ...api.ServiceStatus) func(context.Context) bool {
	return func(ctx context.Context) bool {
		svc, err := pd.client.GetService(ctx, id)
		if err != nil {
			return false
		}
		for _, s := range statuses {
			if serviceStatus(svc) == string(s) {
				return true
			}
		}
		return false
	}
}

// errAlreadyThere ends a stop or start before its call: the service is already where it should go.
var errAlreadyThere = errors.New("already in the wanted state")

// recordServiceProgress puts the record as the API shows it now (best effort) over m, the model of what
// was done so far, after a failed create or update, and makes m storable.
func recordServiceProgress(ctx context.Context, pd *providerData, m *serviceResourceModel) {
	rctx, cancel := wait.Detached(ctx, 30*time.Second)
	defer cancel()
	if svc, err := pd.client.GetService(rctx, m.ID.ValueString()); err == nil {
		m.applyRecord(svc, pd.client.ProjectID())
	} else {
		tflog.Debug(ctx, "dbcloud: could not read the service to record progress", map[string]any{"error": err.Error()})
	}
	m.forState()
}
