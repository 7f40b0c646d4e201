package emulator

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// FaultKind is a kind of injected fault.
type FaultKind int

const (
	// FaultRateLimit answers 429 with a Retry-After header (Faults.RetryAfter).
	FaultRateLimit FaultKind = iota
	// FaultServerError answers 500 without doing anything.
	FaultServerError
	// FaultUnavailable answers 503 without doing anything.
	FaultUnavailable
	// FaultBadGateway answers 502 without doing anything.
	FaultBadGateway
	// FaultCommitThenFail carries the request out, then answers 500.
	FaultCommitThenFail
	// FaultCommitThenDrop carries the request out, then drops the connection without an answer.
	FaultCommitThenDrop
	// FaultDrop drops the connection without carrying the request out.
	FaultDrop
	// FaultEchoBody answers 400 with a message and details that echo the request body, secrets
	// included, as some real servers do: the client must mask them before they reach a diagnostic.
	FaultEchoBody
	// FaultRequestRate is the 429 of the rate-limit mode (Modes.RequestsPerSecond): its Retry-After
	// is the time until the limit admits a request again, in whole seconds rounded up.
	FaultRequestRate
)

func (k FaultKind) String() string {
	switch k {
	case FaultRateLimit:
		return "rate-limit"
	case FaultServerError:
		return "server-error"
	case FaultUnavailable:
		return "unavailable"
	case FaultBadGateway:
		return "bad-gateway"
	case FaultCommitThenFail:
		return "commit-then-fail"
	case FaultCommitThenDrop:
		return "commit-then-drop"
	case FaultDrop:
		return "drop"
	case FaultEchoBody:
		return "echo-body"
	case FaultRequestRate:
		return "request-rate"
	}
	return "FaultKind(" + strconv.Itoa(int(k)) + ")"
}

type scriptedFault struct {
	operationID string // "" matches any operation
	kind        FaultKind
	remaining   int
}

// InjectFault makes the next count requests of an operation (its operationId in openapi.yaml, e.g.
// "getService"; "" for any operation) meet the fault. Scripted faults are consumed in the order they
// were injected and take precedence over the probabilistic Faults. Requests refused earlier in the
// chain (401, 403, 404, 400) do not consume them.
//
// Note that net/http clients transparently retry a GET once when a reused keep-alive connection is
// closed before any answer, so a single FaultDrop on a GET may go unnoticed by the client (it still
// appears in Requests). Dropping needs a real connection (NewServer or any net/http server); with an
// httptest.ResponseRecorder the handler panics with http.ErrAbortHandler instead.
func (e *Emulator) InjectFault(operationID string, kind FaultKind, count int) {
	if count <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scripted = append(e.scripted, &scriptedFault{operationID: operationID, kind: kind, remaining: count})
}

// Modes are fault modes beyond the probabilistic Faults.
type Modes struct {
	// GetErrorRate is the probability that a GET is answered 500 without anything done (reads a
	// client may safely retry). Drawn from the Faults' seeded source.
	GetErrorRate float64
	// RequestsPerSecond, if positive, limits the requests the API accepts, as a token bucket of
	// Burst tokens refilled at that rate (by Options.Now). A request over the limit is answered 429
	// with a Retry-After (the time until the next token, rounded up to whole seconds) and takes no
	// token. It is checked before any other fault.
	RequestsPerSecond float64
	// Burst is the bucket's size (default 1).
	Burst int
}

// modeState is the state of the fault modes, guarded by Emulator.mu.
type modeState struct {
	Modes
	tokens float64
	last   time.Time
}

// SetModes replaces the fault modes; the rate limit starts with a full bucket.
func (e *Emulator) SetModes(m Modes) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.Burst <= 0 {
		m.Burst = 1
	}
	e.modes = modeState{Modes: m, tokens: float64(m.Burst), last: e.now()}
}

// admitLocked takes a token of the rate limit at now; it reports false (and takes nothing) when
// the bucket is empty.
func (m *modeState) admitLocked(now time.Time) bool {
	if m.RequestsPerSecond <= 0 {
		return true
	}
	m.refillLocked(now)
	if m.tokens >= 1 {
		m.tokens--
		return true
	}
	return false
}

func (m *modeState) refillLocked(now time.Time) {
	if now.After(m.last) {
		m.tokens = math.Min(float64(m.Burst), m.tokens+now.Sub(m.last).Seconds()*m.RequestsPerSecond)
		m.last = now
	}
}

// untilNextLocked is how long until the bucket holds a token again.
func (m *modeState) untilNextLocked(now time.Time) time.Duration {
	if m.RequestsPerSecond <= 0 {
		return 0
	}
	m.refillLocked(now)
	if m.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - m.tokens) / m.RequestsPerSecond * float64(time.Second))
}

// pickFaultLocked decides which fault, if any, a request meets.
func (e *Emulator) pickFaultLocked(operationID, method string) (FaultKind, bool) {
	if !e.modes.admitLocked(e.now()) {
		return FaultRequestRate, true
	}
	for i, f := range e.scripted {
		if f.operationID != "" && f.operationID != operationID {
			continue
		}
		f.remaining--
		if f.remaining <= 0 {
			e.scripted = append(e.scripted[:i], e.scripted[i+1:]...)
		}
		return f.kind, true
	}
	draw := func(p float64) bool { return p > 0 && e.faultRand.Float64() < p }
	f := e.faults
	switch {
	case draw(f.RateLimit):
		return FaultRateLimit, true
	case draw(f.ServerError):
		return FaultServerError, true
	case draw(f.Unavailable):
		return FaultUnavailable, true
	case method == http.MethodGet && draw(e.modes.GetErrorRate):
		return FaultServerError, true
	case method != http.MethodGet && method != http.MethodHead && draw(f.CommitThenFail):
		if f.DropConnection {
			return FaultCommitThenDrop, true
		}
		return FaultCommitThenFail, true
	}
	return 0, false
}

// retryAfterHeader renders d in whole seconds, rounded up.
func retryAfterHeader(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10)
}

// applyFault answers r with the fault; a commit-then-* fault carries the request out first.
func (e *Emulator) applyFault(w *statusWriter, r *http.Request, kind FaultKind, retryAfter time.Duration) {
	if kind == FaultCommitThenFail || kind == FaultCommitThenDrop {
		e.handler.ServeHTTP(httptest.NewRecorder(), r)
	}
	e.answerFault(w, r, kind, retryAfter)
}

// answerFault answers r as the fault does, without carrying anything out.
func (e *Emulator) answerFault(w *statusWriter, r *http.Request, kind FaultKind, retryAfter time.Duration) {
	switch kind {
	case FaultRateLimit:
		ra := retryAfterHeader(retryAfter)
		w.Header().Set("Retry-After", ra)
		writeError(w, &apiError{
			Status:  http.StatusTooManyRequests,
			Code:    "RATE_LIMITED",
			Message: "too many requests",
			Details: fmt.Sprintf("The rate limit was exceeded; retry after %s seconds.", ra),
		})
	case FaultServerError:
		writeError(w, &apiError{
			Status:  http.StatusInternalServerError,
			Code:    "INTERNAL_ERROR",
			Message: "internal server error",
			Details: "The server failed before carrying out the request; it is safe to retry.",
		})
	case FaultUnavailable:
		if retryAfter > 0 {
			w.Header().Set("Retry-After", retryAfterHeader(retryAfter))
		}
		writeError(w, &apiError{
			Status:  http.StatusServiceUnavailable,
			Code:    "SERVICE_UNAVAILABLE",
			Message: "service temporarily unavailable",
			Details: "The API is temporarily unable to handle requests; retry later.",
		})
	case FaultBadGateway:
		writeError(w, &apiError{
			Status:  http.StatusBadGateway,
			Code:    "BAD_GATEWAY",
			Message: "bad gateway",
			Details: "An upstream server did not answer properly; retry later.",
		})
	case FaultCommitThenFail:
		writeError(w, &apiError{
			Status:  http.StatusInternalServerError,
			Code:    "INTERNAL_ERROR",
			Message: "internal server error",
			Details: "The server failed while answering; the request may have been carried out, so check the state before retrying.",
		})
	case FaultCommitThenDrop, FaultDrop:
		drop(w)
	case FaultEchoBody:
		var body []byte
		if r.GetBody != nil {
			if rc, err := r.GetBody(); err == nil {
				body, _ = io.ReadAll(rc)
				_ = rc.Close()
			}
		}
		writeError(w, &apiError{
			Status:  http.StatusBadRequest,
			Code:    "INVALID_REQUEST",
			Message: fmt.Sprintf("the request %s was refused", body),
			Details: fmt.Sprintf("request body: %s", body),
		})
	case FaultRequestRate:
		e.mu.Lock()
		wait := e.modes.untilNextLocked(e.now())
		rate := e.modes.RequestsPerSecond
		e.mu.Unlock()
		ra := retryAfterHeader(max(wait, time.Millisecond)) // never "0": the limit was hit
		w.Header().Set("Retry-After", ra)
		writeError(w, &apiError{
			Status:  http.StatusTooManyRequests,
			Code:    "RATE_LIMITED",
			Message: "too many requests",
			Details: fmt.Sprintf("The API accepts %g requests per second; retry after %s seconds.", rate, ra),
		})
	}
}

// drop closes the client connection without an answer.
func drop(w *statusWriter) {
	w.markDropped()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (e.g. HTTP/2): abort the response, which resets the stream.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// Exchange is one request at the fault stage (authenticated, routed and valid), as Options.Intercept
// gets it: the hook answers it, either as without a hook (Serve) or by carrying it out and answering
// it as a fault does at the moment it chooses (Commit, Answer). Package emulatortest is that hook.
type Exchange struct {
	OperationID string        // its operationId in openapi.yaml
	Request     *http.Request // its body can be read again through GetBody
	e           *Emulator
	w           *statusWriter
}

// Serve answers the request as the emulator does without a hook: the scripted or drawn fault it
// meets, else the handler.
func (x *Exchange) Serve() {
	e := x.e
	e.mu.Lock()
	retryAfter := e.faults.RetryAfter
	kind, faulty := e.pickFaultLocked(x.OperationID, x.Request.Method)
	e.mu.Unlock()
	if faulty {
		e.applyFault(x.w, x.Request, kind, retryAfter)
		return
	}
	e.handler.ServeHTTP(x.w, x.Request)
}

// Commit carries the request out (its handler runs) and answers nothing.
func (x *Exchange) Commit() {
	x.e.handler.ServeHTTP(httptest.NewRecorder(), x.Request)
}

// Answer answers the request as the fault does, without carrying it out: a FaultCommitThenFail's
// 500 alone, a FaultCommitThenDrop's or FaultDrop's dropped connection.
func (x *Exchange) Answer(kind FaultKind) {
	x.e.mu.Lock()
	retryAfter := x.e.faults.RetryAfter
	x.e.mu.Unlock()
	x.e.answerFault(x.w, x.Request, kind, retryAfter)
}

// Answered sends what was answered so far to the client (a 200 when nothing was) and returns its
// status: 0 when the connection was dropped.
func (x *Exchange) Answered() int {
	w := x.w
	if w.dropped {
		return 0
	}
	status := w.status
	if status == 0 {
		w.WriteHeader(http.StatusOK)
		status = http.StatusOK
	}
	_ = http.NewResponseController(w).Flush()
	return status
}
