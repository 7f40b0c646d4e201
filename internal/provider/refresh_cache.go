package provider

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// refreshListTTL is how long one list of the project's services serves the Reads of a refresh. A
// refresh of hundreds of services takes a second or two; after this the next Read lists again.
const refreshListTTL = 10 * time.Second

// serviceReadCache serves the many service Reads of one refresh from one `GET .../services` list (the
// list answers full records): the first Read lists, every Read that comes while the list is in flight
// or fresh shares it (single flight), so a plan of N services costs about one request instead of N.
//
// Correctness first:
//   - it is used only by Read; every other path (waiters, create, update, delete) GETs the record.
//   - any write by this process (any request that is not a GET or HEAD, seen by the client's transport,
//     see wrap) drops the list, both when the write is sent and when its answer arrives, and a list that
//     was in flight across a write, or started while a write was in flight, is never used: a Read after
//     a write in this process always sees the API's answer from after the write.
//   - a service the list does not hold is read with its own GET, so a 404 (removal from state) is
//     always confirmed by a GET of that id; and a failed list falls back to the GET as well.
//
// The zero value is not usable: use newServiceReadCache. A nil *serviceReadCache GETs every time.
type serviceReadCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	gen     uint64 // bumped when a write starts and when it ends
	writing int    // writes in flight
	cur     *serviceList
}

// serviceList is one list request and its result.
type serviceList struct {
	gen     uint64 // the cache's gen when the list was started
	usable  bool   // no write was in flight when it started
	done    chan struct{}
	fetched time.Time
	byID    map[string]*api.Service
	err     error
}

func newServiceReadCache() *serviceReadCache {
	return &serviceReadCache{ttl: refreshListTTL, now: time.Now}
}

// GetService returns the service record for a Read: from the shared list when it is valid, else
// with the client's own GET of the id.
func (c *serviceReadCache) GetService(ctx context.Context, client *api.Client, id string) (*api.Service, error) {
	if c == nil || id == "" {
		return client.GetService(ctx, id)
	}
	l, start := c.list()
	if start {
		c.fetch(ctx, client, l)
	}
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, &api.TransportError{Operation: "get service " + id, Err: ctx.Err()}
	}
	if svc, ok := c.lookup(l, id); ok {
		return svc, nil
	}
	return client.GetService(ctx, id)
}

// list returns the current list, or a new one (start is then true: the caller fetches it).
func (c *serviceReadCache) list() (l *serviceList, start bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.cur; l != nil && l.gen == c.gen {
		select {
		case <-l.done:
			if l.err == nil && c.now().Sub(l.fetched) < c.ttl {
				return l, false
			}
		default:
			return l, false // in flight: share it
		}
	}
	l = &serviceList{gen: c.gen, usable: c.writing == 0, done: make(chan struct{})}
	c.cur = l
	return l, true
}

// fetch lists the services into l. It uses a context of its own (bounded, not cancelled with the
// first Read's), since other Reads wait for it too.
func (c *serviceReadCache) fetch(ctx context.Context, client *api.Client, l *serviceList) {
	defer close(l.done)
	lctx, cancel := wait.Detached(ctx, 2*time.Minute)
	defer cancel()
	list, err := client.ListServices(lctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	l.fetched, l.err = c.now(), err
	if err != nil {
		return
	}
	l.byID = make(map[string]*api.Service, len(list))
	for i := range list {
		// A read replica set's standby record (service_standby.go) is left to the GET of its id.
		if id := deref(list[i].ServiceID); id != "" && !isStandbyRecord(&list[i]) {
			l.byID[id] = &list[i]
		}
	}
}

// lookup returns a copy of id's record from l if l is still valid (no write since it started) and
// holds id.
func (c *serviceReadCache) lookup(l *serviceList, id string) (*api.Service, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !l.usable || l.err != nil || l.gen != c.gen {
		return nil, false
	}
	svc, ok := l.byID[id]
	if !ok {
		return nil, false
	}
	cp := *svc
	return &cp, true
}

// writeStart and writeEnd bracket a write: each drops the list.
func (c *serviceReadCache) writeStart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing++
	c.cur = nil
}

func (c *serviceReadCache) writeEnd() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing--
	c.cur = nil
}

// config returns cfg with its transport wrapped (see wrap), for the client whose writes the cache
// must see.
func (c *serviceReadCache) config(cfg api.Config) api.Config {
	cfg.Transport = c.wrap(cfg.Transport)
	return cfg
}

// wrap returns a transport that tells the cache about every write sent through next (nil: the
// default transport's clone, as api.New would use).
func (c *serviceReadCache) wrap(next http.RoundTripper) http.RoundTripper {
	if c == nil {
		return next
	}
	if next == nil {
		next = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &writeWatchingTransport{next: next, cache: c}
}

// writeWatchingTransport drops the read cache around every request that is not a GET or HEAD.
type writeWatchingTransport struct {
	next  http.RoundTripper
	cache *serviceReadCache
}

func (t *writeWatchingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return t.next.RoundTrip(req)
	}
	t.cache.writeStart()
	defer t.cache.writeEnd()
	return t.next.RoundTrip(req)
}
