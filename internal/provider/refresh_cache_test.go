package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// readCacheEnv is an emulator with n READY services and a client whose writes the cache sees.
type readCacheEnv struct {
	srv    *emulator.Server
	cache  *readCache
	client *api.Client
	ids    []string
}

func newReadCacheEnv(t *testing.T, n int, base http.RoundTripper) *readCacheEnv {
	t.Helper()
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing = emulator.Timing{} })
	plain := testClient(t, srv)
	env := &readCacheEnv{srv: srv, cache: newReadCache()}
	for i := range n {
		svc, err := plain.CreateService(context.Background(), api.ServiceCreate{Name: fmt.Sprintf("cache-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		env.ids = append(env.ids, *svc.ServiceID)
	}
	c, err := api.New(env.cache.config(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey,
		ProjectID: testProjectID, Retry: testRetry, Transport: base}))
	if err != nil {
		t.Fatal(err)
	}
	env.client = c
	env.cache.of(c)
	srv.ResetRequests()
	return env
}

func TestServiceReadCacheSharesOneList(t *testing.T) {
	env := newReadCacheEnv(t, 30, nil)
	ctx := context.Background()
	got := make([]*api.Service, len(env.ids))
	var wg sync.WaitGroup
	for i, id := range env.ids {
		wg.Go(func() {
			svc, err := env.cache.GetService(ctx, id)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = svc
		})
	}
	wg.Wait()
	if l, g := env.srv.Calls("listServices"), env.srv.Calls("getService"); l != 1 || g != 0 {
		t.Errorf("30 concurrent Reads made %d list and %d get requests, want 1 and 0", l, g)
	}
	// The list's records are the GET's records.
	for i, id := range env.ids {
		want, err := env.client.GetService(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got[i] == nil || !sameService(got[i], want) {
			t.Errorf("service %s from the list differs from its GET:\n%+v\n%+v", id, got[i], want)
		}
	}
	// A later Read within the TTL uses the same list; after the TTL it lists again.
	env.srv.ResetRequests()
	now := time.Now()
	env.cache.now = func() time.Time { return now }
	if _, err := env.cache.GetService(ctx, env.ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := env.srv.Calls(""); n != 0 {
		t.Errorf("a Read within the TTL made %d requests, want 0", n)
	}
	now = now.Add(refreshListTTL + time.Second)
	if _, err := env.cache.GetService(ctx, env.ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := env.srv.Calls("listServices"); n != 1 {
		t.Errorf("a Read after the TTL made %d list requests, want 1", n)
	}
}

func TestServiceReadCacheMissIsConfirmedByGet(t *testing.T) {
	env := newReadCacheEnv(t, 3, nil)
	ctx := context.Background()
	// Gone from the API: the list does not hold it, so its own GET decides (404).
	_, err := env.cache.GetService(ctx, "nosuchsvc1")
	if !api.IsNotFound(err) {
		t.Fatalf("want a 404 from the confirming GET, got %v", err)
	}
	if l, g := env.srv.Calls("listServices"), env.srv.Calls("getService"); l != 1 || g != 1 {
		t.Errorf("list %d, get %d: want 1 and 1", l, g)
	}
	// Created by someone else after the list: its own GET finds it.
	other, err := testClient(t, env.srv).CreateService(ctx, api.ServiceCreate{Name: "later"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := env.cache.GetService(ctx, *other.ServiceID)
	if err != nil || deref(svc.ServiceID) != *other.ServiceID {
		t.Fatalf("GetService(new id) = %v, %v", svc, err)
	}
}

func TestServiceReadCacheListFailureFallsBackToGet(t *testing.T) {
	env := newReadCacheEnv(t, 2, nil)
	env.srv.InjectFault("listServices", emulator.FaultServerError, 100)
	svc, err := env.cache.GetService(context.Background(), env.ids[1])
	if err != nil || deref(svc.ServiceID) != env.ids[1] {
		t.Fatalf("GetService = %v, %v: want the GET's record", svc, err)
	}
}

func TestServiceReadCacheUncachedGets(t *testing.T) {
	env := newReadCacheEnv(t, 1, nil)
	c := uncachedReads(env.client)
	if _, err := c.GetService(context.Background(), env.ids[0]); err != nil {
		t.Fatal(err)
	}
	if l, g := env.srv.Calls("listServices"), env.srv.Calls("getService"); l != 0 || g != 1 {
		t.Errorf("uncached: list %d, get %d; want 0 and 1", l, g)
	}
}

// A write followed by a Read in the same process never sees the record from before the write.
func TestServiceReadCacheWriteThenReadIsNeverStale(t *testing.T) {
	env := newReadCacheEnv(t, 3, nil)
	ctx := context.Background()
	id := env.ids[1]
	before, err := env.cache.GetService(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if flattenService(before).CPUMillis.ValueInt64() == 2000 {
		t.Fatal("the test needs a service that is not 2000m yet")
	}
	for _, write := range []func() error{
		func() error { return env.client.ResizeService(ctx, id, 2000, 8) },
		func() error { return env.client.SetEnvironment(ctx, id, api.PROD) },
		func() error { return env.client.DeleteService(ctx, env.ids[2]) },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
		for _, rid := range []string{id, env.ids[2]} {
			got, gerr := env.cache.GetService(ctx, rid)
			want, werr := env.client.GetService(ctx, rid)
			if (gerr == nil) != (werr == nil) || (gerr == nil && !sameService(got, want)) {
				t.Fatalf("Read after a write is stale for %s:\n got  %+v, %v\n want %+v, %v", rid, got, gerr, want, werr)
			}
		}
	}
}

// sameService compares two records as Terraform sees them.
func sameService(a, b *api.Service) bool {
	var ma, mb serviceResourceModel
	ma.applyRecord(a, testProjectID)
	mb.applyRecord(b, testProjectID)
	return fmt.Sprintf("%v", ma) == fmt.Sprintf("%v", mb)
}

// holdListTransport answers a list request (taken from the API at once) only when released.
type holdListTransport struct {
	next     http.RoundTripper
	taken    chan struct{}
	release  chan struct{}
	holdOnce sync.Once
}

func (h *holdListTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/services") {
		h.holdOnce.Do(func() {
			close(h.taken)
			<-h.release
		})
	}
	return resp, err
}

// A list taken before a write but answered after it is not used by any Read.
func TestServiceReadCacheListInFlightAcrossWriteIsDropped(t *testing.T) {
	hold := &holdListTransport{next: http.DefaultTransport.(*http.Transport).Clone(), taken: make(chan struct{}), release: make(chan struct{})}
	env := newReadCacheEnv(t, 2, hold)
	ctx := context.Background()
	id := env.ids[0]
	type result struct {
		svc *api.Service
		err error
	}
	done := make(chan result, 1)
	go func() {
		svc, err := env.cache.GetService(ctx, id)
		done <- result{svc, err}
	}()
	<-hold.taken // the list holds the record from before the resize
	if err := env.client.ResizeService(ctx, id, 2000, 8); err != nil {
		t.Fatal(err)
	}
	close(hold.release)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if cpu := flattenService(r.svc).CPUMillis.ValueInt64(); cpu != 2000 {
		t.Errorf("Read saw cpu_millis %d from a list taken before the resize, want 2000", cpu)
	}
}
