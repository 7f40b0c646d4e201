package api

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// Ten requests meet one outage of about 1.5 s: the log says once that the API is unavailable (since
// when, until when it retries), then at most every ProgressEvery that it still is, and once that it
// answers again; not one line per request and attempt.
func TestOutageIsLoggedOnceInAWhile(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			writeJSON(w, 503, errorBody("UNAVAILABLE", "down"))
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) {
		cfg.Retry.MaxElapsed = time.Minute
		cfg.Retry.ProgressEvery = 500 * time.Millisecond
		cfg.Retry.WaitMax = 50 * time.Millisecond
	})
	var buf bytes.Buffer
	var mu sync.Mutex
	ctx := tflogtest.RootLogger(context.Background(), &lockedWriter{w: &buf, mu: &mu})
	time.AfterFunc(1500*time.Millisecond, func() { down.Store(false) })
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.GetService(ctx, "svc1"); err != nil {
				t.Errorf("GetService through the outage: %v", err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(buf.String()))
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	var first, still, again int
	for _, e := range entries {
		msg, _ := e["@message"].(string)
		switch {
		case strings.HasPrefix(msg, "dbcloud API unavailable since "):
			first++
			if !strings.Contains(msg, "HTTP 503") || !strings.Contains(msg, "retrying until") || e["@level"] != "warn" {
				t.Errorf("first notice: %v", e)
			}
		case strings.HasPrefix(msg, "dbcloud API still unavailable"):
			still++
		case strings.HasPrefix(msg, "dbcloud API answers again"):
			again++
		}
	}
	// 1.5 s at most every 0.5 s: 2 or 3 reminders (a slow machine may stretch the outage a little).
	if first != 1 || still < 1 || still > 4 || again != 1 {
		t.Errorf("notices: %d first, %d reminders, %d recoveries; want 1, 1 to 4, 1:\n%s", first, still, again, buf.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
