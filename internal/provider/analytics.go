package provider

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// analyticsTimeout bounds every analytics call: analytics must never slow an apply down noticeably.
const analyticsTimeout = 2 * time.Second

// analytics sends opt-in usage events: one identify, then one event per create/update/delete.
// Events carry the resource type, the action and the provider version only: no names, ids or secrets.
// Every call is best effort: failures are logged at debug level and otherwise ignored.
type analytics struct {
	client   *api.Client
	version  string
	identify sync.Once
}

func newAnalytics(cfg api.Config, version string) *analytics {
	cfg.Retry = &api.RetryPolicy{MaxRetries: 0}
	cfg.Timeout = analyticsTimeout
	client, err := api.New(cfg)
	if err != nil {
		return nil
	}
	return &analytics{client: client, version: version}
}

// track records that action ("create", "update", "delete") was done on a resource type. Nil-safe.
func (a *analytics) track(ctx context.Context, resourceType, action string) {
	if a == nil {
		return
	}
	ctx, cancel := wait.Detached(ctx, analyticsTimeout)
	defer cancel()
	a.identify.Do(func() {
		if err := a.client.Identify(ctx, map[string]any{"provider_version": a.version}); err != nil {
			tflog.Debug(ctx, "dbcloud analytics identify failed (ignored)", map[string]any{"error": err.Error()})
		}
	})
	err := a.client.Track(ctx, "terraform_"+action, map[string]any{
		"resource_type":    resourceType,
		"action":           action,
		"provider_version": a.version,
	})
	if err != nil {
		tflog.Debug(ctx, "dbcloud analytics track failed (ignored)", map[string]any{"error": err.Error()})
	}
}
