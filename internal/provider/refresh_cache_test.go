package provider

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// readCacheEnv is an emulator with n READY services and a client whose writes the cache sees.
type readCacheEnv struct {
	srv    *emulatortest.Server
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

// stackEnv is an emulator holding services with one read replica set each and VPCs with peerings,
// and a client whose writes the cache sees.
type stackEnv struct {
	*readCacheEnv
	sets     map[string]string   // service id -> its replica set's id
	peerings map[string][]string // VPC id -> its peerings' ids
	vpcs     []string
}

func newStackEnv(t *testing.T, services, vpcs, peeringsPerVPC int) *stackEnv {
	t.Helper()
	env := &stackEnv{readCacheEnv: newReadCacheEnv(t, services, nil), sets: map[string]string{}, peerings: map[string][]string{}}
	ctx := context.Background()
	plain := testClient(t, env.srv)
	for i, id := range env.ids {
		rs, err := plain.CreateReplicaSet(ctx, id, api.ReadReplicaSetCreate{Name: fmt.Sprintf("rs-%d", i), Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
		if err != nil {
			t.Fatal(err)
		}
		env.sets[id] = deref(rs.ID)
	}
	for i := range vpcs {
		v, err := plain.CreateVPC(ctx, api.VPCCreate{Name: fmt.Sprintf("vpc-%d", i), Cidr: fmt.Sprintf("10.%d.0.0/16", i), RegionCode: "us-east-1"})
		if err != nil {
			t.Fatal(err)
		}
		env.vpcs = append(env.vpcs, deref(v.ID))
		for j := range peeringsPerVPC {
			p, err := plain.CreatePeering(ctx, deref(v.ID), api.PeeringCreate{PeerAccountID: "123456789012", PeerRegionCode: "us-east-1", PeerVpcID: fmt.Sprintf("vpc-%d-%d", i, j)})
			if err != nil {
				t.Fatal(err)
			}
			env.peerings[deref(v.ID)] = append(env.peerings[deref(v.ID)], deref(p.ID))
		}
	}
	env.srv.ResetRequests()
	return env
}

// calls returns the emulator's request counts of the named operations.
func calls(srv *emulatortest.Server, ops ...string) map[string]int {
	out := map[string]int{}
	for _, op := range ops {
		out[op] = srv.Calls(op)
	}
	return out
}

var readOps = []string{"listServices", "getService", "listReplicaSets", "listVPCs", "getVPC", "listPeerings", "getPeering"}

// expectCalls checks the emulator's request counts of readOps (absent from want: 0).
func expectCalls(t *testing.T, srv *emulatortest.Server, what string, want map[string]int) {
	t.Helper()
	got := calls(srv, readOps...)
	for _, op := range readOps {
		if got[op] != want[op] {
			t.Errorf("%s: %v requests, want %v", what, got, want)
			return
		}
	}
}

// Every Read of a stack, run at once, shares one list per list: 1 of services (replica sets
// included), 1 of VPCs, 1 of peerings per VPC; and every record equals what its own read answers.
func TestReadCacheEveryRecordTypeSharesItsList(t *testing.T) {
	env := newStackEnv(t, 12, 4, 2)
	ctx := context.Background()
	c, client := env.cache, env.client
	type read struct {
		name string
		got  func() (any, error)
		want func() (any, error)
	}
	var reads []read
	for sid, rsid := range env.sets {
		reads = append(reads,
			read{"service " + sid,
				func() (any, error) { return c.GetService(ctx, sid) },
				func() (any, error) { return client.GetService(ctx, sid) }},
			read{"replica set " + rsid,
				func() (any, error) { return c.GetReplicaSet(ctx, sid, rsid) },
				func() (any, error) { return client.GetReplicaSet(ctx, sid, rsid) }},
			read{"replica sets of " + sid,
				func() (any, error) { return c.ListReplicaSets(ctx, sid) },
				func() (any, error) { return client.ListReplicaSets(ctx, sid) }})
	}
	for vid, pids := range env.peerings {
		reads = append(reads,
			read{"VPC " + vid,
				func() (any, error) { return c.GetVPC(ctx, vid) },
				func() (any, error) { return client.GetVPC(ctx, vid) }},
			read{"peerings of " + vid,
				func() (any, error) { return c.ListPeerings(ctx, vid) },
				func() (any, error) { return client.ListPeerings(ctx, vid) }})
		for _, pid := range pids {
			reads = append(reads, read{"peering " + pid,
				func() (any, error) { return c.GetPeering(ctx, vid, pid) },
				func() (any, error) { return client.GetPeering(ctx, vid, pid) }})
		}
	}
	reads = append(reads,
		read{"services", func() (any, error) { return c.ListServices(ctx) }, func() (any, error) { return client.ListServices(ctx) }},
		read{"VPCs", func() (any, error) { return c.ListVPCs(ctx) }, func() (any, error) { return client.ListVPCs(ctx) }})

	got := make([]any, len(reads))
	var wg sync.WaitGroup
	for i, r := range reads {
		wg.Go(func() {
			v, err := r.got()
			if err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	expectCalls(t, env.srv, fmt.Sprintf("%d concurrent reads", len(reads)),
		map[string]int{"listServices": 1, "listVPCs": 1, "listPeerings": len(env.vpcs)})
	for i, r := range reads {
		want, err := r.want()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("%s from the shared list differs from its own read:\n%#v\n%#v", r.name, got[i], want)
		}
	}
}

// An object missing from a fresh list is read with its own request, whose 404 decides; a service
// missing from the list, or whose record holds no such replica set, is read the same way.
func TestReadCacheMissIsConfirmedBySingleRead(t *testing.T) {
	env := newStackEnv(t, 2, 1, 1)
	ctx := context.Background()
	c := env.cache
	sid, vid := env.ids[0], env.vpcs[0]
	for _, r := range []struct {
		name string
		read func() error
		op   string
	}{
		{"replica set", func() error { _, err := c.GetReplicaSet(ctx, sid, "nosuchset1"); return err }, "listReplicaSets"},
		{"replica set of a missing service", func() error { _, err := c.GetReplicaSet(ctx, "nosuchsvc1", "nosuchset1"); return err }, "listReplicaSets"},
		{"VPC", func() error { _, err := c.GetVPC(ctx, "999999"); return err }, "getVPC"},
		{"peering", func() error { _, err := c.GetPeering(ctx, vid, "999999"); return err }, "getPeering"},
	} {
		env.srv.ResetRequests()
		if err := r.read(); !api.IsNotFound(err) {
			t.Errorf("%s: want a 404 from the confirming read, got %v", r.name, err)
		}
		if n := env.srv.Calls(r.op); n != 1 {
			t.Errorf("%s: %d %s requests, want 1 (the confirming read)", r.name, n, r.op)
		}
	}
	// Deleted out of band: the next lists (after the TTL) do not hold them, and the single reads
	// confirm the 404s.
	now := c.now()
	c.now = func() time.Time { return now }
	env.srv.RemoveReplicaSet(testProjectID, sid, env.sets[sid])
	env.srv.RemovePeering(testProjectID, vid, env.peerings[vid][0])
	now = now.Add(refreshListTTL + time.Second)
	if _, err := c.GetReplicaSet(ctx, sid, env.sets[sid]); !api.IsNotFound(err) {
		t.Errorf("replica set deleted out of band: got %v, want a 404", err)
	}
	if _, err := c.GetPeering(ctx, vid, env.peerings[vid][0]); !api.IsNotFound(err) {
		t.Errorf("peering deleted out of band: got %v, want a 404", err)
	}
	env.srv.RemoveVPC(testProjectID, vid)
	now = now.Add(refreshListTTL + time.Second)
	if _, err := c.GetVPC(ctx, vid); !api.IsNotFound(err) {
		t.Errorf("VPC deleted out of band: got %v, want a 404", err)
	}
}

// A failed list falls back to the single reads (never a 404), and list readers get its error.
func TestReadCacheFailedListFallsBackToSingleRead(t *testing.T) {
	env := newStackEnv(t, 2, 1, 1)
	ctx := context.Background()
	c := env.cache
	sid, vid := env.ids[1], env.vpcs[0]
	for _, op := range []string{"listServices", "listVPCs", "listPeerings"} {
		env.srv.InjectFault(op, emulator.FaultServerError, 1000)
	}
	if rs, err := c.GetReplicaSet(ctx, sid, env.sets[sid]); err != nil || deref(rs.ID) != env.sets[sid] {
		t.Errorf("GetReplicaSet = %v, %v: want the single read's record", rs, err)
	}
	if v, err := c.GetVPC(ctx, vid); err != nil || deref(v.ID) != vid {
		t.Errorf("GetVPC = %v, %v: want the single read's record", v, err)
	}
	if p, err := c.GetPeering(ctx, vid, env.peerings[vid][0]); err != nil || deref(p.ID) != env.peerings[vid][0] {
		t.Errorf("GetPeering = %v, %v: want the single read's record", p, err)
	}
	// The failed list is not asked again by the next readers (within the TTL): they read on their own.
	lists := env.srv.Calls("listVPCs")
	if v, err := c.GetVPC(ctx, vid); err != nil || deref(v.ID) != vid {
		t.Errorf("GetVPC again = %v, %v: want the single read's record", v, err)
	}
	if n := env.srv.Calls("listVPCs"); n != lists {
		t.Errorf("a second read asked the failed VPC list again (%d requests, then %d)", lists, n)
	}
	if _, err := c.ListVPCs(ctx); err == nil || api.IsNotFound(err) {
		t.Errorf("ListVPCs with a failing list: got %v, want its 502", err)
	}
	if _, err := c.ListPeerings(ctx, vid); err == nil || api.IsNotFound(err) {
		t.Errorf("ListPeerings with a failing list: got %v, want its 502", err)
	}
}

// A write by this process drops every list: a read after it sees the API's answer from after the write.
func TestReadCacheWriteDropsEveryList(t *testing.T) {
	env := newStackEnv(t, 1, 1, 1)
	ctx := context.Background()
	c, client := env.cache, env.client
	sid, vid := env.ids[0], env.vpcs[0]
	if _, err := c.GetVPC(ctx, vid); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetReplicaSet(ctx, sid, env.sets[sid]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPeering(ctx, vid, env.peerings[vid][0]); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RenameVPC(ctx, vid, "renamed"); err != nil {
		t.Fatal(err)
	}
	if v, err := c.GetVPC(ctx, vid); err != nil || deref(v.Name) != "renamed" {
		t.Errorf("GetVPC after a rename = %v, %v: want the new name", v, err)
	}
	if err := client.ResizeReplicaSet(ctx, sid, env.sets[sid], 1000, 4); err != nil {
		t.Fatal(err)
	}
	rs, err := c.GetReplicaSet(ctx, sid, env.sets[sid])
	if err != nil || int64Value(rs.CPUMillis).ValueInt64() != 1000 {
		t.Errorf("GetReplicaSet after a resize = %+v, %v: want cpu_millis 1000", rs, err)
	}
	if err := client.DeletePeering(ctx, vid, env.peerings[vid][0]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPeering(ctx, vid, env.peerings[vid][0]); !api.IsNotFound(err) {
		t.Errorf("GetPeering after its delete: got %v, want a 404", err)
	}
	if n := env.srv.Calls("listVPCs"); n != 2 {
		t.Errorf("%d VPC lists, want 2 (one before the rename, one after)", n)
	}
}

// A reader whose context ends while the list is in flight reads on its own (ok false, no error); once
// the list is there, every reader gets it, without waiting on its context.
func TestSharedListReaderWhoseContextEnds(t *testing.T) {
	c := newReadCache()
	release := make(chan struct{})
	fetch := func(context.Context) ([]string, error) {
		<-release
		return []string{"a", "b"}, nil
	}
	id := func(s *string) string { return *s }
	first := make(chan bool)
	go func() {
		_, ok, _ := sharedRecords(context.Background(), c, "k", fetch, id)
		first <- ok
	}()
	for { // the first reader's fetch is in flight
		c.mu.Lock()
		started := c.lists["k"] != nil
		c.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := sharedRecords(ended, c, "k", fetch, id); ok || err != nil {
		t.Fatalf("a reader whose context ended while the list was in flight: ok %v, err %v; want false, nil", ok, err)
	}
	close(release)
	if !<-first {
		t.Fatal("the first reader did not get its list")
	}
	for range 100 { // with the list there, an ended context never wins a race against it
		l, ok, err := sharedRecords(ended, c, "k", fetch, id)
		if !ok || err != nil || len(l.records) != 2 {
			t.Fatalf("a reader of a fetched list: %v, ok %v, err %v", l.records, ok, err)
		}
	}
}

// mixedStackConfig is the stack of issue 27 at a size: vpcs VPCs with one peering each, services
// services with one read replica set each.
func mixedStackConfig(srv *emulatortest.Server, vpcs, services int) string {
	return `
terraform {
  required_providers {
    dbcloud = { source = "registry.terraform.io/dbcloud/dbcloud" }
  }
}
` + providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "v" {
  count       = %d
  name        = "mixed-vpc-${count.index}"
  cidr        = "10.${count.index}.0.0/16"
  region_code = "us-east-1"
}
resource "dbcloud_vpc_peering" "p" {
  count            = %d
  vpc_id           = dbcloud_vpc.v[count.index].id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-mixed${count.index}"
}
resource "dbcloud_service" "s" {
  count = %d
  name  = "mixed-${count.index}"
}
resource "dbcloud_read_replica_set" "r" {
  count      = %d
  service_id = dbcloud_service.s[count.index].id
  name       = "mixed-rs-${count.index}"
  cpu_millis = 500
  memory_gbs = 2
}
`, vpcs, vpcs, services, services)
}

// plannedCreates returns the addresses a saved plan creates; it fails the test for any other change.
func plannedCreates(tf *tfWorkdir, planFile string) []string {
	tf.t.Helper()
	var creates []string
	for _, rc := range tf.plan(planFile).ResourceChanges {
		switch strings.Join(rc.Change.Actions, ",") {
		case "create":
			creates = append(creates, rc.Address)
		case "no-op", "read":
		default:
			tf.t.Errorf("the plan %s %s; only creates were expected", strings.Join(rc.Change.Actions, ","), rc.Address)
		}
	}
	slices.Sort(creates)
	return creates
}

// The stack of issue 27 (10 VPCs with one peering each, 40 services with one read replica set
// each: 100 objects) refreshed from lists, with the real terraform against the provider served
// in-process:
//   - a no-change plan sends 12 requests (1 list of services, 1 of VPCs, 1 of peerings per VPC) and
//     plans nothing;
//   - objects of each record type deleted out of band are seen as gone: removed from state by a
//     refresh, and the next plan creates them;
//   - while every list fails, a refresh removes nothing (each object is read on its own) and the
//     plan is empty.
func TestAccRefresh_mixedStackFromLists(t *testing.T) {
	testAccPreCheck(t)
	const vpcs, services = 10, 40
	srv := newTestEmulator(t)
	tf := newTF(t, tfOptions{})
	tf.writeFile("main.tf", mixedStackConfig(srv, vpcs, services))
	tf.must("init", "-input=false")
	tf.must("apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids := tf.stateAddresses()
	if len(ids) != 2*vpcs+2*services {
		t.Fatalf("%d objects in state after apply, want %d", len(ids), 2*vpcs+2*services)
	}

	// 1. A no-change plan: one list per list, nothing else, and nothing to do.
	srv.ResetRequests()
	tf.must("plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
	want := map[string]int{"listServices": 1, "listVPCs": 1, "listPeerings": vpcs}
	got := map[string]int{}
	for _, r := range srv.Requests() {
		got[r.OperationID]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a no-change plan of %d objects sent %v, want %v (%d requests)", len(ids), got, want, 2+vpcs)
	}

	// 2. Deleted out of band, one or two of each record type: a replica set alone, a service with
	// its replica set, a peering alone, a VPC with its peering.
	srv.RemoveReplicaSet(testProjectID, ids["dbcloud_service.s[0]"], ids["dbcloud_read_replica_set.r[0]"])
	srv.RemoveService(testProjectID, ids["dbcloud_service.s[1]"])
	srv.RemovePeering(testProjectID, ids["dbcloud_vpc.v[0]"], ids["dbcloud_vpc_peering.p[0]"])
	srv.RemoveVPC(testProjectID, ids["dbcloud_vpc.v[1]"])
	gone := []string{"dbcloud_read_replica_set.r[0]", "dbcloud_read_replica_set.r[1]", "dbcloud_service.s[1]",
		"dbcloud_vpc.v[1]", "dbcloud_vpc_peering.p[0]", "dbcloud_vpc_peering.p[1]"}
	tf.runWant(2, "plan", "-detailed-exitcode", "-input=false", "-out=gone.tfplan")
	if creates := plannedCreates(tf, "gone.tfplan"); !slices.Equal(creates, gone) {
		t.Errorf("after the out-of-band deletes the plan creates %v, want %v", creates, gone)
	}
	tf.must("apply", "-refresh-only", "-auto-approve", "-input=false")
	left := tf.stateAddresses()
	for _, addr := range gone {
		if _, ok := left[addr]; ok {
			t.Errorf("%s is still in state after a refresh, but it was deleted out of band", addr)
		}
	}
	if len(left) != len(ids)-len(gone) {
		t.Errorf("%d objects in state after the refresh, want %d", len(left), len(ids)-len(gone))
	}
	tf.must("apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids = tf.stateAddresses()

	// 3. Every list fails: a refresh removes nothing and the plan is empty.
	for _, op := range []string{"listServices", "listVPCs", "listPeerings"} {
		srv.InjectFault(op, emulator.FaultServerError, 1_000_000)
	}
	srv.ResetRequests()
	tf.must("apply", "-refresh-only", "-auto-approve", "-input=false", "-parallelism=10")
	if after := tf.stateAddresses(); fmt.Sprint(after) != fmt.Sprint(ids) {
		t.Errorf("a refresh with failing lists changed the state:\n before %v\n after  %v", ids, after)
	}
	if n := srv.Calls("getVPC"); n != vpcs {
		t.Errorf("with failing lists, %d VPCs were read on their own, want %d", n, vpcs)
	}
	tf.must("plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
}
