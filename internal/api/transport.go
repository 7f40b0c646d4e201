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
)

// RetryPolicy controls the client's retries.
type RetryPolicy struct {
	// MaxRetries is how many times a request that failed (a 5xx answer, a connection error) is
	// retried after the first attempt. Answers of 429 are not counted: they are retried until the
	// time budget runs out. 0 turns every retry off, 429s included.
	MaxRetries int
	// WaitMin and WaitMax bound the exponential backoff between attempts.
	WaitMin, WaitMax time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make the client wait.
	MaxRetryAfter time.Duration
	// MaxElapsed is the time budget of a request whose context has no deadline (default 5 minutes);
	// with a deadline (an operation's timeout), the deadline is the budget. No retry starts whose wait
	// would end past the budget.
	MaxElapsed time.Duration
}

// DefaultRetryPolicy is the policy used when Config leaves it empty.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 6, WaitMin: 500 * time.Millisecond, WaitMax: 20 * time.Second, MaxRetryAfter: 2 * time.Minute, MaxElapsed: 5 * time.Minute}

// defaultMaxElapsed is the time budget when a policy leaves MaxElapsed zero.
const defaultMaxElapsed = 5 * time.Minute

// idempotent methods are retried on connection errors and on 500/502/503/504; POST is not.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut, http.MethodOptions:
		return true
	}
	return false
}

// shouldRetry is the retry rule:
//   - every method: 429, and connection errors where the request provably never left (dial errors);
//   - GET and DELETE also: any other connection error, 500, 502, 503 and 504.
//
// A POST answered 5xx, or one whose connection broke after it was sent, is never sent again:
// it may have taken effect.
func shouldRetry(ctx context.Context, method string, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	if err != nil {
		if notSent(err) {
			return !permanent(err), nil
		}
		return idempotent(method) && !permanent(err), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true, nil
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idempotent(method), nil
	}
	return false, nil
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
// the budget is not made; nor is a retry of a failure (not a 429) beyond MaxRetries; MaxRetries 0
// turns every retry off. The budget ends at the context's deadline if it has one (hasDeadline), else
// MaxElapsed after start.
func retryAllowed(p RetryPolicy, rateLimited bool, failures int, start, now, deadline time.Time, hasDeadline bool, delay time.Duration) bool {
	if p.MaxRetries <= 0 {
		return false
	}
	if !rateLimited && failures > p.MaxRetries {
		return false
	}
	end := deadline
	if !hasDeadline {
		budget := p.MaxElapsed
		if budget <= 0 {
			budget = defaultMaxElapsed
		}
		end = start.Add(budget)
	}
	return now.Add(delay).Before(end)
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
}

func (d *retryingDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	prio := priorityOf(ctx, req.Method)
	deadline, hasDeadline := ctx.Deadline()
	start := time.Now()
	failures := 0
	// last is the last retriable answer, kept so that a budget that runs out while the request waits
	// to be retried yields that answer (a 429, a 503) rather than a bare deadline error. It is dropped
	// as soon as the next attempt is sent: a deadline met during an attempt is ambiguous for a POST.
	var last *http.Response
	giveUp := func(err error) (*http.Response, error) {
		if last != nil && errors.Is(err, context.DeadlineExceeded) {
			return d.maskErrorAnswer(req, last), nil
		}
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		if err := d.limiter.Wait(ctx, prio); err != nil {
			return giveUp(err)
		}
		areq := req.Clone(ctx)
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			areq.Body = body
		}
		last = nil
		resp, err := d.client.Do(areq)
		now := time.Now()
		retryAfter := parseRetryAfter(resp, now)
		d.limiter.Observe(statusOf(resp), min(retryAfter, d.policy.MaxRetryAfter))
		retry, cerr := shouldRetry(ctx, req.Method, resp, err)
		if cerr != nil {
			drainAndClose(resp)
			return giveUp(cerr)
		}
		rateLimited := statusOf(resp) == http.StatusTooManyRequests
		if retry && !rateLimited {
			failures++
		}
		delay := RetryDelay(attempt-1, d.policy.WaitMin, d.policy.WaitMax, retryAfter, d.policy.MaxRetryAfter, d.rand())
		if !retry || !retryAllowed(d.policy, rateLimited, failures, start, now, deadline, hasDeadline, delay) {
			if err != nil {
				if attempt > 1 {
					err = fmt.Errorf("after %d attempts: %w", attempt, err)
				}
				return nil, err
			}
			return d.maskErrorAnswer(req, resp), nil
		}
		tflog.Debug(ctx, "dbcloud API: retrying request", map[string]any{
			"method": req.Method, "url": req.URL.String(), "status": statusOf(resp), "error": errString(err),
			"attempt": attempt, "wait_ms": delay.Milliseconds(), "priority": prio.String(),
		})
		if resp != nil {
			last = buffered(resp)
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return giveUp(err)
		}
	}
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

// loggingTransport logs every attempt through tflog with secrets masked.
type loggingTransport struct {
	next    http.RoundTripper
	secrets []string
}

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
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
