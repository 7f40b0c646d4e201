package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/clitest"
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
	var buf clitest.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
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
	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(buf.String()))
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

// A create whose connection is dropped during an outage of dropped connections is not an answer: the
// log does not say that the API answers again until a request is answered.
func TestDroppedPOSTIsNotAnAnswer(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			dropConnection(t, w)
			return
		}
		writeJSON(w, 200, `{"service_id":"svc1"}`)
	}, func(cfg *Config) {
		cfg.Retry.MaxElapsed = time.Minute
		cfg.Retry.WaitMax = 50 * time.Millisecond
	})
	var buf clitest.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	recoveries := func() int {
		return strings.Count(buf.String(), "dbcloud API answers again")
	}
	read := make(chan error, 1)
	go func() {
		_, err := c.GetService(ctx, "svc1")
		read <- err
	}()
	// The read meets the outage first, then the create is dropped (not sent again: it may have been
	// carried out).
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(buf.String(), "dbcloud API unavailable since") {
		if time.Now().After(deadline) {
			t.Fatalf("no outage notice:\n%s", buf.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := c.CreateService(ctx, ServiceCreate{Name: "db"}); err == nil {
		t.Fatal("the dropped create succeeded")
	}
	if n := recoveries(); n != 0 {
		t.Errorf("a dropped create was logged as the API answering again (%d):\n%s", n, buf.String())
	}
	down.Store(false)
	if err := <-read; err != nil {
		t.Fatalf("GetService through the outage: %v", err)
	}
	if n := recoveries(); n != 1 {
		t.Errorf("%d notices that the API answers again once it does, want 1:\n%s", n, buf.String())
	}
}
