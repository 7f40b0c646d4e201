package api

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/logging"
)

// RetryPolicy controls the client's retries.
//
// Time, not attempts, bounds the retries of an outage: a request answered 429, 502 or 503, a GET or
// DELETE answered 504 or whose connection failed, and any request that provably never reached the API
// (the connection was not made) is retried, with capped backoff (and Retry-After), for as long as its
// budget lasts. MaxRetries bounds the retries of the errors that are not an outage (a GET or DELETE
// answered 500).
type RetryPolicy struct {
	// MaxRetries is how many times a GET or DELETE answered 500 is retried after the first attempt.
	// Outage answers are not counted: they are retried until the budget runs out. 0 turns every retry
	// off, outages and 429s included.
	MaxRetries int
	// WaitMin and WaitMax bound the exponential backoff between attempts.
	WaitMin, WaitMax time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make the client wait.
	MaxRetryAfter time.Duration
	// MaxElapsed is the time budget of a request whose context has no deadline (reads in a plan:
	// refresh, data sources, list resources; default 5 minutes); with a deadline (an operation's
	// timeout), the deadline is the budget. No retry starts whose wait would end past the budget.
	MaxElapsed time.Duration
	// FirstContact is how long, before the API has answered any request of the client, a connection
	// that cannot be made (refused, unknown host) is retried, from the client's first attempt
	// (default DefaultFirstContact); a TLS failure then fails at once (first_contact.go).
	FirstContact time.Duration
	// ProgressEvery is how often, at most, the client logs that the API is still unavailable
	// (default 30 s): once when an outage starts, then at most this often, and once when it ends.
	ProgressEvery time.Duration
}

// DefaultRetryPolicy is the policy used when Config leaves it empty.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 6, WaitMin: 500 * time.Millisecond, WaitMax: 15 * time.Second, MaxRetryAfter: 2 * time.Minute, MaxElapsed: DefaultMaxElapsed}

// DefaultMaxElapsed is the time budget when a policy leaves MaxElapsed zero: how long a read in a plan
// rides out an outage.
const DefaultMaxElapsed = 5 * time.Minute

// defaultProgressEvery is how often an outage is logged when a policy leaves ProgressEvery zero.
const defaultProgressEvery = 30 * time.Second

// idempotent methods are retried on connection errors and on 500/502/503/504; POST is not.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut, http.MethodOptions:
		return true
	}
	return false
}

// verdict is what the retry rule says of one attempt.
type verdict struct {
	retry bool
	// outage: the failure is the API being away (or rate limiting): retried until the budget runs out,
	// not counted against MaxRetries.
	outage bool
}

// shouldRetry is the retry rule:
//   - every method: 429, 502 and 503 (the API refused the request without carrying it out), and
//     connection errors where the request provably never left (dial errors): an outage;
//   - GET and DELETE also: any other connection error and 504 (an outage), and 500 (counted against
//     MaxRetries).
//
// A POST answered 500 or 504, or one whose connection broke after it was sent, is never sent again:
// it may have taken effect, and the caller resolves it by looking.
func shouldRetry(ctx context.Context, method string, resp *http.Response, err error) (verdict, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return verdict{}, ctxErr
	}
	if err != nil {
		if permanent(err) {
			return verdict{}, nil
		}
		ok := notSent(err) || idempotent(method)
		return verdict{retry: ok, outage: ok}, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
		return verdict{retry: true, outage: true}, nil
	case http.StatusGatewayTimeout:
		return verdict{retry: idempotent(method), outage: true}, nil
	case http.StatusInternalServerError:
		return verdict{retry: idempotent(method)}, nil
	}
	return verdict{}, nil
}

// Refused reports whether status means the API refused a request without carrying it out, so that
// sending it again is safe: 429 (rate limited), 502 and 503 (the API is unavailable).
func Refused(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusBadGateway || status == http.StatusServiceUnavailable
}

// notSent reports whether the request provably never reached the server.
func notSent(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// permanent errors are not worth retrying: a bad URL, a TLS certificate problem.
func permanent(err error) bool {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		msg := urlErr.Error()
		if strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "stopped after") {
			return true
		}
	}
	var certErr *x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	return errors.As(err, &certErr) || errors.As(err, &hostErr) || errors.As(err, &invalidErr)
}

// RetryDelay is the pure backoff schedule: before retry number attempt (0-based) it waits
// min*2^attempt capped at max, with jitter drawn from [50%, 100%] of that (rnd in [0,1)).
// A Retry-After from the server (retryAfter >= 0) wins: the wait is at least Retry-After, plus a
// jitter of up to half of it (at least up to min), so that the requests a 429 turned away do not all
// come back at the same instant; the whole is capped at maxRetryAfter.
func RetryDelay(attempt int, minWait, maxWait, retryAfter, maxRetryAfter time.Duration, rnd float64) time.Duration {
	if retryAfter >= 0 {
		jitter := time.Duration(rnd * float64(max(retryAfter/2, minWait)))
		return min(retryAfter+jitter, maxRetryAfter)
	}
	d := float64(minWait) * math.Pow(2, float64(attempt))
	if d > float64(maxWait) || math.IsInf(d, 0) {
		d = float64(maxWait)
	}
	return time.Duration(d * (0.5 + rnd/2))
}

// retryAllowed is the pure budget rule: a retry whose wait of delay would end at or after the end of
// the budget is not made; nor is a retry of a failure that is not an outage beyond MaxRetries;
// MaxRetries 0 turns every retry off. The budget ends at the context's deadline if it has one
// (hasDeadline), else MaxElapsed after start.
func retryAllowed(p RetryPolicy, outage bool, failures int, start, now, deadline time.Time, hasDeadline bool, delay time.Duration) bool {
	if p.MaxRetries <= 0 {
		return false
	}
	if !outage && failures > p.MaxRetries {
		return false
	}
	return now.Add(delay).Before(budgetEnd(p, start, deadline, hasDeadline))
}

// budgetEnd is when the retries of a request started at start must end.
func budgetEnd(p RetryPolicy, start, deadline time.Time, hasDeadline bool) time.Time {
	if hasDeadline {
		return deadline
	}
	budget := p.MaxElapsed
	if budget <= 0 {
		budget = DefaultMaxElapsed
	}
	return start.Add(budget)
}

// parseRetryAfter reads a Retry-After header (seconds or an HTTP date); -1 when absent or unreadable.
func parseRetryAfter(resp *http.Response, now time.Time) time.Duration {
	if resp == nil {
		return -1
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return -1
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
		return 0
	}
	return -1
}

// retryingDoer is the generated client's HttpRequestDoer: it passes every attempt through the shared
// limiter, retries by the rules above within the time budget, and masks secrets in error answers.
type retryingDoer struct {
	client  *http.Client
	policy  RetryPolicy
	limiter *Limiter
	// secrets are masked in error answers: the credentials (and the request's own secret values).
	secrets []string
	rand    func() float64
	// outage is what the client knows of the API's availability, shared by its requests (outage.go).
	outage *outageWatch
	// contact is whether the API has answered this client yet (first_contact.go).
	contact *contactWatch
}

// Do sends req by the rules above: each attempt through the limiter (send), the retry rule and its
// budget (shouldRetry, retryAllowed), the first-contact rule (contactWatch), and what an outage leaves
// (requestRun).
func (d *retryingDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	run := d.newRun(req)
	for attempt := 1; ; attempt++ {
		if err := d.limiter.Wait(ctx, run.prio); err != nil {
			return run.giveUp(err)
		}
		run.last, run.lastErr = nil, nil // from here, a deadline is ambiguous for a POST
		resp, err, sendErr := d.send(req)
		if sendErr != nil {
			return nil, sendErr
		}
		now := time.Now()
		retryAfter := parseRetryAfter(resp, now)
		d.limiter.Observe(statusOf(resp), min(retryAfter, d.policy.MaxRetryAfter))
		v, cerr := shouldRetry(ctx, req.Method, resp, err)
		if cerr != nil {
			drainAndClose(resp)
			return run.giveUp(cerr)
		}
		run.observe(v, resp, err, now)
		delay := RetryDelay(attempt-1, d.policy.WaitMin, d.policy.WaitMax, retryAfter, d.policy.MaxRetryAfter, d.rand())
		again := v.retry && retryAllowed(d.policy, v.outage, run.failures, run.start, now, run.deadline, run.hasDeadline, delay)
		if u := d.contact.unreachable(err, now, again, delay, attempt); u != nil {
			return nil, u
		}
		if !again {
			return run.end(v, resp, err, now, attempt)
		}
		run.retrying(v, resp, err, now, attempt, delay)
		if err := sleepCtx(ctx, delay); err != nil {
			return run.giveUp(err)
		}
	}
}

// send makes one attempt of req: a clone with a fresh body. sendErr is a body that could not be
// made again (nothing was sent); err is the attempt's.
func (d *retryingDoer) send(req *http.Request) (resp *http.Response, err, sendErr error) {
	areq := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, nil, err
		}
		areq.Body = body
	}
	d.contact.attempt(time.Now())
	resp, err = d.client.Do(areq)
	if resp != nil {
		d.contact.answered()
	}
	return resp, err, nil
}

// requestRun is what one request's attempts leave: its budget, the failures counted against
// MaxRetries, and the outage it met.
type requestRun struct {
	d               *retryingDoer
	req             *http.Request
	prio            Priority
	start, deadline time.Time
	hasDeadline     bool
	failures        int
	// down is when this request first met an outage (zero while it has not); downAttempts counts its
	// attempts since then.
	down         time.Time
	downAttempts int
	// last is the last retriable answer, kept so that a budget that runs out while the request waits
	// to be retried yields that answer (a 429, a 503) rather than a bare deadline error. It is dropped
	// as soon as the next attempt is sent: a deadline met during an attempt is ambiguous for a POST.
	last    *http.Response
	lastErr error // likewise, the last retriable connection error of an outage
}

func (d *retryingDoer) newRun(req *http.Request) *requestRun {
	ctx := req.Context()
	deadline, hasDeadline := ctx.Deadline()
	return &requestRun{d: d, req: req, prio: priorityOf(ctx, req.Method), start: time.Now(), deadline: deadline, hasDeadline: hasDeadline}
}

// observe records what an attempt's verdict v says of the outage and the retries.
func (r *requestRun) observe(v verdict, resp *http.Response, err error, now time.Time) {
	if v.outage && (v.retry || !r.down.IsZero()) {
		if r.down.IsZero() {
			r.down = now
		}
		r.downAttempts++
	} else if !v.outage && err == nil {
		// Only an answer ends an outage: a create whose connection broke (not sent again, it may
		// have been carried out) says nothing of the API's availability.
		r.d.outage.answered(r.req.Context(), now)
	}
	if v.retry && !v.outage {
		r.failures++
	}
}

// since is when the outage this request met began: when this request met it, or earlier when the
// client's other requests met it first (the outage's real length).
func (r *requestRun) since() time.Time { return r.d.outage.began(r.down) }

// retrying logs a retry after delay and keeps the attempt's failure for giveUp.
func (r *requestRun) retrying(v verdict, resp *http.Response, err error, now time.Time, attempt int, delay time.Duration) {
	ctx := r.req.Context()
	if v.outage && !r.d.contact.governs(err) {
		r.d.outage.failed(ctx, now, r.req, resp, err, budgetEnd(r.d.policy, r.start, r.deadline, r.hasDeadline))
	}
	tflog.Debug(ctx, "dbcloud API: retrying request", map[string]any{
		"method": r.req.Method, "url": r.req.URL.String(), "status": statusOf(resp), "error": errString(err),
		"attempt": attempt, "wait_ms": delay.Milliseconds(), "priority": r.prio.String(),
	})
	if resp != nil {
		r.last = buffered(resp) //nolint:bodyclose // buffered reads and closes resp's body, and keeps a copy
	} else {
		r.lastErr = err
	}
}

// end is the request's result when no retry follows the attempt (verdict v, answered resp or failed
// with err at now).
func (r *requestRun) end(v verdict, resp *http.Response, err error, now time.Time, attempt int) (*http.Response, error) {
	outageEnded := v.retry && v.outage && !r.down.IsZero()
	if err != nil {
		if outageEnded {
			return nil, &outageCause{since: r.since(), until: now, attempts: r.downAttempts, err: err}
		}
		if attempt > 1 {
			err = fmt.Errorf("after %d attempts: %w", attempt, err)
		}
		return nil, err
	}
	if outageEnded {
		return r.d.outageAnswer(r.req, resp, r.since(), r.downAttempts), nil
	}
	return r.d.maskErrorAnswer(r.req, resp), nil
}

// giveUp is the request's result when ctx ends (or the limiter refuses) with err: a deadline met
// while the request waited out an outage yields the outage's last failure.
func (r *requestRun) giveUp(err error) (*http.Response, error) {
	if errors.Is(err, context.DeadlineExceeded) {
		switch {
		case r.last != nil:
			return r.d.outageAnswer(r.req, r.last, r.since(), r.downAttempts), nil
		case r.lastErr != nil:
			return nil, &outageCause{since: r.since(), until: time.Now(), attempts: r.downAttempts, err: r.lastErr}
		}
	}
	return nil, err
}

// outageAnswer is the masked error answer resp of a request whose budget ran out during an outage that
// it met first at since, marked (outageHeader) so that finish reports an *OutageError.
func (d *retryingDoer) outageAnswer(req *http.Request, resp *http.Response, since time.Time, attempts int) *http.Response {
	resp = d.maskErrorAnswer(req, resp)
	if !since.IsZero() {
		resp.Header.Set(outageHeader, fmt.Sprintf("%d;%d;%d", since.UnixNano(), time.Now().UnixNano(), attempts))
	}
	return resp
}

// buffered reads resp's body (an error answer: small) into memory and closes the connection's body.
func buffered(resp *http.Response) *http.Response {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// maskErrorAnswer replaces the body of an error answer by one where the credentials and the secret
// values the request carried (a password the API echoes back in its message) are masked, so that
// they reach neither an *APIError, nor a diagnostic, nor a log.
func (d *retryingDoer) maskErrorAnswer(req *http.Request, resp *http.Response) *http.Response {
	if resp.StatusCode < 400 {
		return resp
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp
	}
	var sent []string
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ := io.ReadAll(rc)
			_ = rc.Close()
			_, sent = maskJSON(reqBody, nil)
		}
	}
	masked, _ := maskJSON(body, append(sent, d.secrets...))
	resp.Body = io.NopCloser(strings.NewReader(masked))
	resp.ContentLength = int64(len(masked))
	resp.Header.Del("Content-Length")
	return resp
}

func drainAndClose(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
}

func statusOf(resp *http.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// secretKeys are JSON keys whose values never reach a log; so are those of any key that contains
// one of secretKeyParts (new_password, db_password, client_secret, api_token, ...).
var secretKeys = map[string]bool{
	"password": true, "initial_password": true, "password_wo": true, "secret_key": true, "access_key": true,
}

var secretKeyParts = []string{"password", "secret", "token", "passwd"}

func isSecretKey(k string) bool {
	k = strings.ToLower(k)
	if secretKeys[k] {
		return true
	}
	for _, part := range secretKeyParts {
		if strings.Contains(k, part) {
			return true
		}
	}
	return false
}

// truncate cuts s to at most n bytes without splitting a UTF-8 character, adding suffix when it cut.
func truncate(s string, n int, suffix string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + suffix
}

const maxLoggedBody = 4096

// MaskBody returns a body fit for a log: JSON values under password-like keys are replaced by "***",
// and any of the given secret strings is replaced wherever it appears.
func MaskBody(body []byte, secrets ...string) string {
	out, _ := maskBody(body, secrets)
	return out
}

// minEchoedSecret is the shortest masked value that is also looked for in the answer: shorter
// strings would garble the logs more than they protect.
const minEchoedSecret = 4

// maskBody is MaskBody that also returns the string values it masked under secret keys, so that
// an answer echoing them (e.g. "password 'x' is too weak") can be masked too.
func maskBody(body []byte, secrets []string) (string, []string) {
	out, masked := maskJSON(body, secrets)
	return truncate(out, maxLoggedBody, "...(truncated)"), masked
}

// maskJSON is maskBody without the truncation: the masked body stays valid JSON when it was.
func maskJSON(body []byte, secrets []string) (string, []string) {
	if len(body) == 0 {
		return "", nil
	}
	out := string(body)
	var masked []string
	var v any
	if err := json.Unmarshal(body, &v); err == nil {
		if b, err := json.Marshal(maskValue(v, &masked)); err == nil {
			out = string(b)
		}
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		out = strings.ReplaceAll(out, s, "***")
		// Re-encoding JSON escapes some characters (", \, <, >, &): mask the escaped form too.
		if enc, err := json.Marshal(s); err == nil {
			if esc := string(enc[1 : len(enc)-1]); esc != s {
				out = strings.ReplaceAll(out, esc, "***")
			}
		}
	}
	return out, masked
}

// maskValue replaces the values under secret keys by "***", appending the strings it hid to masked.
func maskValue(v any, masked *[]string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecretKey(k) {
				collectStrings(val, masked)
				t[k] = "***"
			} else {
				t[k] = maskValue(val, masked)
			}
		}
	case []any:
		for i := range t {
			t[i] = maskValue(t[i], masked)
		}
	}
	return v
}

func collectStrings(v any, into *[]string) {
	switch t := v.(type) {
	case string:
		if len(t) >= minEchoedSecret {
			*into = append(*into, t)
		}
	case map[string]any:
		for _, val := range t {
			collectStrings(val, into)
		}
	case []any:
		for _, val := range t {
			collectStrings(val, into)
		}
	}
}

// MaskHeaders returns the headers fit for a log, with Authorization (its scheme kept) and the other
// credential-carrying headers masked.
func MaskHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		switch strings.ToLower(k) {
		case "authorization", "proxy-authorization":
			scheme, _, found := strings.Cut(strings.Join(v, ","), " ")
			if !found {
				out[k] = "***"
				continue
			}
			out[k] = scheme + " ***"
			continue
		case "cookie", "set-cookie", "x-api-key", "x-auth-token":
			out[k] = "***"
			continue
		}
		out[k] = strings.Join(v, ",")
	}
	return out
}

// loggingTransport logs every attempt through tflog with secrets masked, unless the provider's log
// is off (logging.ProviderLogOff: no TF_LOG* variable was set): masking every answer, a list of
// thousands of services among them, for a log line nobody reads is all cost.
type loggingTransport struct {
	next    http.RoundTripper
	secrets []string
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if logging.ProviderLogOff() {
		return t.next.RoundTrip(req)
	}
	ctx := req.Context()
	var reqBody []byte
	if req.Body != nil && req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(rc)
			_ = rc.Close()
		}
	}
	// The secrets the request carries (a new password) are masked in its answer too.
	maskedReq, sent := maskBody(reqBody, t.secrets)
	tflog.Debug(ctx, "dbcloud API request", map[string]any{
		"method":  req.Method,
		"url":     req.URL.String(),
		"headers": MaskHeaders(req.Header),
		"body":    maskedReq,
	})
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields := map[string]any{"method": req.Method, "url": req.URL.String(), "duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		fields["error"] = err.Error()
		tflog.Debug(ctx, "dbcloud API request failed", fields)
		return nil, err
	}
	body, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		fields["error"] = rerr.Error()
		tflog.Debug(ctx, "dbcloud API response body read failed", fields)
		return nil, rerr
	}
	fields["status"] = resp.StatusCode
	fields["body"] = MaskBody(body, append(sent, t.secrets...)...)
	tflog.Debug(ctx, "dbcloud API response", fields)
	return resp, nil
}
