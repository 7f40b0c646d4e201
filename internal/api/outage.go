package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// An outage is the API away for a while: it answers 503 or 502, or connections fail. The client
// rides it out (transport.go) and tells the user: the progress log says once when the API stops
// answering, then at most every RetryPolicy.ProgressEvery that it is still away (since when, and
// until when the request retries), and once when it answers again; and a request whose budget runs
// out during an outage fails with an *OutageError, which says for how long the API was away.

// OutageError is a request whose time budget ran out while the API was unavailable (or kept rate
// limiting): it was retried from Since to Until, Attempts times, and was never carried out.
type OutageError struct {
	Operation    string
	Since, Until time.Time
	Attempts     int
	// Cause is the last answer (an *APIError of 503, 502, 504 or 429) or a *TransportError.
	Cause error
}

func (e *OutageError) Error() string {
	what := "the API was unavailable"
	if StatusCode(e.Cause) == http.StatusTooManyRequests {
		what = "the API kept rate limiting the request"
	}
	return fmt.Sprintf("%s: %s for %s (from %s to %s UTC, %d attempts, until the operation's time budget ran out); last: %s",
		e.Operation, what, e.Until.Sub(e.Since).Round(time.Second), e.Since.UTC().Format(time.TimeOnly), e.Until.UTC().Format(time.TimeOnly),
		e.Attempts, strings.TrimPrefix(e.Cause.Error(), e.Operation+": "))
}

func (e *OutageError) Unwrap() error { return e.Cause }

// Hint says what was done and what to do.
func (e *OutageError) Hint() string {
	return "The API refused the request or never answered it, so this request was not carried out; what " +
		"earlier requests did is kept in the state. Running the same command again is safe: it continues " +
		"from there, and creates nothing twice. To wait longer for the API, raise the resource's `timeouts` " +
		"(creates, updates, deletes) or the provider's `outage_timeout` (reads in a plan, data sources, " +
		"list resources, actions without timeouts)."
}

// IsOutage reports whether err is a request whose budget ran out during an outage.
func IsOutage(err error) bool {
	var o *OutageError
	return errors.As(err, &o)
}

// outageCause is the doer's error of a request whose budget ran out during an outage of failed
// connections; finish turns it into an *OutageError.
type outageCause struct {
	since, until time.Time
	attempts     int
	err          error
}

func (c *outageCause) Error() string { return c.err.Error() }
func (c *outageCause) Unwrap() error { return c.err }

// outageHeader marks, on an answer the doer hands to finish (never on the wire), an error answer of a
// request whose budget ran out during an outage: "since;until;attempts" (Unix nanoseconds).
const outageHeader = "X-Dbcloud-Client-Outage"

// outageFromAnswer reads outageHeader.
func outageFromAnswer(resp *http.Response) (since, until time.Time, attempts int, ok bool) {
	v := resp.Header.Get(outageHeader)
	if v == "" {
		return since, until, 0, false
	}
	parts := strings.Split(v, ";")
	if len(parts) != 3 {
		return since, until, 0, false
	}
	s, err1 := strconv.ParseInt(parts[0], 10, 64)
	u, err2 := strconv.ParseInt(parts[1], 10, 64)
	n, err3 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return since, until, 0, false
	}
	return time.Unix(0, s), time.Unix(0, u), n, true
}

// outageErrorOf turns the doer's error of a request whose budget ran out during an outage of failed
// connections into an *OutageError of op around a *TransportError, or returns nil.
func outageErrorOf(op string, err error) *OutageError {
	var oc *outageCause
	if errors.As(err, &oc) {
		return &OutageError{Operation: op, Since: oc.since, Until: oc.until, Attempts: oc.attempts,
			Cause: &TransportError{Operation: op, NotSent: notSent(oc.err), Err: oc.err}}
	}
	return nil
}

// outageWatch is what one client knows of the API's availability, shared by its requests, so that
// many requests meeting one outage log it once in a while, not each at every attempt.
type outageWatch struct {
	every time.Duration
	base  string // the API's base URL, for the log

	mu      sync.Mutex
	since   time.Time // when the outage began (zero: the API answers)
	lastLog time.Time
	last    string // the last failure, in words
	// ridden are the outages that ended with an answer and not yet taken (TakeRiddenOutages).
	ridden []OutageWindow
}

// OutageWindow is an outage the client rode out: the API was away from Since to Until.
type OutageWindow struct{ Since, Until time.Time }

// began is when the outage that a request met at down (zero: none) began: down, or earlier when the
// client's other requests met it first.
func (o *outageWatch) began(down time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.since.IsZero() && (down.IsZero() || o.since.Before(down)) {
		return o.since
	}
	return down
}

// take returns the outages ridden out since the last take, and forgets them.
func (o *outageWatch) take() []OutageWindow {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.ridden
	o.ridden = nil
	return out
}

func newOutageWatch(p RetryPolicy, base string) *outageWatch {
	every := p.ProgressEvery
	if every <= 0 {
		every = defaultProgressEvery
	}
	return &outageWatch{every: every, base: base}
}

// failed records a request that met the outage at now (answered resp, or failed with err), which
// retries until until, and logs when the outage is new or was last logged ProgressEvery ago. A 429
// is not an outage for the log: the limiter tells of it.
func (o *outageWatch) failed(ctx context.Context, now time.Time, req *http.Request, resp *http.Response, err error, until time.Time) {
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		return
	}
	failure := fmt.Sprintf("%s %s: ", req.Method, req.URL.Path)
	if resp != nil {
		failure += fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	} else {
		failure += "no answer (" + errString(err) + ")"
	}
	o.mu.Lock()
	first := o.since.IsZero()
	if first {
		o.since = now
	}
	o.last = failure
	due := first || now.Sub(o.lastLog) >= o.every
	if due {
		o.lastLog = now
	}
	since := o.since
	o.mu.Unlock()
	if !due {
		return
	}
	fields := map[string]any{
		"api": o.base, "since": since.UTC().Format(time.RFC3339), "down_for": now.Sub(since).Round(time.Second).String(),
		"last_failure": failure, "retrying_until": until.UTC().Format(time.RFC3339),
	}
	if first {
		tflog.Warn(ctx, fmt.Sprintf("dbcloud API unavailable since %s UTC (%s): retrying until %s UTC",
			since.UTC().Format(time.TimeOnly), failure, until.UTC().Format(time.TimeOnly)), fields)
		return
	}
	tflog.Warn(ctx, fmt.Sprintf("dbcloud API still unavailable, for %s since %s UTC (%s): retrying until %s UTC",
		now.Sub(since).Round(time.Second), since.UTC().Format(time.TimeOnly), failure, until.UTC().Format(time.TimeOnly)), fields)
}

// answered records an answer that is not an outage: an outage under way is over, and logged so.
func (o *outageWatch) answered(ctx context.Context, now time.Time) {
	o.mu.Lock()
	since := o.since
	o.since, o.lastLog = time.Time{}, time.Time{}
	if !since.IsZero() {
		o.ridden = append(o.ridden, OutageWindow{Since: since, Until: now})
	}
	o.mu.Unlock()
	if since.IsZero() {
		return
	}
	tflog.Info(ctx, fmt.Sprintf("dbcloud API answers again, after %s unavailable (since %s UTC)",
		now.Sub(since).Round(time.Second), since.UTC().Format(time.TimeOnly)), map[string]any{
		"api": o.base, "down_for": now.Sub(since).Round(time.Second).String(),
	})
}
