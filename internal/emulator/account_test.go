package emulator

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// logFakeDB is a backend whose databases keep their own log (LogBackend), as pgbackend's
// PostgreSQL instances do.
type logFakeDB struct {
	fakeDB
	logMu sync.Mutex
	lines map[string][]logEntry // by service id; a service without lines has no log of its own
}

func (f *logFakeDB) add(id string, at time.Time, severity, message string) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	if f.lines == nil {
		f.lines = map[string][]logEntry{}
	}
	f.lines[id] = append(f.lines[id], logEntry{at: at, severity: severity, node: "0", message: message})
}

func (f *logFakeDB) ServiceLog(id string, each func(time.Time, string, string, string)) bool {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	lines, ok := f.lines[id]
	for _, l := range lines {
		each(l.at, l.severity, l.node, l.message)
	}
	return ok
}

var _ LogBackend = (*logFakeDB)(nil)

// readLogs pages through a service's log with params (each answer checked against openapi.yaml by
// the client's transport) and answers every entry and the number of pages.
func (e *env) readLogs(id string, params api.GetServiceLogsParams) (all []api.LogEntry, pages int) {
	e.t.Helper()
	for {
		pages++
		if pages > 50 {
			e.t.Fatal("more than 50 pages")
		}
		r, err := e.c.GetServiceLogsWithResponse(e.ctx, testProject, id, &params)
		if err != nil || r.JSON200 == nil || r.JSON200.Entries == nil {
			e.t.Fatalf("logs: %v %s", err, r.Body)
		}
		all = append(all, *r.JSON200.Entries...)
		if r.JSON200.LastCursor == nil {
			return all, pages
		}
		params.Cursor = r.JSON200.LastCursor
	}
}

func messages(entries []api.LogEntry) []string {
	out := make([]string, 0, len(entries))
	for _, l := range entries {
		out = append(out, str(l.Severity)+" "+str(l.Message))
	}
	return out
}

// With a backend that keeps the database's log, a service's log is that log (no synthetic start-up
// lines) with the lines added by ServiceLogLine, in time order; filters and cursors apply to it as
// to the emulator's own lines. A service whose backend has no log of it shows the emulator's lines.
func TestServiceLogsFromTheBackend(t *testing.T) {
	t.Parallel()
	db := &logFakeDB{}
	db.setReady(true)
	clk := newFakeClock()
	e := newEnv(t, Options{Timing: FastTiming(), Now: clk.Now, Database: db})
	e.clk = clk
	id := *e.readyService(api.ServiceCreate{Name: "with-log"}).ServiceID
	other := *e.readyService(api.ServiceCreate{Name: "without-log"}).ServiceID
	start := clk.Now()
	for i := range 14 {
		db.add(id, start.Add(time.Duration(2*i)*time.Second), "LOG", fmt.Sprintf("database line %d", i))
	}
	clk.Advance(5 * time.Second) // between the database's lines 2 and 3
	if !e.srv.ServiceLogLine(testProject, id, "ERROR", "added by a test") {
		t.Fatal("ServiceLogLine returned false")
	}
	db.add(id, start.Add(time.Minute), "ERROR", "division by zero")

	all, pages := e.readLogs(id, api.GetServiceLogsParams{})
	got := messages(all)
	if len(got) != 16 || pages != 2 || got[3] != "ERROR added by a test" || got[2] != "LOG database line 2" || got[15] != "ERROR division by zero" {
		t.Errorf("log of %d entries in %d pages: %q", len(got), pages, got)
	}
	sev := []string{"error"}
	errs, _ := e.readLogs(id, api.GetServiceLogsParams{Severities: &sev})
	if got := messages(errs); len(got) != 2 || got[1] != "ERROR division by zero" {
		t.Errorf("ERROR entries: %q", got)
	}
	since, until := start.Add(4*time.Second), start.Add(8*time.Second)
	window, _ := e.readLogs(id, api.GetServiceLogsParams{Since: &since, Until: &until, Search: strp("LINE")})
	if got := messages(window); len(got) != 2 || got[0] != "LOG database line 2" || got[1] != "LOG database line 3" {
		t.Errorf("since %s until %s, search LINE: %q", since, until, got)
	}

	synthetic, _ := e.readLogs(other, api.GetServiceLogsParams{})
	if len(synthetic) != 12 || str(synthetic[0].Message) != "starting PostgreSQL 17.2 on x86_64-pc-linux-gnu" {
		t.Errorf("a service without a log of the backend: %q", messages(synthetic))
	}
}
