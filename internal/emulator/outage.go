package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// An outage is the API gone away for a while, as a deploy behind the load balancer, a failover or a
// network blip makes it: for its whole window every request, whatever its path or credentials, is
// answered 503 (OutageUnavailable) or has its connection closed unanswered (OutageDrop), and nothing
// is carried out. Tests and users' own module tests use it to rehearse an outage: SetOutage in Go, the
// control endpoint OutagePath over HTTP, or the emulator command's -outage flags.

// OutageKind is how the API answers during an outage.
type OutageKind int

const (
	// OutageUnavailable answers every request 503 without doing anything.
	OutageUnavailable OutageKind = iota + 1
	// OutageDrop closes every connection without an answer and without doing anything.
	OutageDrop
)

func (k OutageKind) String() string {
	switch k {
	case OutageUnavailable:
		return "unavailable"
	case OutageDrop:
		return "drop"
	}
	return "OutageKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseOutageKind reads "unavailable" (or "503") and "drop".
func ParseOutageKind(s string) (OutageKind, error) {
	switch s {
	case "unavailable", "503":
		return OutageUnavailable, nil
	case "drop":
		return OutageDrop, nil
	}
	return 0, fmt.Errorf("outage kind must be unavailable (every request answered 503) or drop (connections closed unanswered), not %q", s)
}

// Outage describes an outage window.
type Outage struct {
	Kind     OutageKind
	Duration time.Duration
	// StartOn, when set, arms the outage instead of starting it at once: it starts at the first
	// request that matches, which is the first to meet it. "any" matches every request (the window
	// starts when the next command first calls the API, however long it takes to get there), "write"
	// any request that is not a GET; any other value is an operationId of openapi.yaml (e.g.
	// "createService").
	StartOn string
}

// OutageReport says what an outage did.
type OutageReport struct {
	Outage
	// Start and End are the window (zero while the outage is armed and has not started).
	Start, End time.Time
	// Refused counts the requests the outage met: answered 503 or dropped, none carried out.
	Refused int
}

// Active reports whether the window holds at.
func (r OutageReport) Active(at time.Time) bool {
	return !r.Start.IsZero() && !at.Before(r.Start) && at.Before(r.End)
}

// outageState is the emulator's outage, guarded by Emulator.mu.
type outageState struct {
	OutageReport
	armed bool
}

// SetOutage starts an outage now, or arms it (o.StartOn). A zero Duration ends any outage.
func (e *Emulator) SetOutage(o Outage) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outage = outageState{OutageReport: OutageReport{Outage: o}}
	if o.Duration <= 0 || o.Kind == 0 {
		e.outage = outageState{}
		return
	}
	if o.StartOn != "" {
		e.outage.armed = true
		return
	}
	e.outage.Start = e.now()
	e.outage.End = e.outage.Start.Add(o.Duration)
}

// LastOutage reports the last outage set: its window and the requests it met.
func (e *Emulator) LastOutage() OutageReport {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outage.OutageReport
}

// outageLocked decides whether a request of operationID and method meets the outage, starting an
// armed outage at the first request that matches; it counts the requests it meets.
func (e *Emulator) outageLocked(operationID, method string) (OutageKind, bool) {
	o := &e.outage
	now := e.now()
	if o.armed && startsOn(o.StartOn, operationID, method) {
		o.armed = false
		o.Start, o.End = now, now.Add(o.Duration)
	}
	if !o.Active(now) {
		return 0, false
	}
	o.Refused++
	return o.Kind, true
}

// startsOn reports whether a request of operationID and method matches an outage's StartOn.
func startsOn(startOn, operationID, method string) bool {
	switch startOn {
	case "any":
		return true
	case "write":
		return method != http.MethodGet && method != http.MethodHead
	}
	return startOn == operationID
}

// applyOutage answers r as the outage does: nothing is carried out.
func applyOutage(w *statusWriter, kind OutageKind) {
	if kind == OutageDrop {
		drop(w)
		return
	}
	writeError(w, &apiError{
		Status:  http.StatusServiceUnavailable,
		Code:    "SERVICE_UNAVAILABLE",
		Message: "service temporarily unavailable",
		Details: "The API is temporarily unable to handle requests; retry later.",
	})
}

// OutagePath is the emulator's control endpoint for outages (outside the API's BasePath, with the
// API's credentials): POST with the query kind=unavailable|drop, seconds=N (0 ends an outage) and
// optionally start_on=any|write|<operationId> sets an outage; GET reports the last one as JSON
// {kind, seconds, start_on, start, end, refused}. It answers even during an outage.
const OutagePath = "/_emulator/outage"

// serveOutageControl serves OutagePath.
func (e *Emulator) serveOutageControl(w http.ResponseWriter, r *http.Request) {
	if !e.authenticate(r) {
		w.Header().Set("WWW-Authenticate", `Basic realm="dbcloud"`)
		writeError(w, &apiError{Status: http.StatusUnauthorized, Code: "UNAUTHORIZED", Message: "missing or invalid credentials",
			Details: "The outage control endpoint takes the API's credentials."})
		return
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		q := r.URL.Query()
		secs, err := strconv.ParseFloat(q.Get("seconds"), 64)
		if err != nil || secs < 0 {
			writeError(w, badRequest("seconds must be a number of seconds >= 0", "got "+strconv.Quote(q.Get("seconds"))))
			return
		}
		kind := OutageUnavailable
		if k := q.Get("kind"); k != "" {
			if kind, err = ParseOutageKind(k); err != nil {
				writeError(w, badRequest(err.Error(), "kind is unavailable or drop"))
				return
			}
		}
		e.SetOutage(Outage{Kind: kind, Duration: time.Duration(secs * float64(time.Second)), StartOn: q.Get("start_on")})
	default:
		writeError(w, &apiError{Status: http.StatusMethodNotAllowed, Code: "METHOD_NOT_ALLOWED", Message: "use GET or POST",
			Details: "POST sets an outage, GET reports the last one."})
		return
	}
	rep := e.LastOutage()
	out := map[string]any{"kind": "", "seconds": rep.Duration.Seconds(), "start_on": rep.StartOn, "refused": rep.Refused}
	if rep.Kind != 0 {
		out["kind"] = rep.Kind.String()
	}
	if !rep.Start.IsZero() {
		out["start"], out["end"] = rep.Start.UTC().Format(time.RFC3339Nano), rep.End.UTC().Format(time.RFC3339Nano)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
