package pgbackend

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

var _ emulator.LogBackend = (*Backend)(nil)

// csvRecord is a csvlog record with the fields the service's log reads (the others empty).
func csvRecord(at, user, from, severity, message, detail, hint string) string {
	rec := make([]string, 26)
	rec[csvTime], rec[csvUser], rec[csvFrom], rec[csvSeverity] = at, user, from, severity
	rec[csvMessage], rec[csvDetail], rec[csvHint] = message, detail, hint
	rec[19] = "SELECT 1/0 -- PASSWORD 'x'" // query: never shown
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(rec)
	w.Flush()
	return b.String()
}

// A csvlog record is one entry; the emulator's own sessions and the unnamed connections from the
// private socket are not the service's.
func TestParseLogRecord(t *testing.T) {
	const at = "2025-03-04 05:06:07.089 UTC"
	when := time.Date(2025, 3, 4, 5, 6, 7, 89e6, time.UTC)
	for _, c := range []struct {
		name, record string
		want         *LogEntry
	}{
		{"a user's error, with detail and hint (the statement is left out)",
			csvRecord(at, "tsdbadmin", "127.0.0.1:5000", "ERROR", "division by zero", "d, \"quoted\"\nand two lines", "h"),
			&LogEntry{At: when, Severity: "ERROR", Message: "division by zero\nDETAIL: d, \"quoted\"\nand two lines\nHINT: h"}},
		{"the server's own process", csvRecord(at, "", "", "LOG", "database system is ready to accept connections", "", ""),
			&LogEntry{At: when, Severity: "LOG", Message: "database system is ready to accept connections"}},
		{"DEBUG3 is DEBUG", csvRecord(at, "", "", "DEBUG3", "m", "", ""), &LogEntry{At: when, Severity: "DEBUG", Message: "m"}},
		{"a connection from the network, not yet authenticated",
			csvRecord(at, "", "127.0.0.1:5000", "LOG", "connection received: host=127.0.0.1 port=5000", "", ""),
			&LogEntry{At: when, Severity: "LOG", Message: "connection received: host=127.0.0.1 port=5000"}},
		{"the emulator's superuser", csvRecord(at, "postgres", "[local]", "FATAL", "the database system is starting up", "", ""), nil},
		{"the pooler's password lookup", csvRecord(at, "tsdb_pooler_auth", "[local]", "LOG", "connection authorized", "", ""), nil},
		{"a connection from the private socket before it says who it is",
			csvRecord(at, "", "[local]", "LOG", "connection received: host=[local]", "", ""), nil},
		{"too few fields", "2025-03-04 05:06:07.089 UTC,tsdbadmin,tsdb,1,,,,,,,,ERROR,22012,m\n", nil},
		{"no time", csvRecord("yesterday", "", "", "LOG", "m", "", ""), nil},
	} {
		rec, err := csv.NewReader(strings.NewReader(c.record)).Read()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, ok := parseLogRecord(rec)
		switch {
		case c.want == nil && ok:
			t.Errorf("%s: read as %+v, want left out", c.name, got)
		case c.want != nil && (!ok || got != *c.want):
			t.Errorf("%s: %+v (%v), want %+v", c.name, got, ok, *c.want)
		}
	}
}

// logsOf pages through the service's log over the API (severities and search as given) and answers
// its entries as "SEVERITY message".
func (e *apiEnv) logsOf(id string, query url.Values) []string {
	e.t.Helper()
	var out []string
	for {
		var page api.ServiceLogs
		e.call(http.MethodGet, "/"+id+"/logs?"+query.Encode(), nil, &page)
		if page.Entries == nil || len(page.Logs) != len(*page.Entries) {
			e.t.Fatalf("a page of logs without entries, or with %d lines for its entries", len(page.Logs))
		}
		for _, l := range *page.Entries {
			if l.Timestamp == nil || l.Severity == nil || l.Message == nil {
				e.t.Fatalf("an entry without timestamp, severity or message: %+v", l)
			}
			out = append(out, *l.Severity+" "+*l.Message)
		}
		if page.LastCursor == nil {
			return out
		}
		query.Set("cursor", *page.LastCursor)
	}
}

func anyHas(lines []string, text string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, text) })
}

// A service's log is its instance's own PostgreSQL log: the start-up, the connections of its users,
// the errors of the SQL they run, and the shutdown when the service is paused; not the emulator's
// synthetic lines, nor its own sessions. The log is the instance's: a fork starts one of its own.
func TestServiceLogIsTheServerLog(t *testing.T) {
	m := manager(t)
	e := newAPIEnv(t)
	s, pw := e.create("logged")
	id := deref(s.ServiceID)
	c := login(t, s.Endpoint, pw)
	if _, err := c.Exec(t.Context(), "SELECT 1/0"); sqlState(err) != "22012" {
		t.Fatalf("SELECT 1/0: %v, want division_by_zero", err)
	}
	errs := url.Values{"severities": {"ERROR"}}
	eventually(t, "the division by zero in the service's log", func() bool { return anyHas(e.logsOf(id, errs), "division by zero") })
	if got := e.logsOf(id, errs); len(got) != 1 || got[0] != "ERROR division by zero" {
		t.Errorf("ERROR entries: %q, want the division by zero alone", got)
	}
	all := e.logsOf(id, url.Values{})
	for _, want := range []string{"LOG starting PostgreSQL", "LOG database system is ready to accept connections",
		"LOG connection authorized: user=tsdbadmin database=tsdb", `LOG listening on Unix socket "/var/run/postgresql/`} {
		if !anyHas(all, want) {
			t.Errorf("no %q in the log:\n%s", want, strings.Join(all, "\n"))
		}
	}
	// Neither the emulator's own sessions, nor its synthetic lines, nor the paths of this machine.
	for _, not := range []string{"user=postgres", "tsdb_pooler_auth", "host=[local]", "missing_table", "starting up", m.dir, m.dataDir} {
		if anyHas(all, not) {
			t.Errorf("%q in the service's log:\n%s", not, strings.Join(all, "\n"))
		}
	}
	if _, err := os.Stat(filepath.Join(m.Instance(id).data, logCSVFile)); err == nil {
		t.Error("the log is in the data directory: a fork would copy it")
	}
	_ = c.Close(t.Context())

	e.call(http.MethodPost, "/"+id+"/stop", nil, nil)
	e.waitStatus(id, api.PAUSED)
	eventually(t, "the shutdown in the log", func() bool { return anyHas(e.logsOf(id, url.Values{}), "database system is shut down") })

	e.call(http.MethodPost, "/"+id+"/start", nil, nil)
	e.waitStatus(id, api.READY)
	var forked api.Service
	e.call(http.MethodPost, "/"+id+"/forkService", api.ForkServiceCreate{ForkStrategy: api.NOW}, &forked)
	fid := deref(forked.ServiceID)
	e.waitStatus(fid, api.READY)
	fork := e.logsOf(fid, url.Values{})
	if anyHas(fork, "division by zero") || !anyHas(fork, "database system is ready to accept connections") {
		t.Errorf("the fork's log is not its own:\n%s", strings.Join(fork, "\n"))
	}
	e.delete(fid)
	e.delete(id)
}

// Log reads what was written since its last call, and starts again from the top when the file was
// replaced.
func TestLogReadsIncrementally(t *testing.T) {
	m := manager(t)
	_, in, admin := adminInstance(t, m)
	first, err := m.Log(in.name)
	if err != nil || len(first) == 0 {
		t.Fatalf("Log: %d entries, %v", len(first), err)
	}
	if _, err := admin.Exec(t.Context(), "SELECT 1/0"); err == nil {
		t.Fatal("SELECT 1/0 worked")
	}
	var second []LogEntry
	eventually(t, "the error in the log", func() bool {
		second, err = m.Log(in.name)
		return err == nil && len(second) > len(first) && second[len(second)-1].Severity == "ERROR"
	})
	if !slices.Equal(second[:len(first)], first) {
		t.Error("a second read changed the entries of the first")
	}
	path := filepath.Join(in.dir, logCSVFile)
	const at = "2025-01-01 00:00:00.000 UTC"
	if err := os.WriteFile(path+".new", []byte(csvRecord(at, "", "", "LOG", "a new file", "", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	third, err := m.Log(in.name)
	if err != nil || len(third) != 1 || third[0].Message != "a new file" {
		t.Fatalf("after the file was replaced: %+v, %v", third, err)
	}
	// A record being written waits until it is whole: cut in its first field, then at a newline in
	// a quoted field.
	rec := csvRecord(at, "", "", "ERROR", "written in parts", "first line\nsecond line", "")
	cut := strings.Index(rec, "first line\n") + len("first line\n")
	for i, part := range []string{rec[:10], rec[10:cut], rec[cut:]} {
		fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fh.WriteString(part)
		_ = fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Log(in.name)
		whole := i == 2
		if err != nil || len(got) != map[bool]int{false: 1, true: 2}[whole] ||
			(whole && got[1].Message != "written in parts\nDETAIL: first line\nsecond line") {
			t.Errorf("after part %d of a record: %+v, %v", i+1, got, err)
		}
	}
}
