package emulator

import (
	"fmt"
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

// pickFaultLocked decides which fault, if any, a request meets.
func (e *Emulator) pickFaultLocked(operationID, method string) (FaultKind, bool) {
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

// applyFault answers r with the fault.
func (e *Emulator) applyFault(w *statusWriter, r *http.Request, kind FaultKind, retryAfter time.Duration) {
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
		e.handler.ServeHTTP(httptest.NewRecorder(), r)
		writeError(w, &apiError{
			Status:  http.StatusInternalServerError,
			Code:    "INTERNAL_ERROR",
			Message: "internal server error",
			Details: "The server failed while answering; the request may have been carried out, so check the state before retrying.",
		})
	case FaultCommitThenDrop:
		e.handler.ServeHTTP(httptest.NewRecorder(), r)
		drop(w)
	case FaultDrop:
		drop(w)
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
