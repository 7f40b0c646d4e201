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
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RetryPolicy controls the client's retries.
type RetryPolicy struct {
	// MaxRetries is how many times a request is retried after the first attempt.
	MaxRetries int
	// WaitMin and WaitMax bound the exponential backoff between attempts.
	WaitMin, WaitMax time.Duration
	// MaxRetryAfter caps how long a Retry-After header may make the client wait.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is the policy used when Config leaves it empty.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 6, WaitMin: 500 * time.Millisecond, WaitMax: 20 * time.Second, MaxRetryAfter: 2 * time.Minute}

type methodKey struct{}

// idempotent methods are retried on connection errors and on 502/503/504; POST is not.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete, http.MethodPut, http.MethodOptions:
		return true
	}
	return false
}

// shouldRetry is the retry rule:
//   - every method: 429, and connection errors where the request provably never left (dial errors);
//   - GET and DELETE also: any other connection error, 502, 503 and 504.
//
// A POST answered 500, or one whose connection broke after it was sent, is never sent again:
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
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
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
// A Retry-After from the server (retryAfter >= 0) wins, capped at maxRetryAfter.
func RetryDelay(attempt int, minWait, maxWait, retryAfter, maxRetryAfter time.Duration, rnd float64) time.Duration {
	if retryAfter >= 0 {
		if retryAfter > maxRetryAfter {
			return maxRetryAfter
		}
		return retryAfter
	}
	d := float64(minWait) * math.Pow(2, float64(attempt))
	if d > float64(maxWait) || math.IsInf(d, 0) {
		d = float64(maxWait)
	}
	return time.Duration(d * (0.5 + rnd/2))
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

// retryingDoer adapts retryablehttp to the generated client's HttpRequestDoer.
type retryingDoer struct {
	rc *retryablehttp.Client
}

func (d *retryingDoer) Do(req *http.Request) (*http.Response, error) {
	req = req.WithContext(context.WithValue(req.Context(), methodKey{}, req.Method))
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, err
	}
	return d.rc.Do(rreq)
}

func newRetryableClient(base *http.Client, p RetryPolicy) *retryablehttp.Client {
	rc := retryablehttp.NewClient()
	rc.HTTPClient = base
	rc.Logger = nil // requests are logged by loggingTransport through tflog
	rc.RetryMax = p.MaxRetries
	rc.RetryWaitMin = p.WaitMin
	rc.RetryWaitMax = p.WaitMax
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		method, _ := ctx.Value(methodKey{}).(string)
		retry, cerr := shouldRetry(ctx, method, resp, err)
		if retry {
			tflog.Debug(ctx, "dbcloud API: retrying request", map[string]any{"method": method, "status": statusOf(resp), "error": errString(err)})
		}
		return retry, cerr
	}
	rc.Backoff = func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
		// retryablehttp numbers the retries from 0 (attempt is 0 before the first retry), as RetryDelay does.
		return RetryDelay(attempt, minWait, maxWait, parseRetryAfter(resp, time.Now()), p.MaxRetryAfter, rand.Float64()) //nolint:gosec // jitter
	}
	// On giving up, hand back the last answer so that it becomes a typed APIError, or the last error.
	rc.ErrorHandler = func(resp *http.Response, err error, numTries int) (*http.Response, error) {
		if resp != nil {
			return resp, nil
		}
		return nil, fmt.Errorf("after %d attempt(s): %w", numTries, err)
	}
	return rc
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
	return truncate(out, maxLoggedBody, "...(truncated)"), masked
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
