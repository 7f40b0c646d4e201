package provider

// dbcloud_read_replica_set: how the provider creates a set once its service is READY, finds a new
// set after a lost create answer, changes a set (through wait.WhileBusy) and waits for it; below the
// resource (read_replica_set_resource.go).

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// replicaSetStuck reports, after a 409, the states of a replica set and its service that will not
// clear by waiting: the set in status error or gone, the service being deleted, paused or gone.
func replicaSetStuck(pd *providerData, serviceID, id string) func(context.Context) error {
	return func(ctx context.Context) error {
		svc, err := pd.client.GetService(ctx, serviceID)
		if api.IsNotFound(err) {
			return fmt.Errorf("service %s of read replica set %s no longer exists", serviceID, id)
		}
		if st := deref(svc.Status); err == nil && (st == api.DELETING || st == api.DELETED || svc.Paused()) {
			return fmt.Errorf("service %s of read replica set %s is %s: the set cannot be changed now", serviceID, id, st)
		}
		rs, err := pd.client.GetReplicaSet(ctx, serviceID, id)
		if api.IsNotFound(err) {
			return fmt.Errorf("read replica set %s of service %s no longer exists (deleted outside Terraform?)", id, serviceID)
		}
		if err == nil {
			switch st := deref(rs.Status); st {
			case api.ReplicaSetStatusError, api.ReplicaSetStatusDeleting:
				return fmt.Errorf("read replica set %q (%s) of service %s is in status %q and cannot be changed; "+
					"re-create it with terraform apply -replace=<address of the set>", deref(rs.Name), id, serviceID, st)
			}
		}
		return nil // busy for a reason that clears by itself: resizing, creating, service CONFIGURING...
	}
}

func setReplicaSetPooler(ctx context.Context, pd *providerData, serviceID, id string, enabled bool) error {
	action, call := "enable", pd.client.EnableReplicaSetPooler
	if !enabled {
		action, call = "disable", pd.client.DisableReplicaSetPooler
	}
	what := fmt.Sprintf("the API to %s the connection pooler of read replica set %s of service %s", action, id, serviceID)
	poolerIs := func(rs *api.ReadReplicaSet) bool { return rs.PoolerEnabled() == enabled }
	return wait.WhileBusy(ctx, pd.client, pd.backoff, wait.Busy{What: what,
		Call:    func(ctx context.Context) error { return call(ctx, serviceID, id) },
		Stuck:   replicaSetStuck(pd, serviceID, id),
		Applied: replicaSetShows(pd, serviceID, id, poolerIs),
	})
}

// resizeReplicaSet resizes the set (wait.WhileBusy) and waits until it is active at the new size.
func resizeReplicaSet(ctx context.Context, pd *providerData, serviceID, id, name string, cpu, mem int) error {
	resized := func(rs *api.ReadReplicaSet) bool {
		return int64Value(rs.CPUMillis).ValueInt64() == int64(cpu) && int64Value(rs.MemoryGbs).ValueInt64() == int64(mem)
	}
	what := fmt.Sprintf("the API to accept the resize of read replica set %s of service %s", id, serviceID)
	err := wait.WhileBusy(ctx, pd.client, pd.backoff, wait.Busy{What: what,
		Call:    func(ctx context.Context) error { return pd.client.ResizeReplicaSet(ctx, serviceID, id, cpu, mem) },
		Stuck:   replicaSetStuck(pd, serviceID, id),
		Applied: replicaSetShows(pd, serviceID, id, resized),
	})
	if err != nil {
		return err
	}
	_, err = waitReplicaSet(ctx, pd, serviceID, id, name, "to finish resizing", resized)
	return err
}

// replicaSetShows returns a check of whether the replica set's record satisfies ok.
func replicaSetShows(pd *providerData, serviceID, id string, ok func(*api.ReadReplicaSet) bool) func(context.Context) bool {
	return func(ctx context.Context) bool {
		rs, err := pd.client.GetReplicaSet(ctx, serviceID, id)
		return err == nil && ok(rs)
	}
}

func setReplicaSetEnvironment(ctx context.Context, pd *providerData, serviceID, id, env string) error {
	what := fmt.Sprintf("the API to set the environment of read replica set %s of service %s to %s", id, serviceID, env)
	envIs := func(rs *api.ReadReplicaSet) bool { return rs.Metadata != nil && deref(rs.Metadata.Environment) == env }
	return wait.WhileBusy(ctx, pd.client, pd.backoff, wait.Busy{What: what,
		Call: func(ctx context.Context) error {
			return pd.client.SetReplicaSetEnvironment(ctx, serviceID, id, api.Environment(env))
		},
		Stuck:   replicaSetStuck(pd, serviceID, id),
		Applied: replicaSetShows(pd, serviceID, id, envIs),
	})
}

// createReplicaSetWhenReady waits until the parent service is READY, then records the sets it has
// (lc) and creates the set. A 409 (the service became busy in between) is waited out and the create
// sent again; an ambiguous answer (500, broken connection) ends the wait with sent true: the create
// skeleton (create.go) looks for the new set, never sends the create again.
func createReplicaSetWhenReady(ctx context.Context, pd *providerData, serviceID string, body api.ReadReplicaSetCreate, lc *lostCreate) (_ *api.ReadReplicaSet, sent bool, _ error) {
	c := pd.client
	what := fmt.Sprintf("service %s to be READY for creating read replica set %q", serviceID, body.Name)
	created, err := wait.For(ctx, pd.backoff, what, func(ctx context.Context) (wait.PollResult[*api.ReadReplicaSet], error) {
		svc, err := c.GetService(ctx, serviceID)
		switch {
		case api.IsNotFound(err):
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"service %s does not exist: a read replica set needs an existing service (check service_id): %w", serviceID, err))
		case err != nil:
			return wait.PollResult[*api.ReadReplicaSet]{}, err
		}
		if isStandbyRecord(svc) {
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"service_id %s is the id of a read replica set of service %s, not of a service: read replica set %q needs a primary service; "+
					"set service_id = %q", serviceID, deref(svc.ForkedFrom.ServiceID), body.Name, deref(svc.ForkedFrom.ServiceID)))
		}
		switch st := deref(svc.Status); {
		case st == api.READY:
		case st == api.DELETING || st == api.DELETED:
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"service %s is %s: read replica set %q cannot be created on a service that is being deleted", serviceID, st, body.Name))
		case svc.Paused():
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"service %s is %s: resume it before creating read replica set %q (the API only adds replica sets to READY services)", serviceID, st, body.Name))
		default:
			return wait.PollResult[*api.ReadReplicaSet]{Status: "service " + string(st)}, nil
		}

		before, err := existingReplicaSetIDs(ctx, c, serviceID, svc)
		if err != nil {
			return wait.PollResult[*api.ReadReplicaSet]{}, err
		}
		lc.Before = slices.Collect(maps.Keys(before))
		rs, err := c.CreateReplicaSet(ctx, serviceID, body)
		switch {
		case err == nil:
			return wait.PollResult[*api.ReadReplicaSet]{Value: rs, Done: true}, nil
		case api.IsConflict(err):
			tflog.Debug(ctx, "replica set create answered 409: waiting for the service to be READY again", map[string]any{"service_id": serviceID, "error": err.Error()})
			return wait.PollResult[*api.ReadReplicaSet]{Status: "service READY but create " + wait.ConflictStatus(err)}, nil
		case api.IsAmbiguous(err):
			sent = true
		}
		return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(err)
	})
	return created, sent, err
}

// existingReplicaSetIDs are the ids of the sets a service has before a create.
func existingReplicaSetIDs(ctx context.Context, c *api.Client, serviceID string, svc *api.Service) (map[string]bool, error) {
	var sets []api.ReadReplicaSet
	if svc.ReadReplicaSets != nil {
		sets = *svc.ReadReplicaSets
	} else {
		var err error
		if sets, err = c.ListReplicaSets(ctx, serviceID); err != nil {
			return nil, err
		}
	}
	return wait.IDSet(sets, replicaSetID), nil
}

func replicaSetID(s *api.ReadReplicaSet) string { return deref(s.ID) }

// findNewReplicaSet resolves a lost create answer (wait.FindCreated): the one set named name that
// was not in before.
func findNewReplicaSet(ctx context.Context, pd *providerData, serviceID, name string, before map[string]bool, cause error) (*api.ReadReplicaSet, error) {
	return wait.FindCreated(ctx, pd.backoff, wait.Created[api.ReadReplicaSet]{
		Kind: "read replica set", Name: name,
		List: func(ctx context.Context) ([]api.ReadReplicaSet, error) {
			return pd.client.ListReplicaSets(ctx, serviceID)
		},
		Match: func(s *api.ReadReplicaSet) bool { return deref(s.Name) == name && !before[deref(s.ID)] },
		ID:    replicaSetID,
	}, cause)
}

// waitReplicaSet waits until the set is active (and done(set), when given). Status error is a terminal
// failure. The last record seen is returned with the error when there is one.
func waitReplicaSet(ctx context.Context, pd *providerData, serviceID, id, name, purpose string, done func(*api.ReadReplicaSet) bool) (*api.ReadReplicaSet, error) {
	var (
		last  *api.ReadReplicaSet
		story []string // the statuses seen, in order, for the error message
		start = time.Now()
	)
	what := fmt.Sprintf("read replica set %q (%s) of service %s %s", name, id, serviceID, purpose)
	rs, err := wait.For(ctx, pd.backoff, what, func(ctx context.Context) (wait.PollResult[*api.ReadReplicaSet], error) {
		rs, err := pd.client.GetReplicaSet(ctx, serviceID, id)
		switch {
		case api.IsNotFound(err):
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"read replica set %q (%s) disappeared from service %s while waiting for it %s: it was deleted outside Terraform, or the service was", name, id, serviceID, purpose))
		case err != nil:
			return wait.PollResult[*api.ReadReplicaSet]{}, err
		}
		last = rs
		if st := string(deref(rs.Status)); len(story) == 0 || story[len(story)-1] != st {
			story = append(story, st)
		}
		switch st := deref(rs.Status); {
		case st == api.ReplicaSetStatusError:
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"read replica set %q (%s) of service %s is in status %q: the API could not provision it "+
					"(nodes %d, cpu_millis %d, memory_gbs %d; statuses seen while waiting %s: %s, over %s). "+
					"Status error is terminal: Terraform keeps the set as tainted and the next apply deletes and re-creates it; "+
					"if it fails again, try another size or contact support with the set id",
				name, id, serviceID, st, deref(rs.Nodes), int64Value(rs.CPUMillis).ValueInt64(), int64Value(rs.MemoryGbs).ValueInt64(),
				purpose, strings.Join(story, " -> "), time.Since(start).Round(time.Second)))
		case st == api.ReplicaSetStatusDeleting:
			return wait.PollResult[*api.ReadReplicaSet]{}, wait.Stop(fmt.Errorf(
				"read replica set %q (%s) of service %s is being deleted (outside Terraform, or with its service) while waiting for it %s", name, id, serviceID, purpose))
		case st == api.ReplicaSetStatusActive && (done == nil || done(rs)):
			return wait.PollResult[*api.ReadReplicaSet]{Value: rs, Done: true}, nil
		default:
			return wait.PollResult[*api.ReadReplicaSet]{Status: string(st)}, nil
		}
	})
	if err != nil {
		return last, err
	}
	return rs, nil
}
