package pgbackend

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// createAndLogin creates a service through the API and answers the time from the create call to
// READY and to the first TLS login as tsdbadmin (polled, each a condition waited for).
func (e *apiEnv) createAndLogin(name string) (id string, toReady, toLogin time.Duration) {
	e.t.Helper()
	began := time.Now()
	var created api.Service
	e.call(http.MethodPost, "", api.ServiceCreate{Name: name}, &created)
	id = deref(created.ServiceID)
	ep, pw := created.Endpoint, deref(created.InitialPassword)
	var wg sync.WaitGroup
	toLogin = -1
	wg.Go(func() { // not the test's goroutine: no Fatal here
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if loginErr(e.t, ep, pw) == nil {
				toLogin = time.Since(began)
				return
			}
		}
	})
	e.waitStatus(id, api.READY)
	toReady = time.Since(began)
	wg.Wait()
	if toLogin < 0 {
		e.t.Fatalf("service %s: no login after two minutes", id)
	}
	return id, toReady, toLogin
}

// memoryOf sums the memory of the services' instances (MiB): RSS (shared pages counted in every
// process) and PSS (shared pages divided among the processes that map them).
func memoryOf(t testing.TB, m *Manager, ids []string) (rssMiB, pssMiB float64) {
	t.Helper()
	for _, id := range ids {
		rss, pss, err := m.Memory(id)
		if err != nil {
			t.Fatal(err)
		}
		rssMiB += float64(rss) / (1 << 20)
		pssMiB += float64(pss) / (1 << 20)
	}
	return rssMiB, pssMiB
}

// BenchmarkCreateToReady measures, per service created through the emulator's API (fast timing),
// the time from the create call to READY (ns/op) and to the first TLS login (ms-to-login), and the
// resident memory of an idle instance (MiB-RSS and MiB-PSS per service, measured once all b.N
// services are up and idle).
//
//	go test ./internal/emulator/pgbackend -run '^$' -bench CreateToReady -benchtime 10x
func BenchmarkCreateToReady(b *testing.B) {
	m := manager(b)
	e := newAPIEnvWith(b, m)
	var ids []string
	var login time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, _, toLogin := e.createAndLogin("bench")
		ids = append(ids, id)
		login += toLogin
	}
	b.StopTimer()
	b.ReportMetric(float64(login.Milliseconds())/float64(b.N), "ms-to-login")
	rss, pss := memoryOf(b, m, ids)
	b.ReportMetric(rss/float64(len(ids)), "MiB-RSS/service")
	b.ReportMetric(pss/float64(len(ids)), "MiB-PSS/service")
	for _, id := range ids {
		e.delete(id)
	}
}

// TestTwentyServicesAtOnce creates 20 services at once through the API and waits until each is
// READY and accepts its password over TLS; it logs how long that took and their idle memory.
func TestTwentyServicesAtOnce(t *testing.T) {
	m := manager(t)
	e := newAPIEnv(t)
	const n = 20
	began := time.Now()
	ids := make([]string, n)
	pws := make([]string, n)
	eps := make([]*api.Endpoint, n)
	for i := range n {
		var created api.Service
		e.call(http.MethodPost, "", api.ServiceCreate{Name: "many"}, &created)
		ids[i], pws[i], eps[i] = deref(created.ServiceID), deref(created.InitialPassword), created.Endpoint
	}
	for _, id := range ids {
		e.waitStatus(id, api.READY)
	}
	allReady := time.Since(began)
	for i := range n {
		c := login(t, eps[i], pws[i])
		mustExec(t, c, "CREATE TABLE t (i int)")
		_ = c.Close(t.Context())
	}
	rss, pss := memoryOf(t, m, ids)
	t.Logf("%d services READY %v after the first create call; idle memory: %.1f MiB RSS (%.1f per service), %.1f MiB PSS (%.1f per service)",
		n, allReady.Round(time.Millisecond), rss, rss/n, pss, pss/n)
	for _, id := range ids {
		e.call(http.MethodDelete, "/"+id, nil, nil)
	}
	for _, id := range ids {
		e.waitFor(id, "gone", func(_ *api.Service, code int) bool { return code == http.StatusNotFound })
	}
}
