package provider

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// refreshListTTL is how long one list serves the Reads of a provider process (which lives for one
// Terraform command), so that one list serves the whole refresh of a plan of a thousand objects, which
// takes seconds to tens of seconds on a loaded machine; after this the next Read lists again. It bounds
// how old a listed record can be for a Read late in a long apply (a data source read after a long wait,
// for example), since waits only read.
const refreshListTTL = time.Minute

// readCache serves the many Reads of one refresh from a few shared lists, one per list the API has,
// each asked once and shared by every resource, data source and list resource that needs it:
//
//   - services and their read replica sets: `GET .../services` (a service record carries its
//     read_replica_sets);
//   - VPCs: `GET .../vpcs`;
//   - the peerings of a VPC: `GET .../vpcs/{id}/peerings`, one list per VPC.
//
// The first reader of a list fetches it; every reader that comes while it is in flight or fresh
// (for refreshListTTL) shares it (single flight), so a plan costs a handful of requests instead of
// one per object.
//
// Correctness first:
//   - it serves only Reads (resources' Read, data sources, list resources); every other path
//     (waiters, create, update, delete) asks the API itself.
//   - any write by this process (any request that is not a GET or HEAD, seen by the client's
//     transport, see wrap) drops every list, both when the write is sent and when its answer arrives,
//     and a list that was in flight across a write, or started while a write was in flight, is never
//     used: a Read after a write in this process always sees the API's answer from after the write.
//   - an object the list does not hold is read with its own request (the single read), so a 404
//     (removal from state) is always confirmed by a read of that object; and a failed list falls back
//     to the single read as well, so that an error never removes anything.
//
// The zero value is not usable: use newReadCache, and of once the client exists. A cache without
// lists (uncachedReads) asks the API every time.
type readCache struct {
	client *api.Client // reads go through it; its transport tells the cache about writes (config)

	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	gen     uint64 // bumped when a write starts and when it ends
	writing int    // writes in flight
	lists   map[string]*sharedList
}

// sharedList is one list request and its result.
type sharedList struct {
	gen     uint64 // the cache's gen when the list was started
	usable  bool   // no write was in flight when it started
	done    chan struct{}
	fetched time.Time
	records any            // the []T of the list
	byID    map[string]int // index in records
	err     error
}

func newReadCache() *readCache {
	return &readCache{ttl: refreshListTTL, now: time.Now, lists: map[string]*sharedList{}}
}

// Keys of the shared lists.
const (
	servicesList = "services"
	vpcsList     = "vpcs"
)

func peeringsList(vpcID string) string { return "vpcs/" + vpcID + "/peerings" }

// listed is what one reader gets of a shared list.
type listed[T any] struct {
	records []T
	byID    map[string]int
}

// get returns a copy of the record with this id, if the list holds it.
func (l listed[T]) get(id string) (*T, bool) {
	i, ok := l.byID[id]
	if !ok {
		return nil, false
	}
	cp := l.records[i]
	return &cp, true
}

// all returns a copy of the list.
func (l listed[T]) all() []T { return slices.Clone(l.records) }

// sharedRecords returns the list named key, fetched once (by fetch; id indexes it) for every reader.
// ok is false when the list cannot serve this reader: it failed (err is then its error), a write of
// this process crossed it, or ctx ended while waiting for it (err nil): the reader then asks the API
// itself.
func sharedRecords[T any](ctx context.Context, c *readCache, key string, fetch func(context.Context) ([]T, error), id func(*T) string) (_ listed[T], ok bool, _ error) {
	l, start := c.list(key)
	if start {
		c.fetch(ctx, l, func(ctx context.Context) (any, map[string]int, error) {
			records, err := fetch(ctx)
			if err != nil {
				return nil, nil, err
			}
			byID := make(map[string]int, len(records))
			for i := range records {
				if k := id(&records[i]); k != "" {
					byID[k] = i
				}
			}
			return records, byID, nil
		})
	}
	select {
	case <-l.done:
	default:
		// Only a reader that has to wait asks for ctx's Done channel: asking makes one, and the
		// framework keeps every request's context until the provider stops (a Read of each of
		// thousands of objects would each leave one behind).
		select {
		case <-l.done:
		case <-ctx.Done():
			return listed[T]{}, false, nil
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case !l.usable || l.gen != c.gen:
		return listed[T]{}, false, nil
	case l.err != nil:
		return listed[T]{}, false, l.err
	}
	return listed[T]{records: l.records.([]T), byID: l.byID}, true, nil
}

// list returns the current list named key, or a new one (start is then true: the caller fetches it).
func (c *readCache) list(key string) (l *sharedList, start bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.lists[key]; l != nil && l.gen == c.gen {
		select {
		case <-l.done:
			// A failed list is kept too: its readers read on their own instead of asking a failing
			// API for the list again.
			if c.now().Sub(l.fetched) < c.ttl {
				return l, false
			}
		default:
			return l, false // in flight: share it
		}
	}
	l = &sharedList{gen: c.gen, usable: c.writing == 0, done: make(chan struct{})}
	c.lists[key] = l
	return l, true
}

// fetch fills l. It uses a context of its own, not cancelled with the first reader's, since other
// readers wait for it too; and without a deadline, so that the client's outage budget (the provider's
// outage_timeout) bounds it as it bounds every read of a plan, and each attempt its request_timeout.
func (c *readCache) fetch(ctx context.Context, l *sharedList, fetch func(context.Context) (any, map[string]int, error)) {
	defer close(l.done)
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	records, byID, err := fetch(lctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	l.fetched, l.records, l.byID, l.err = c.now(), records, byID, err
}

// ---- The reads, by record type. Each mirrors the client's method of the same name.

// of makes the cache read through client (the client built on c.config), and returns it.
func (c *readCache) of(client *api.Client) *readCache {
	c.client = client
	return c
}

// uncachedReads is a read cache without lists: every read asks the API (providerData.read, when
// the provider data has no cache).
func uncachedReads(client *api.Client) *readCache { return &readCache{client: client} }

// cachedKind is one record type the cache serves: the key of its shared list in a scope (the VPC of
// peerings; "" for the project's lists), the list, the record's own GET, and the id that indexes it.
type cachedKind[T any] struct {
	key  func(scope string) string
	list func(ctx context.Context, c *api.Client, scope string) ([]T, error)
	get  func(ctx context.Context, c *api.Client, scope, id string) (*T, error)
	id   func(*T) string
}

var (
	cachedServices = cachedKind[api.Service]{
		key:  func(string) string { return servicesList },
		list: func(ctx context.Context, c *api.Client, _ string) ([]api.Service, error) { return c.ListServices(ctx) },
		get: func(ctx context.Context, c *api.Client, _, id string) (*api.Service, error) {
			return c.GetService(ctx, id)
		},
		id: serviceRecordID,
	}
	cachedVPCs = cachedKind[api.VPC]{
		key:  func(string) string { return vpcsList },
		list: func(ctx context.Context, c *api.Client, _ string) ([]api.VPC, error) { return c.ListVPCs(ctx) },
		get:  func(ctx context.Context, c *api.Client, _, id string) (*api.VPC, error) { return c.GetVPC(ctx, id) },
		id:   vpcID,
	}
	cachedPeerings = cachedKind[api.Peering]{
		key: peeringsList,
		list: func(ctx context.Context, c *api.Client, vpcID string) ([]api.Peering, error) {
			return c.ListPeerings(ctx, vpcID)
		},
		get: func(ctx context.Context, c *api.Client, vpcID, id string) (*api.Peering, error) {
			return c.GetPeering(ctx, vpcID, id)
		},
		id: peeringID,
	}
)

// shared is the list of kind k in scope, when the cache can serve it (ok); err is a failed list's error.
func shared[T any](ctx context.Context, c *readCache, k cachedKind[T], scope string) (_ listed[T], ok bool, _ error) {
	if c.lists == nil {
		return listed[T]{}, false, nil
	}
	return sharedRecords(ctx, c, k.key(scope), func(ctx context.Context) ([]T, error) { return k.list(ctx, c.client, scope) }, k.id)
}

// cachedGet returns a record: from the shared list, else with its own GET; a list that failed
// because the API was away is the error (listGaveUp).
func cachedGet[T any](ctx context.Context, c *readCache, k cachedKind[T], scope, id string) (*T, error) {
	if id != "" {
		l, ok, err := shared(ctx, c, k, scope)
		if ok {
			if v, ok := l.get(id); ok {
				return v, nil
			}
		}
		if listGaveUp(err) {
			return nil, err
		}
	}
	return k.get(ctx, c.client, scope, id)
}

// listGaveUp reports whether a shared list failed because the API was away for the whole outage
// budget (or never reached): its readers fail with it rather than each riding the outage out again,
// so that outage_timeout bounds a plan's refresh, however many objects it reads. Any other failure
// of a list falls back to the reader's own request.
func listGaveUp(err error) bool { return api.IsOutage(err) || api.IsUnreachable(err) }

// cachedList returns the shared list (a copy), else the API's own list; a failed shared list is
// the error.
func cachedList[T any](ctx context.Context, c *readCache, k cachedKind[T], scope string) ([]T, error) {
	l, ok, err := shared(ctx, c, k, scope)
	switch {
	case ok:
		return l.all(), nil
	case err != nil:
		return nil, err
	}
	return k.list(ctx, c.client, scope)
}

// GetService returns a service record: from the shared list of services, else with its own GET.
func (c *readCache) GetService(ctx context.Context, id string) (*api.Service, error) {
	return cachedGet(ctx, c, cachedServices, "", id)
}

// ListServices returns the project's services: the shared list.
func (c *readCache) ListServices(ctx context.Context) ([]api.Service, error) {
	return cachedList(ctx, c, cachedServices, "")
}

// A read replica set's standby record (service_standby.go) is never served from the list: it is
// left to the GET of its id.
func serviceRecordID(s *api.Service) string {
	if isStandbyRecord(s) {
		return ""
	}
	return deref(s.ServiceID)
}

// vpcID and peeringID are the ids of listed records (also used by the lost-create lookups).
func vpcID(v *api.VPC) string { return deref(v.ID) }

func peeringID(p *api.Peering) string { return deref(p.ID) }

// GetReplicaSet returns a read replica set: from its service's record in the shared list of
// services, else with the client's own read (which lists the service's replica sets).
func (c *readCache) GetReplicaSet(ctx context.Context, serviceID, id string) (*api.ReadReplicaSet, error) {
	sets, ok, err := c.listedReplicaSets(ctx, serviceID)
	if ok {
		for i := range sets {
			if deref(sets[i].ID) == id {
				return &sets[i], nil
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return c.client.GetReplicaSet(ctx, serviceID, id)
}

// ListReplicaSets returns a service's read replica sets: from its record in the shared list of
// services, else with the client's own list.
func (c *readCache) ListReplicaSets(ctx context.Context, serviceID string) ([]api.ReadReplicaSet, error) {
	sets, ok, err := c.listedReplicaSets(ctx, serviceID)
	switch {
	case ok:
		return sets, nil
	case err != nil:
		return nil, err
	}
	return c.client.ListReplicaSets(ctx, serviceID)
}

// listedReplicaSets is a copy of the read_replica_sets of the service's record in the shared list,
// if that tells them: the list can serve and holds the service, the record carries
// read_replica_sets, and every set in it has an id (see api.Client.GetReplicaSet). err is a list that
// failed because the API was away (listGaveUp).
func (c *readCache) listedReplicaSets(ctx context.Context, serviceID string) ([]api.ReadReplicaSet, bool, error) {
	if serviceID == "" {
		return nil, false, nil
	}
	l, ok, err := shared(ctx, c, cachedServices, "")
	if !ok {
		if listGaveUp(err) {
			return nil, false, err
		}
		return nil, false, nil
	}
	svc, ok := l.get(serviceID)
	if !ok || svc.ReadReplicaSets == nil {
		return nil, false, nil
	}
	sets := slices.Clone(*svc.ReadReplicaSets)
	for i := range sets {
		if deref(sets[i].ID) == "" {
			return nil, false, nil
		}
	}
	return sets, true, nil
}

// GetVPC returns a VPC: from the shared list of VPCs, else with its own GET.
func (c *readCache) GetVPC(ctx context.Context, id string) (*api.VPC, error) {
	return cachedGet(ctx, c, cachedVPCs, "", id)
}

// ListVPCs returns the project's VPCs: the shared list.
func (c *readCache) ListVPCs(ctx context.Context) ([]api.VPC, error) {
	return cachedList(ctx, c, cachedVPCs, "")
}

// GetPeering returns a peering: from the shared list of its VPC's peerings, else with its own GET.
func (c *readCache) GetPeering(ctx context.Context, vpcID, id string) (*api.Peering, error) {
	if vpcID == "" {
		return c.client.GetPeering(ctx, vpcID, id)
	}
	return cachedGet(ctx, c, cachedPeerings, vpcID, id)
}

// ListPeerings returns a VPC's peerings: the shared list of that VPC.
func (c *readCache) ListPeerings(ctx context.Context, vpcID string) ([]api.Peering, error) {
	if vpcID == "" {
		return c.client.ListPeerings(ctx, vpcID)
	}
	return cachedList(ctx, c, cachedPeerings, vpcID)
}

// ---- Writes

// writeStart and writeEnd bracket a write: each drops every list.
func (c *readCache) writeStart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing++
	clear(c.lists)
}

func (c *readCache) writeEnd() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.writing--
	clear(c.lists)
}

// config returns cfg with its transport wrapped (see wrap), for the client whose writes the cache
// must see.
func (c *readCache) config(cfg api.Config) api.Config {
	cfg.Transport = c.wrap(cfg.Transport)
	return cfg
}

// wrap returns a transport that tells the cache about every write sent through next (nil: the
// default transport's clone, as api.New would use).
func (c *readCache) wrap(next http.RoundTripper) http.RoundTripper {
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
	cache *readCache
}

func (t *writeWatchingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return t.next.RoundTrip(req)
	}
	t.cache.writeStart()
	defer t.cache.writeEnd()
	return t.next.RoundTrip(req)
}
