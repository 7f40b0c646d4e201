package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/pagetest"
)

// ---- unit tests: paging, the bound, the plain lines ----

// fakeLogPages serves entries in pages of size, with cursors "p1", "p2", ...; failAt, when set,
// answers that page with the error.
func fakeLogPages(entries []api.LogEntry, size int, failAt int, fail error) (logPage, *int) {
	calls := 0
	return func(_ context.Context, p *api.GetServiceLogsParams) (*api.ServiceLogs, error) {
		calls++
		page := 0
		if p.Cursor != nil {
			_, _ = fmt.Sscanf(*p.Cursor, "p%d", &page)
		}
		if failAt > 0 && page == failAt {
			return nil, fail
		}
		end := min((page+1)*size, len(entries))
		out := entries[page*size : end]
		ans := &api.ServiceLogs{Logs: []string{}, Entries: &out}
		if end < len(entries) {
			ans.LastCursor = ptr(fmt.Sprintf("p%d", page+1))
		}
		return ans, nil
	}, &calls
}

func numberedEntries(n int) []api.LogEntry {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	out := make([]api.LogEntry, n)
	for i := range out {
		sev := "LOG"
		if i%4 == 0 {
			sev = "ERROR"
		}
		out[i] = api.LogEntry{Timestamp: ptr(t0.Add(time.Duration(i) * time.Second)), Severity: ptr(sev), Message: ptr(fmt.Sprintf("line %d", i))}
	}
	return out
}

// Every page is read; the newest max entries are kept, whatever page the bound falls in; the counts
// cover every entry that matched.
func TestReadLogsKeepsTheNewest(t *testing.T) {
	for _, c := range []struct{ n, max, first int }{{35, 13, 22}, {35, 35, 0}, {35, 200, 0}, {35, 1, 34}, {35, 20, 15}, {0, 5, 0}, {9, 3, 6}} {
		page, calls := fakeLogPages(numberedEntries(c.n), 10, 0, nil)
		got, err := readLogs(t.Context(), page, api.GetServiceLogsParams{}, c.max)
		if err != nil {
			t.Fatal(err)
		}
		wantKept := min(c.n, c.max)
		if len(got.kept) != wantKept || got.truncated != (c.n > c.max) || got.matched != c.n || *calls != max(1, (c.n+9)/10) {
			t.Errorf("%d entries, max %d: kept %d, truncated %v, matched %d, %d pages", c.n, c.max, len(got.kept), got.truncated, got.matched, *calls)
			continue
		}
		for i, l := range got.kept {
			if want := fmt.Sprintf("line %d", c.first+i); *l.message != want {
				t.Errorf("%d entries, max %d: entry %d is %q, want %q", c.n, c.max, i, *l.message, want)
			}
		}
		if wantErrors := int64((c.n + 3) / 4); got.counts["ERROR"] != wantErrors {
			t.Errorf("%d entries, max %d: %d errors counted, want %d", c.n, c.max, got.counts["ERROR"], wantErrors)
		}
	}
}

// A page that fails ends the read with its error and the number of pages read; a cursor answered
// twice ends it too, instead of reading forever.
func TestReadLogsStops(t *testing.T) {
	gone := errors.New("gone")
	page, _ := fakeLogPages(numberedEntries(35), 10, 2, gone)
	got, err := readLogs(t.Context(), page, api.GetServiceLogsParams{}, 200)
	if !errors.Is(err, gone) || got.pages != 2 {
		t.Errorf("failing third page: %v after %d pages", err, got.pages)
	}
	loop := func(context.Context, *api.GetServiceLogsParams) (*api.ServiceLogs, error) {
		return &api.ServiceLogs{Logs: []string{}, Entries: &[]api.LogEntry{}, LastCursor: ptr("again")}, nil
	}
	if _, err := readLogs(t.Context(), loop, api.GetServiceLogsParams{}, 200); err == nil || !strings.Contains(err.Error(), `cursor "again" twice`) {
		t.Errorf("a cursor answered twice: %v", err)
	}
}

// An answer with only the deprecated plain lines is read as far as it can be.
func TestParsePlainLogLine(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, c := range []struct {
		line                    string
		at                      *time.Time
		severity, node, message string
	}{
		{"2025-01-02T03:04:05.0000006Z [0] ERROR: division by zero", &at, "ERROR", "0", "division by zero"},
		{"2025-01-02T03:04:05.0000006+00:00 WARNING: no node\nDETAIL: two lines", &at, "WARNING", "", "no node\nDETAIL: two lines"},
		{"2025-01-02T03:04:05.0000006Z [replica-1] DEBUG1: x", &at, "DEBUG1", "replica-1", "x"},
		{"yesterday [0] ERROR: not a time", nil, "", "", "yesterday [0] ERROR: not a time"},
		{"just words", nil, "", "", "just words"},
	} {
		l := parsePlainLogLine(c.line)
		if deref(l.message) != c.message || deref(l.severity) != c.severity || deref(l.node) != c.node ||
			(l.at == nil) != (c.at == nil) || (l.at != nil && !l.at.Equal(*c.at)) {
			t.Errorf("%q: at %v, severity %q, node %q, message %q", c.line, l.at, deref(l.severity), deref(l.node), deref(l.message))
		}
	}
}

func TestLogTime(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2025-01-31T12:00:00Z":      time.Date(2025, 1, 31, 12, 0, 0, 0, time.UTC),
		"2025-01-31T14:00:00+02:00": time.Date(2025, 1, 31, 12, 0, 0, 0, time.UTC),
		"15m":                       now.Add(-15 * time.Minute),
		"1h30m":                     now.Add(-90 * time.Minute),
	} {
		if got, err := logTime(in, now); err != nil || !got.Equal(want) {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-5m", "0s", "2025-01-31", "7d"} {
		if _, err := logTime(bad, now); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// ---- acceptance tests against the emulator (its synthetic log) ----

// logsService makes a READY service whose log has n entries (the 12 synthetic lines of its start-up,
// then lines added with every fifth an ERROR and one "disk almost full" WARNING) and answers its id
// and its log as the API pages it.
func logsService(t *testing.T, srv *emulatortest.Server, n int) (string, []api.LogEntry) {
	t.Helper()
	id := netTestService(t, srv, "logged")
	for i := 12; i < n; i++ {
		sev, msg := "LOG", fmt.Sprintf("added line %d", i)
		switch {
		case i == 14:
			sev, msg = "WARNING", "disk almost full"
		case i%5 == 0:
			sev = "ERROR"
		}
		if !srv.ServiceLogLine(testProjectID, id, sev, msg) {
			t.Fatal("ServiceLogLine: no such service")
		}
	}
	return id, apiLog(t, srv, id, api.GetServiceLogsParams{})
}

// apiLog reads a service's whole log through the API.
func apiLog(t *testing.T, srv *emulatortest.Server, id string, params api.GetServiceLogsParams) []api.LogEntry {
	t.Helper()
	var all []api.LogEntry
	for {
		p, err := testClient(t, srv).GetServiceLogs(t.Context(), id, &params)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, deref(p.Entries)...)
		if p.LastCursor == nil {
			return all
		}
		params.Cursor = p.LastCursor
	}
}

func severityCount(entries []api.LogEntry, sev string) int {
	n := 0
	for _, e := range entries {
		if deref(e.Severity) == sev {
			n++
		}
	}
	return n
}

// checkLogEntries checks that the data source at addr holds exactly want, oldest first, each entry on
// node (empty: null).
func checkLogEntries(addr string, want []api.LogEntry, node string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := testAccAttrs(s, addr)
		if err != nil {
			return err
		}
		if a["entries.#"] != fmt.Sprint(len(want)) {
			return fmt.Errorf("%s: %s entries, want %d", addr, a["entries.#"], len(want))
		}
		for i, w := range want {
			p := fmt.Sprintf("entries.%d.", i)
			got := [4]string{a[p+"timestamp"], a[p+"severity"], a[p+"message"], a[p+"node"]}
			exp := [4]string{w.Timestamp.UTC().Format(time.RFC3339Nano), deref(w.Severity), deref(w.Message), node}
			if got != exp {
				return fmt.Errorf("%s: entry %d is %q, want %q", addr, i, got, exp)
			}
		}
		return nil
	}
}

func logsConfig(srv *emulatortest.Server, blocks ...string) string {
	return providerBlock(srv) + strings.Join(blocks, "\n")
}

func logsBlock(name, id, args string) string {
	return fmt.Sprintf("data \"dbcloud_service_logs\" %q {\n  service_id = %q\n%s\n}\n", name, id, args)
}

// A log of four pages (10 entries each) is read to its end; a bound in the middle of the third page
// keeps the newest entries and says truncated, and the counts cover every entry.
func TestAccServiceLogs_pagingWithABound(t *testing.T) {
	srv := newTestEmulator(t)
	id, all := logsService(t, srv, 35)
	errs := severityCount(all, "ERROR")
	resource.Test(t, testCase(t, srv, resource.TestStep{
		Config: logsConfig(srv, logsBlock("newest", id, "  max_entries = 13"), logsBlock("all", id, "")),
		Check: resource.ComposeAggregateTestCheckFunc(
			checkLogEntries("data.dbcloud_service_logs.newest", all[22:], ""),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "truncated", "true"),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "error_count", fmt.Sprint(errs)),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "severity_counts.ERROR", fmt.Sprint(errs)),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "severity_counts.LOG", fmt.Sprint(severityCount(all, "LOG"))),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "warning_count", "2"),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.newest", "fatal_count", "0"),
			checkLogEntries("data.dbcloud_service_logs.all", all, ""),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.all", "truncated", "false"),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.all", "max_entries", fmt.Sprint(defaultLogEntries)),
			func(*terraform.State) error {
				if n := len(all); n != 35 || errs < 5 {
					return fmt.Errorf("the service's log has %d entries and %d errors, want 35 and at least 5", n, errs)
				}
				return nil
			},
		),
	}))
}

// Each filter is the API's: since and until (RFC 3339 and durations back from now), search,
// severities and node; with node set, every entry is of that node.
func TestAccServiceLogs_filters(t *testing.T) {
	srv := newTestEmulator(t)
	id, all := logsService(t, srv, 25)
	since, until := all[13].Timestamp.UTC().Format(time.RFC3339Nano), all[17].Timestamp.UTC().Format(time.RFC3339Nano)
	var errorsAndWarnings []api.LogEntry
	for _, e := range all {
		if s := deref(e.Severity); s == "ERROR" || s == "WARNING" {
			errorsAndWarnings = append(errorsAndWarnings, e)
		}
	}
	blocks := []string{
		logsBlock("window", id, fmt.Sprintf("  since = %q\n  until = %q", since, until)),
		logsBlock("last_hour", id, `  since = "1h"`),
		logsBlock("before_an_hour_ago", id, `  until = "1h"`),
		logsBlock("search", id, `  search = "DISK"`),
		logsBlock("severities", id, `  severities = ["WARNING", "ERROR"]`),
		logsBlock("node_0", id, `  node = "0"`),
		logsBlock("node_1", id, `  node = "1"`),
	}
	ds := func(name string) string { return "data.dbcloud_service_logs." + name }
	resource.Test(t, testCase(t, srv, resource.TestStep{
		Config: logsConfig(srv, blocks...),
		Check: resource.ComposeAggregateTestCheckFunc(
			checkLogEntries(ds("window"), all[13:17], ""),
			checkLogEntries(ds("last_hour"), all, ""),
			checkLogEntries(ds("before_an_hour_ago"), nil, ""),
			checkLogEntries(ds("search"), all[14:15], ""),
			checkLogEntries(ds("severities"), errorsAndWarnings, ""),
			checkLogEntries(ds("node_0"), all, "0"),
			checkLogEntries(ds("node_1"), nil, ""),
			resource.TestCheckResourceAttr(ds("search"), "entries.0.message", "disk almost full"),
		),
	}))
}

// Bad filters fail at plan, naming the attribute, before any call to the API.
func TestAccServiceLogs_badFiltersFailAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	const id = "rp1pz7uyae"
	var steps []resource.TestStep
	for _, c := range []struct {
		args string
		want *regexp.Regexp
	}{
		{`  severities = ["ERROR", "OOPS"]`, words(`Attribute severities[Value("OOPS")] value must be one of:`, `"ERROR"`)},
		{`  since = "yesterday"`, words("Invalid time", `Attribute since: "yesterday" is neither an RFC 3339 timestamp`)},
		{`  until = "2025-13-01T00:00:00Z"`, words("Invalid time", `Attribute until: "2025-13-01T00:00:00Z" is neither`)},
		{"  since = \"15m\"\n  until = \"1h\"", words("until is not after since", "until (1h,", "is not after since (15m,")},
		{"  since = \"2025-02-01T00:00:00Z\"\n  until = \"2025-01-01T00:00:00Z\"", words("until is not after since", "no entry can match")},
		{`  max_entries = 0`, words("Attribute max_entries value must be between 1 and 10000")},
		{`  severities = []`, words("Attribute severities set must contain at least 1 elements")},
	} {
		steps = append(steps, resource.TestStep{Config: logsConfig(srv, logsBlock("bad", id, c.args)), PlanOnly: true, ExpectError: c.want})
	}
	resource.Test(t, testCase(t, srv, steps...))
	for _, r := range srv.Requests() {
		if r.OperationID == "getServiceLogs" {
			t.Errorf("a plan that failed at validation read the log: %s %s", r.Method, r.Path)
		}
	}
}

// A service that does not exist fails, naming its id.
func TestAccServiceLogs_missingService(t *testing.T) {
	srv := newTestEmulator(t)
	resource.Test(t, testCase(t, srv, resource.TestStep{
		Config:      logsConfig(srv, logsBlock("gone", "nosuchsvc0", "")),
		ExpectError: words("Service not found", "Project "+testProjectID+` has no service with id "nosuchsvc0"`),
	}))
}

// logsInterceptor calls act on the nth request for a page of logs (1-based).
func logsInterceptor(srv *emulatortest.Server, nth int32, act func()) {
	var n atomic.Int32
	srv.SetInterceptor(func(r emulatortest.RequestInfo) emulatortest.Decision {
		if r.OperationID == "getServiceLogs" && n.Add(1) == nth {
			act()
		}
		return emulatortest.Decision{}
	})
}

// A service deleted between two pages fails the read, naming the service and saying what happened.
func TestAccServiceLogs_serviceDeletedBetweenPages(t *testing.T) {
	srv := newTestEmulator(t)
	id, _ := logsService(t, srv, 35)
	logsInterceptor(srv, 3, func() { srv.RemoveService(testProjectID, id) })
	resource.Test(t, testCase(t, srv, resource.TestStep{
		Config:      logsConfig(srv, logsBlock("logs", id, "")),
		ExpectError: words("Service not found", "Service "+id+" was deleted while its log was read (2 page(s) were read)"),
	}))
}

// An outage that starts while the log is paged is ridden out (both kinds), and the log read whole.
func TestAccServiceLogs_outageDuringPaging(t *testing.T) {
	testAccPreCheck(t)
	forEachOutageKind(t, func(t *testing.T, kind emulator.OutageKind) {
		srv := newTestEmulator(t)
		id, all := logsService(t, srv, 35)
		logsInterceptor(srv, 2, func() { srv.SetOutage(emulator.Outage{Kind: kind, Duration: outageWindow(40 * time.Second)}) })
		resource.Test(t, outageCase(t, srv, resource.TestStep{
			Config: logsConfig(srv, logsBlock("logs", id, "")),
			Check: resource.ComposeAggregateTestCheckFunc(
				checkLogEntries("data.dbcloud_service_logs.logs", all, ""),
				func(*terraform.State) error {
					if o := srv.LastOutage(); o.Refused == 0 {
						return fmt.Errorf("the outage met no request: %+v", o)
					}
					return nil
				},
			),
		}))
	})
}

// stripEntries answers the logs of the emulator without entries, as an older server does (the
// deprecated plain lines only).
type stripEntries struct{ srv http.Handler }

func (p stripEntries) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/logs") {
		p.srv.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	p.srv.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	var page map[string]any
	if rec.Code == http.StatusOK && json.Unmarshal(body, &page) == nil {
		delete(page, "entries")
		body, _ = json.Marshal(page)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// An answer with only the deprecated plain lines (an older server) gives the same entries, their
// node read from the lines.
func TestAccServiceLogs_deprecatedOnlyAnswer(t *testing.T) {
	srv := newTestEmulator(t)
	id, all := logsService(t, srv, 25)
	ts := httptest.NewServer(stripEntries{srv: srv})
	t.Cleanup(ts.Close)
	resource.Test(t, testCase(t, srv, resource.TestStep{
		Config: proxyProviderBlock(ts.URL) + logsBlock("old", id, "  max_entries = 12"),
		Check: resource.ComposeAggregateTestCheckFunc(
			checkLogEntries("data.dbcloud_service_logs.old", all[13:], "0"),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.old", "truncated", "true"),
			resource.TestCheckResourceAttr("data.dbcloud_service_logs.old", "error_count", fmt.Sprint(severityCount(all, "ERROR"))),
		),
	}))
}

// ---- the page's examples, with PostgreSQL behind the service ----

// serviceLogsExamples is the configuration of the data source page's two examples, as written: the
// check block and the output for a pipeline, the terraform blocks the page runner writes.
func serviceLogsExamples(t *testing.T) string {
	t.Helper()
	page, err := pagetest.ParseFile("../../docs/data-sources/service_logs.md")
	if err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	for _, b := range page.Blocks {
		if k, _, _ := pagetest.Classify(b); k == pagetest.KindFile && b.Lang == "terraform" {
			cfg.WriteString(b.Text)
		}
	}
	if !strings.Contains(cfg.String(), `check "orders_logs_clean"`) || !strings.Contains(cfg.String(), `output "orders_recent_errors"`) {
		t.Fatalf("the page's examples lack the check or the output:\n%s", cfg.String())
	}
	return cfg.String()
}

// newestLogs is a bound smaller than the log, beside the page's examples.
const newestLogs = `
data "dbcloud_service_logs" "newest" {
  service_id  = dbcloud_service.orders.id
  max_entries = 3
}

output "newest" {
  value = data.dbcloud_service_logs.newest
}
`

// The page's examples run as written against a service with PostgreSQL behind it: the apply and the
// plan after it are quiet; SQL that fails on the service's PostgreSQL (a division by zero) shows up
// in its log as an ERROR with its message, the check warns in the next plan, and the pipeline's output
// lists it once the log is read again; a max_entries smaller than the log is truncated to its newest
// entries. On each CLI of the matrix (OpenTofu shows a failed check with a diff of its values).
func TestAccServiceLogs_pageCheckWarnsAfterAnSQLError(t *testing.T) {
	srv, _ := newPostgresEmulator(t)
	w := newTFWorkdirOnAccCLI(t, srv, serviceLogsExamples(t)+newestLogs)
	const warned = "Check block assertion failed"
	if out := w.runWant(0, "apply", "-auto-approve", "-input=false"); strings.Contains(out, warned) {
		t.Fatalf("the apply of a healthy service warned:\n%s", tail(out, 40))
	}
	if out := w.runWant(0, "plan", "-input=false"); strings.Contains(out, warned) {
		t.Fatalf("the plan after the apply warned:\n%s", tail(out, 40))
	}
	id, conn := loginToStateService(t, w, "orders")
	if _, err := conn.Exec(t.Context(), "SELECT 1/0"); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("SELECT 1/0 on the service: %v", err)
	}
	failed := time.Now()
	errs := api.GetServiceLogsParams{Severities: &[]string{"ERROR"}, Search: ptr("division by zero")}
	if !waitUntil(time.Minute, func() bool { return len(apiLog(t, srv, id, errs)) == 1 }) {
		t.Fatalf("no ERROR entry with the division by zero in the log of service %s after a minute", id)
	}
	t.Logf("the ERROR entry was in the service's log %v after the statement failed", time.Since(failed).Round(time.Millisecond))
	out := w.runWant(0, "plan", "-input=false")
	if !words(warned, "Service orders logged 1 ERROR and 0 FATAL entries since", "the newest: division by zero").MatchString(out) {
		t.Errorf("the plan after the error did not warn with the page's message:\n%s", tail(out, 40))
	}
	w.runWant(0, "apply", "-refresh-only", "-auto-approve", "-input=false")
	var recent []string
	if err := json.Unmarshal([]byte(w.must("output", "-json", "orders_recent_errors")), &recent); err != nil ||
		len(recent) != 1 || !strings.HasSuffix(recent[0], " ERROR: division by zero") {
		t.Errorf("orders_recent_errors = %q (%v), want the division by zero", recent, err)
	}
	checkNewestLogs(t, srv, id, w.must("output", "-json", "newest"))
	w.runWant(0, "destroy", "-auto-approve", "-input=false")
}

// loginToStateService logs in as tsdbadmin to the service of the state's dbcloud_service.<name>,
// with its initial password, and answers its id and the session (closed when the test ends).
func loginToStateService(t *testing.T, w *tfWorkdir, name string) (string, *pgx.Conn) {
	t.Helper()
	for _, r := range w.state().Resources {
		if r.Type != "dbcloud_service" || r.Name != name || len(r.Instances) != 1 {
			continue
		}
		a := r.Instances[0].Attributes
		host, _ := a["hostname"].(string)
		port, _ := a["port"].(float64)
		password, _ := a["initial_password"].(string)
		conn, err := pgLogin(t.Context(), host, int(port), password)
		if err != nil {
			t.Fatalf("login to service %v: %v", a["id"], err)
		}
		t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
		id, _ := a["id"].(string)
		return id, conn
	}
	t.Fatalf("no dbcloud_service.%s in the state", name)
	return "", nil
}

// checkNewestLogs checks the output of a dbcloud_service_logs with max_entries = 3: truncated, and its
// entries the newest three of the log up to its last one (the API's log is only appended to).
func checkNewestLogs(t *testing.T, srv *emulatortest.Server, id, output string) {
	t.Helper()
	var got struct {
		Entries []struct {
			Timestamp, Severity, Message string
		}
		Truncated bool
	}
	if err := json.Unmarshal([]byte(output), &got); err != nil || len(got.Entries) != 3 || !got.Truncated {
		t.Fatalf("max_entries = 3: %v, %s", err, output)
	}
	last, err := time.Parse(time.RFC3339Nano, got.Entries[2].Timestamp)
	if err != nil {
		t.Fatal(err)
	}
	log := apiLog(t, srv, id, api.GetServiceLogsParams{Until: ptr(last.Add(time.Microsecond))})
	for i, want := range log[len(log)-3:] {
		if e := got.Entries[i]; e.Message != deref(want.Message) || e.Severity != deref(want.Severity) {
			t.Errorf("max_entries = 3: entry %d is %s %q, want the log's %s %q", i, e.Severity, e.Message, deref(want.Severity), deref(want.Message))
		}
	}
}
