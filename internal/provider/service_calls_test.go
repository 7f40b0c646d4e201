package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// findCreatedService resolves a lost create answer by looking: one match is adopted, several are an
// error naming them, none means nothing was created (only services created since the attempt count).
func TestServiceFindCreated(t *testing.T) {
	old := wait.LookFor
	wait.LookFor = 300 * time.Millisecond
	t.Cleanup(func() { wait.LookFor = old })

	srv := newTestEmulator(t)
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	ctx := context.Background()
	cause := errors.New("create service: HTTP 500")
	create := func(name string) string {
		s, err := pd.client.CreateService(ctx, api.ServiceCreate{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return deref(s.ServiceID)
	}
	started := time.Now()
	one := create("one")
	a, b := create("twice"), create("twice")

	got, err := findCreatedService(ctx, pd, "one", started, cause)
	if err != nil || deref(got.ServiceID) != one {
		t.Fatalf("one match: got %v, %v; want %s", got, err, one)
	}
	_, err = findCreatedService(ctx, pd, "twice", started, cause)
	if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !errors.Is(err, cause) {
		t.Fatalf("two matches: want an error naming %s and %s, got %v", a, b, err)
	}
	_, err = findCreatedService(ctx, pd, "never", started, cause)
	if err == nil || !strings.Contains(err.Error(), "nothing was created") {
		t.Fatalf("no match: want 'nothing was created', got %v", err)
	}
	// A service of that name from before the attempt (beyond clock skew) is not this apply's.
	_, err = findCreatedService(ctx, pd, "one", started.Add(2*ambiguousClockSkew), cause)
	if err == nil || !strings.Contains(err.Error(), "nothing was created") {
		t.Fatalf("older service: want 'nothing was created', got %v", err)
	}
}

// A service delete answered 409 while read replica sets this configuration does not manage exist
// fails at once, naming the sets and what to do; with no set (only a busy service) it is waited out.
func TestServiceDeleteBlockedByUnknownReplicaSets(t *testing.T) {
	srv := newTestEmulator(t)
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	ctx := context.Background()
	svc, err := pd.client.CreateService(ctx, api.ServiceCreate{Name: "holder"})
	if err != nil {
		t.Fatal(err)
	}
	id := deref(svc.ServiceID)
	conflict := &api.APIError{Operation: "delete service " + id, StatusCode: 409, Message: "service has read replica sets; delete them first"}
	if err := serviceDeleteBlocked(ctx, pd, id, conflict); err != nil {
		t.Fatalf("no replica set: the 409 is a busy service, to wait out; got %v", err)
	}
	if _, err := waitServiceReady(ctx, pd, id, true); err != nil {
		t.Fatal(err)
	}
	rs, err := pd.client.CreateReplicaSet(ctx, id, api.ReadReplicaSetCreate{Name: "orphan", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = serviceDeleteBlocked(ctx, pd, id, conflict)
	if err == nil || !strings.Contains(err.Error(), deref(rs.ID)) || !strings.Contains(err.Error(), "terraform import dbcloud_read_replica_set") ||
		!errors.Is(err, conflict) {
		t.Fatalf("want an error naming set %s and the import, wrapping the 409; got %v", deref(rs.ID), err)
	}
}

// Waiting for READY fails at once on statuses that cannot turn READY by waiting, names them, and
// waits out the ones that recover.
func TestServiceWaitReadyStatuses(t *testing.T) {
	srv := newTestEmulator(t)
	client := testClient(t, srv)
	pd := &providerData{client: client, backoff: testBackoff}
	ctx := context.Background()
	svc, err := client.CreateService(ctx, api.ServiceCreate{Name: "wait-statuses"})
	if err != nil {
		t.Fatal(err)
	}
	id := *svc.ServiceID
	if _, err := waitServiceReady(ctx, pd, id, true); err != nil {
		t.Fatalf("a new service must become READY: %v", err)
	}
	for _, st := range []api.ServiceStatus{api.PAUSED, api.PAUSING, api.DELETING} {
		srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &st })
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		start, gets := time.Now(), srv.Calls("getService")
		_, err := waitServiceReady(ctx, pd, id, false)
		cancel()
		if err == nil || !strings.Contains(err.Error(), string(st)) {
			t.Errorf("status %s: want an error naming it, got %v", st, err)
		}
		// "At once" is one poll, however slow a busy machine makes it; the time bound only catches a
		// wait that ran on towards the 10s deadline.
		if n := srv.Calls("getService") - gets; n != 1 {
			t.Errorf("status %s: the wait polled %d times; it must fail at once, on the first poll", st, n)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("status %s: the wait took %s; it must fail at once", st, time.Since(start))
		}
	}
	// UNSTABLE usually recovers: it is waited out. It turns READY once the wait has seen it UNSTABLE
	// twice (not after a fixed time, which a busy machine can overrun before the first poll).
	unstable := api.UNSTABLE
	srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &unstable })
	gets := srv.Calls("getService")
	go func() {
		waitUntil(30*time.Second, func() bool { return srv.Calls("getService") >= gets+2 })
		ready := api.READY
		srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = &ready })
	}()
	if _, err := waitServiceReady(ctx, pd, id, false); err != nil {
		t.Fatalf("UNSTABLE must be waited out: %v", err)
	}
	if n := srv.Calls("getService") - gets; n < 3 {
		t.Errorf("the wait polled %d times: UNSTABLE was not waited out", n)
	}
}

// Issue 11 point 5: stuck and failing states of a service.
func TestAccService_stuckAndUnstable(t *testing.T) {
	t.Run("stuck CONFIGURING past the create timeout", func(t *testing.T) {
		// CONFIGURING lasts an hour, so the service cannot turn READY before the goroutine below pins
		// it, however late a busy machine runs it (FastTiming's 60ms could pass first).
		srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceConfiguring = time.Hour })
		var stuck string
		var stuckMu sync.Mutex
		resource.ParallelTest(t, testCase(t, srv,
			resource.TestStep{
				PreConfig: func() {
					go func() { // as soon as the service exists, keep it CONFIGURING
						waitUntil(2*time.Minute, func() bool {
							svcs := srv.Services(testProjectID)
							if len(svcs) != 1 {
								return false
							}
							stuckMu.Lock()
							defer stuckMu.Unlock()
							stuck = deref(svcs[0].ServiceID)
							srv.SetServiceStatus(testProjectID, stuck, api.CONFIGURING)
							return true
						})
					}()
				},
				Config: providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "stuck"
  timeouts {
    create = "3s"
  }
}
`,
				ExpectError: words("Service created but did not become READY", "timed out after", "waiting for service", "to become READY", "last status CONFIGURING"),
			},
			resource.TestStep{
				// The id stayed in state (tainted): unstick it; the next apply replaces it.
				PreConfig: func() {
					stuckMu.Lock()
					defer stuckMu.Unlock()
					srv.SetServiceStatus(testProjectID, stuck, api.READY)
				},
				RefreshState:       true,
				ExpectNonEmptyPlan: true, // tainted: the next apply replaces it (documented)
				Check: func(s *terraform.State) error {
					stuckMu.Lock()
					defer stuckMu.Unlock()
					got, err := netTestAttr(s, "dbcloud_service.test", "id")
					if err != nil || got != stuck {
						return fmt.Errorf("id in state %q (%w), want the stuck service %s", got, err, stuck)
					}
					return nil
				},
			},
		))
	})
	t.Run("UNSTABLE that recovers while an update waits", func(t *testing.T) {
		srv := newTestEmulator(t)
		const addr = "dbcloud_service.test"
		var id string
		cfg := sizedServiceConfig(srv, "wobbly", "")
		resource.ParallelTest(t, testCase(t, srv,
			resource.TestStep{Config: cfg(1000, 4), Check: svcCaptureID(addr, &id)},
			resource.TestStep{
				PreConfig:        func() { srv.SetServiceStatusFor(testProjectID, id, api.UNSTABLE, 1500*time.Millisecond, api.READY) },
				Config:           cfg(2000, 8),
				ConfigPlanChecks: svcEmptyPlan,
				Check:            resource.ComposeAggregateTestCheckFunc(svcSameID(addr, &id), resource.TestCheckResourceAttr(addr, "status", "READY")),
			},
		))
	})
	t.Run("UNSTABLE that does not recover", func(t *testing.T) {
		srv := newTestEmulator(t)
		const addr = "dbcloud_service.test"
		var id string
		cfg := sizedServiceConfig(srv, "broken", `  timeouts {
    update = "2s"
  }
`)
		resource.ParallelTest(t, testCase(t, srv,
			resource.TestStep{Config: cfg(1000, 4), Check: svcCaptureID(addr, &id)},
			resource.TestStep{
				PreConfig:   func() { srv.SetServiceStatus(testProjectID, id, api.UNSTABLE) },
				Config:      cfg(2000, 8),
				ExpectError: words("timed out after", "waiting for service", "to become READY", "last status UNSTABLE"),
			},
			resource.TestStep{
				PreConfig: func() { srv.SetServiceStatus(testProjectID, id, api.READY) },
				Config:    cfg(1000, 4),
			},
		))
	})
	t.Run("paused behind Terraform's back while an update waits", func(t *testing.T) {
		srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceConfiguring = 2 * time.Second })
		const addr = "dbcloud_service.test"
		var id string
		cfg := sizedServiceConfig(srv, "pausedaway", "")
		resource.ParallelTest(t, testCase(t, srv,
			resource.TestStep{Config: cfg(1000, 4), Check: svcCaptureID(addr, &id)},
			resource.TestStep{
				PreConfig: func() {
					go func() { // pause it once the resize is under way (CONFIGURING lasts 2s)
						waitUntil(2*time.Minute, func() bool {
							if s, ok := srv.Service(testProjectID, id); ok && deref(s.Status) == api.CONFIGURING {
								srv.PauseService(testProjectID, id)
								return true
							}
							return false
						})
					}()
				},
				Config:      cfg(2000, 8),
				ExpectError: words("is PAUSED: it was paused outside Terraform", "Set paused = false"),
			},
			resource.TestStep{
				Config:           strings.Replace(cfg(2000, 8), `name       = "pausedaway"`, "name = \"pausedaway\"\n  paused = false", 1),
				ConfigPlanChecks: svcEmptyPlan,
				Check:            svcEmuStatus(srv, &id, api.READY),
			},
		))
	})
}

// svcConflictProxy sits in front of the emulator and answers 409 to the first `conflicts` POSTs whose
// path ends in suffix, counting them all.
type svcConflictProxy struct {
	srv       *emulatortest.Server
	mu        sync.Mutex
	suffix    string
	conflicts int
	seen      int
}

func (p *svcConflictProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if r.Method == http.MethodPost && p.suffix != "" && strings.HasSuffix(r.URL.Path, p.suffix) {
		p.seen++
		if p.conflicts > 0 {
			p.conflicts--
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"code":"CONFLICT","message":"service is UPGRADING, not READY","details":"injected by the test proxy"}`))
			return
		}
	}
	p.mu.Unlock()
	p.srv.ServeHTTP(w, r)
}

// An update of a busy service waits for READY before the call, and a 409 from the call (which did
// not apply) is waited out and the call sent again, instead of failing.
func TestAccService_busyServiceWaitsAndRetries409(t *testing.T) {
	srv := newTestEmulator(t)
	proxy := &svcConflictProxy{srv: srv}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	const addr = "dbcloud_service.test"
	var (
		id      string
		readyAt time.Time
		flipMu  sync.Mutex
	)
	service := sizedService("test", "busy", "")
	cfg := func(cpu, mem int) string { return proxyProviderBlock(ts.URL) + service(cpu, mem) }
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: cfg(1000, 4), ConfigPlanChecks: svcEmptyPlan, Check: svcCaptureID(addr, &id)},
		resource.TestStep{
			PreConfig: func() {
				proxy.mu.Lock()
				proxy.suffix, proxy.conflicts = "/resize", 2
				proxy.mu.Unlock()
				srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = ptr(api.UPGRADING) })
				time.AfterFunc(1500*time.Millisecond, func() {
					flipMu.Lock()
					defer flipMu.Unlock()
					srv.UpdateService(testProjectID, id, func(s *api.Service) { s.Status = ptr(api.READY) })
					readyAt = time.Now()
				})
			},
			Config:           cfg(2000, 8),
			ConfigPlanChecks: svcPlanChecks(plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcSameID(addr, &id),
				resource.TestCheckResourceAttr(addr, "status", "READY"),
				svcInEmulator(srv, &id, func(svc api.Service) error {
					if cpu, mem := svcEmuSize(svc); cpu != 2000 || mem != 8 {
						return fmt.Errorf("size %d/%d, want 2000/8", cpu, mem)
					}
					return nil
				}),
				func(*terraform.State) error {
					proxy.mu.Lock()
					seen := proxy.seen
					proxy.mu.Unlock()
					if seen != 3 {
						return fmt.Errorf("the provider sent %d resizes, want 3 (two answered 409, one accepted)", seen)
					}
					flipMu.Lock()
					flipped := readyAt
					flipMu.Unlock()
					for _, r := range srv.Requests() {
						if r.OperationID == "resizeService" && (flipped.IsZero() || r.Time.Before(flipped)) {
							return fmt.Errorf("resize reached the API at %s, before the service was READY again (%s)", r.Time, flipped)
						}
					}
					if n := srv.Calls("resizeService"); n != 1 {
						return fmt.Errorf("the emulator got %d resizes, want 1", n)
					}
					return nil
				},
			),
		},
	))
}

// A create that outlives its timeout fails naming the last status, and leaves the service in state
// (tainted): the next plan replaces exactly that service.
func TestAccService_createTimeout(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceConfiguring = time.Hour })
	const addr = "dbcloud_service.test"
	var stuckID string
	cfg := providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name = "slow"
  timeouts {
    create = "2s"
  }
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`timed\s+out\s+after\s+[\d.]+m?s\s+waiting\s+for\s+service\s+\w+\s+to\s+become\s+READY:\s+last\s+status\s+(QUEUED|CONFIGURING)\s+\(seen\s+for`),
		},
		resource.TestStep{
			PreConfig: func() {
				svcs := srv.Services(testProjectID)
				if len(svcs) != 1 {
					t.Fatalf("want exactly one service after the timed-out create, got %d", len(svcs))
				}
				stuckID = deref(svcs[0].ServiceID)
				srv.SetTiming(emulator.FastTiming())
			},
			Config: cfg,
			ConfigPlanChecks: svcPlanChecks(
				// Tainted: the stuck service is in state and gets replaced, not forgotten.
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				svcExpectPriorID{addr: addr, id: &stuckID},
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				svcNewID(addr, &stuckID),
				func(*terraform.State) error {
					// The stuck one may still show DELETED for a while: it is deleted.
					if n := len(liveServices(srv)); n != 1 {
						return fmt.Errorf("%d services exist (not DELETED), want 1 (the stuck one deleted)", n)
					}
					return nil
				}),
		},
	))
}

// Updates whose answers are lost are resolved by looking: a change the service shows applied is not
// sent again (resize answered 500 after it was carried out; attach whose connection dropped after it
// was carried out); a change that did not happen is sent again once the service is READY (environment
// answered 500, pooler answered 503, both without doing anything). The apply succeeds either way.
func TestAccFlakyAPI_lostUpdateAnswers(t *testing.T) {
	srv := newTestEmulator(t)
	config := func(cpu, mem int, env string, pooler bool, withVPC bool) string {
		vpc := ""
		if withVPC {
			vpc = "vpc_id = dbcloud_vpc.net.id"
		}
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = "flaky-update-net"
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name                      = "flaky-update"
  region_code               = "us-east-1"
  cpu_millis                = %d
  memory_gbs                = %d
  environment               = %q
  connection_pooler_enabled = %t
  %s
}
`, cpu, mem, env, pooler, vpc)
	}
	var id string
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: config(1000, 4, "DEV", false, false),
			Check:  netTestCapture("dbcloud_service.db", "id", &id),
		},
		resource.TestStep{
			PreConfig: func() {
				srv.ResetRequests()
				srv.InjectFault("resizeService", emulator.FaultCommitThenFail, 1)
				srv.InjectFault("attachServiceToVPC", emulator.FaultCommitThenDrop, 1)
				srv.InjectFault("setEnvironment", emulator.FaultServerError, 1)
				srv.InjectFault("enablePooler", emulator.FaultUnavailable, 1)
			},
			Config: config(2000, 8, "PROD", true, true),
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction("dbcloud_service.db", plancheck.ResourceActionUpdate),
			),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPtr("dbcloud_service.db", "id", &id),
				resource.TestCheckResourceAttr("dbcloud_service.db", "cpu_millis", "2000"),
				resource.TestCheckResourceAttr("dbcloud_service.db", "environment", "PROD"),
				resource.TestCheckResourceAttr("dbcloud_service.db", "connection_pooler_enabled", "true"),
				resource.TestCheckResourceAttrPair("dbcloud_service.db", "vpc_id", "dbcloud_vpc.net", "id"),
				func(*terraform.State) error {
					for op, want := range map[string]int{
						"resizeService": 1, "attachServiceToVPC": 1, // carried out: looked, not sent again
						"setEnvironment": 2, "enablePooler": 2, // not carried out: sent again
					} {
						if got := srv.Calls(op); got != want {
							return fmt.Errorf("%s sent %d times, want %d", op, got, want)
						}
					}
					svc, _ := srv.Service(testProjectID, id)
					f := flattenService(&svc)
					if f.CPUMillis.ValueInt64() != 2000 || f.Environment.ValueString() != "PROD" || !f.ConnectionPoolerEnabled.ValueBool() || f.VpcID.IsNull() {
						return fmt.Errorf("emulator state not as configured: %+v", f)
					}
					return nil
				},
			),
		},
	))
}

// BenchmarkWaitServiceReady measures how long the provider takes to see a new service READY when the
// API needs 120ms (FastTiming: QUEUED then CONFIGURING). "A fast API means a fast apply": the
// reported overshoot-ms is the time spent waiting beyond the API's own transition time, and
// polls/op is how many GETs it cost, with the production backoff and with the test backoff.
func BenchmarkWaitServiceReady(b *testing.B) {
	for _, bc := range []struct {
		name    string
		backoff wait.Backoff
	}{{"default-backoff", wait.DefaultBackoff}, {"test-backoff", testBackoff}} {
		b.Run(bc.name, func(b *testing.B) {
			timing := emulator.FastTiming()
			srv := emulator.NewServer(emulator.Options{AccessKey: testAccessKey, SecretKey: testSecretKey, Timing: timing})
			defer srv.Close()
			client, err := api.New(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID})
			if err != nil {
				b.Fatal(err)
			}
			pd := &providerData{client: client, backoff: bc.backoff}
			ctx := context.Background()
			apiTime := timing.ServiceQueued + timing.ServiceConfiguring
			var overshoot time.Duration
			srv.ResetRequests()
			for i := 0; b.Loop(); i++ {
				svc, err := client.CreateService(ctx, api.ServiceCreate{Name: fmt.Sprintf("bench-%d", i)})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if _, err := waitServiceReady(ctx, pd, *svc.ServiceID, true); err != nil {
					b.Fatal(err)
				}
				overshoot += time.Since(start) - apiTime
			}
			b.ReportMetric(float64(overshoot.Milliseconds())/float64(b.N), "overshoot-ms/op")
			b.ReportMetric(float64(srv.Calls("getService"))/float64(b.N), "polls/op")
		})
	}
}
