package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Projects, credentials and service logs.

// keyCreated is the creation time the emulator reports for its API key.
var keyCreated = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// projectName is the name the emulator gives a project.
func projectName(id string) string { return "Project " + id }

// projectListLocked is the allow-list in its order, or, when any project is allowed, the projects
// used so far (sorted).
func (e *store) projectListLocked() []api.Project {
	var ids []string
	if len(e.projectOrder) > 0 {
		ids = slices.Clone(e.projectOrder)
	} else {
		for id := range e.state {
			ids = append(ids, id)
		}
		slices.Sort(ids)
	}
	out := make([]api.Project, 0, len(ids))
	for _, id := range ids {
		out = append(out, api.Project{ID: id, Name: projectName(id)})
	}
	return out
}

// ListProjects answers the projects the credentials may use.
func (h handlers) ListProjects(w http.ResponseWriter, _ *http.Request) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		return http.StatusOK, h.e.projectListLocked(), nil
	})
}

// GetAuthInfo answers that the call used an API key, whose project is the first of the allow-list
// (absent when any project is allowed), or a bearer token (type oauth).
func (h handlers) GetAuthInfo(w http.ResponseWriter, r *http.Request) {
	user, _, _ := r.BasicAuth()
	bearer := bearerToken(r) != ""
	h.run(w, func(time.Time) (int, any, *apiError) {
		if bearer {
			return http.StatusOK, api.AuthInfo{Type: api.Oauth, Oauth: &map[string]any{"token_type": "Bearer"}}, nil
		}
		key := api.APIKeyInfo{PublicKey: ptr(user), Name: ptr("emulator key"), Created: ptr(keyCreated)}
		if len(h.e.projectOrder) > 0 {
			id := h.e.projectOrder[0]
			key.Project = &api.Project{ID: id, Name: projectName(id)}
		}
		return http.StatusOK, api.AuthInfo{Type: api.APIKey, APIKey: &key}, nil
	})
}

// Logout answers 204 (there is no session to end with Basic credentials).
func (h handlers) Logout(w http.ResponseWriter, _ *http.Request) {
	h.run(w, func(time.Time) (int, any, *apiError) { return http.StatusNoContent, nil, nil })
}

// LogPageSize is how many entries one page of service logs holds.
const LogPageSize = 10

// log appends an entry of the primary node.
func (s *serviceRec) log(at time.Time, severity, msg string) {
	s.logs = append(s.logs, logEntry{at: at.UTC(), severity: severity, node: "0", message: msg})
}

// seedLogs writes the synthetic start-up lines of a new service (more than one page).
func (s *serviceRec) seedLogs(now time.Time) {
	lines := []struct{ sev, msg string }{
		{"LOG", "starting PostgreSQL 17.2 on x86_64-pc-linux-gnu"},
		{"LOG", "listening on IPv4 address \"0.0.0.0\", port 5432"},
		{"LOG", "listening on IPv6 address \"::\", port 5432"},
		{"LOG", "listening on Unix socket \"/var/run/postgresql/.s.PGSQL.5432\""},
		{"LOG", "database system was shut down at " + now.UTC().Format(time.RFC3339)},
		{"LOG", "database system is ready to accept connections"},
		{"INFO", "TimescaleDB background worker launcher connected to shared catalogs"},
		{"LOG", "checkpoint starting: time"},
		{"LOG", "checkpoint complete: wrote 3 buffers (0.0%)"},
		{"WARNING", "no primary key on table public.metrics: replication of updates may be slow"},
		{"ERROR", "relation \"missing_table\" does not exist at character 15"},
		{"LOG", "automatic vacuum of table \"postgres.public.metrics\": index scans: 0"},
	}
	for i, l := range lines {
		s.log(now.Add(time.Duration(i)*time.Millisecond), l.sev, l.msg)
		s.logs[len(s.logs)-1].seeded = true
	}
}

// serviceLogLocked is the service's log, oldest first. With a backend that keeps the database's own
// log (LogBackend: PostgreSQL's server log), it is that log with the lines added by ServiceLogLine,
// in time order; otherwise the emulator's lines (the synthetic start-up lines and the added ones).
func (d *database) serviceLogLocked(s *serviceRec) []logEntry {
	lb, ok := d.db.(LogBackend)
	if !ok {
		return s.logs
	}
	var out []logEntry
	if !lb.ServiceLog(s.id(), func(at time.Time, severity, node, message string) {
		out = append(out, logEntry{at: at.UTC(), severity: severity, node: node, message: message})
	}) {
		return s.logs
	}
	for _, l := range s.logs {
		if !l.seeded {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b logEntry) int { return a.at.Compare(b.at) })
	return out
}

// logFilter is the query of a page of logs, without the cursor.
type logFilter struct {
	since, until *time.Time
	search, node *string
	severities   []string
}

func logFilterOf(params api.GetServiceLogsParams) logFilter {
	f := logFilter{since: params.Since, until: params.Until, search: params.Search, node: params.Node}
	if params.Severities != nil {
		for _, v := range *params.Severities {
			f.severities = append(f.severities, strings.ToUpper(strings.TrimSpace(v)))
		}
	}
	return f
}

// matches reports whether the entry passes every filter: since (at or after), until (before),
// search (in the message, any case), one of the severities, node.
func (f logFilter) matches(l logEntry) bool {
	switch {
	case f.since != nil && l.at.Before(*f.since),
		f.until != nil && !l.at.Before(*f.until),
		f.search != nil && !strings.Contains(strings.ToLower(l.message), strings.ToLower(*f.search)),
		len(f.severities) > 0 && !slices.Contains(f.severities, l.severity),
		f.node != nil && *f.node != l.node:
		return false
	}
	return true
}

// GetServiceLogs answers one page of a service's log, oldest first, filtered by the query. The
// cursor is the index of the next entry among the filtered ones (a log only grows, so it stays
// valid); last_cursor is absent on the last page.
func (h handlers) GetServiceLogs(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID, params api.GetServiceLogsParams) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.serviceOr404(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		start := 0
		if params.Cursor != nil && *params.Cursor != "" {
			n, cerr := strconv.Atoi(strings.TrimPrefix(*params.Cursor, "c"))
			if cerr != nil || !strings.HasPrefix(*params.Cursor, "c") || n < 0 {
				return 0, nil, badRequest(fmt.Sprintf("invalid cursor %q", *params.Cursor), "Pass the last_cursor of the previous page, unchanged.")
			}
			start = n
		}
		f := logFilterOf(params)
		var matched []logEntry
		for _, l := range h.e.serviceLogLocked(s) {
			if f.matches(l) {
				matched = append(matched, l)
			}
		}
		out := api.ServiceLogs{Logs: []string{}, Entries: &[]api.LogEntry{}}
		end := min(start+LogPageSize, len(matched))
		for i := start; i < end; i++ {
			l := matched[i]
			out.Logs = append(out.Logs, fmt.Sprintf("%s [%s] %s: %s", l.at.Format(time.RFC3339Nano), l.node, l.severity, l.message))
			*out.Entries = append(*out.Entries, api.LogEntry{Timestamp: ptr(l.at), Severity: ptr(l.severity), Message: ptr(l.message)})
		}
		if end < len(matched) {
			out.LastCursor = ptr("c" + strconv.Itoa(end))
		}
		return http.StatusOK, out, nil
	})
}
