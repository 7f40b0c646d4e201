package api

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// First contact: an API that has never answered a request of this client (one provider run) is not
// having an outage; it is most likely not there at all: a wrong base_url (a wrong port, a typo in the
// host), or an API or emulator that is not running. Riding that out for the whole budget of an
// outage (up to the resource's `timeouts`: 30 minutes) would look like a stuck apply. So, until the
// first HTTP answer of any kind, a connection that cannot be made (refused, unknown host) is retried
// only for RetryPolicy.FirstContact since the client's first attempt (an API still starting up gets
// that long), and a TLS failure fails at once; the request then fails with an *UnreachableError that
// names the URL tried and what to check. Once the API has answered, a failed connection is an outage
// again, ridden out for the full budget.

// DefaultFirstContact is the first-contact budget when a policy leaves FirstContact zero.
const DefaultFirstContact = 10 * time.Second

// UnreachableError is a request that failed before the API had answered any request of the client:
// the connection could not be made (refused, unknown host) for the first-contact budget, or its TLS
// handshake failed. Nothing was sent.
type UnreachableError struct {
	Operation string
	// URL is the request's URL; BaseURL the client's.
	URL, BaseURL string
	// Tried is how long the client had been trying since its first attempt; Attempts this request's.
	Tried    time.Duration
	Attempts int
	Err      error
}

func (e *UnreachableError) Error() string {
	where := e.URL
	if where == "" {
		where = e.BaseURL
	}
	return fmt.Sprintf("%s: could not reach the API at %s: %s (the API has not answered any request of this run; "+
		"tried for %s, %d attempts)", e.Operation, where, causeInWords(e.Err), e.Tried.Round(100*time.Millisecond), e.Attempts)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Hint says what to check.
func (e *UnreachableError) Hint() string {
	return fmt.Sprintf("Nothing was sent to the API. Check base_url (or the DBCLOUD_BASE_URL environment variable): it must be "+
		"the API's root URL with its version, such as https://api.example.com/v1, with the right host and port; and check "+
		"that the API (or the emulator) is running and reachable from this machine at %s. Until the API has answered once "+
		"in a run, a connection refused, an unknown host or a TLS failure fails within seconds; once it has answered, the "+
		"provider rides out an outage for the operation's full budget (`timeouts`, `outage_timeout`).", e.BaseURL)
}

// IsUnreachable reports whether err is a request that failed before the API ever answered (first contact).
func IsUnreachable(err error) bool {
	var u *UnreachableError
	return errors.As(err, &u)
}

// causeInWords is err in words: a *url.Error without its method and URL.
func causeInWords(err error) string {
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Err != nil {
		return urlErr.Err.Error()
	}
	return err.Error()
}

// tlsFailure reports whether err is a TLS failure: a certificate not trusted or not for the host, a
// handshake that failed, or an https request answered by a plain-http server.
func tlsFailure(err error) bool {
	var certErr *x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	var verifyErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	if errors.As(err, &certErr) || errors.As(err, &hostErr) || errors.As(err, &invalidErr) ||
		errors.As(err, &verifyErr) || errors.As(err, &recordErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "tls: ") || strings.Contains(msg, "server gave HTTP response to HTTPS client")
}

// contactWatch is what a client knows of its first contact with the API, shared by its requests.
type contactWatch struct {
	budget time.Duration
	base   string

	mu      sync.Mutex
	first   time.Time // the client's first attempt
	reached bool      // the API has answered (any HTTP answer)
}

func newContactWatch(p RetryPolicy, base string) *contactWatch {
	budget := p.FirstContact
	if budget <= 0 {
		budget = DefaultFirstContact
	}
	return &contactWatch{budget: budget, base: base}
}

// attempt records an attempt sent at now; answered that the API answered one.
func (c *contactWatch) attempt(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.IsZero() {
		c.first = now
	}
}

func (c *contactWatch) answered() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reached = true
}

// governs reports whether the first-contact rule governs an attempt that failed with err: the API
// has not answered yet, and err is a connection that could not be made or a TLS failure. Such an
// attempt is not an outage (nor logged as one).
func (c *contactWatch) governs(err error) bool {
	if err == nil || (!notSent(err) && !tlsFailure(err)) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.reached
}

// unreachable is the first-contact rule for an attempt that failed with err at now, which the retry
// rule would send again after delay (retry): nil when the rule does not apply (the API has answered
// before, or err is not a connection that could not be made nor a TLS failure) or lets it retry;
// else the cause that finish turns into an *UnreachableError.
func (c *contactWatch) unreachable(err error, now time.Time, retry bool, delay time.Duration, attempts int) *unreachableCause {
	if !c.governs(err) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.first.Add(c.budget)
	if retry && !tlsFailure(err) && now.Add(delay).Before(end) {
		return nil
	}
	return &unreachableCause{base: c.base, tried: now.Sub(c.first), attempts: attempts, err: err}
}

// unreachableCause is the doer's error of a request that the first-contact rule ended; finish turns
// it into an *UnreachableError.
type unreachableCause struct {
	base     string
	tried    time.Duration
	attempts int
	err      error
}

func (c *unreachableCause) Error() string { return c.err.Error() }
func (c *unreachableCause) Unwrap() error { return c.err }

// unreachableErrorOf turns the doer's error of a request the first-contact rule ended into an
// *UnreachableError of op, or returns nil.
func unreachableErrorOf(op string, err error) *UnreachableError {
	var uc *unreachableCause
	if !errors.As(err, &uc) {
		return nil
	}
	u := &UnreachableError{Operation: op, BaseURL: uc.base, Tried: uc.tried, Attempts: uc.attempts, Err: uc.err}
	var urlErr *url.Error
	if errors.As(uc.err, &urlErr) {
		u.URL = urlErr.URL
	}
	return u
}
