package emulator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Hooks for tests that must act at a precise moment of the conversation with a client: interrupt
// the client right after a create was carried out and its answer lost, or after the Nth request.
//
// An Interceptor sees every request that reaches the fault stage (authenticated, routed and valid,
// the same requests that can meet a scripted or probabilistic fault), numbered in order of arrival,
// and may choose the request's fault. It runs before the scripted and probabilistic faults. A held
// answer (HoldAnswer, or Decision.Hold) is the lost answer of the API facts' "answer lost": the
// request is carried out, the client is told nothing, and the answer is withheld until the client
// gives up on the request (its context ended, or Ctrl-C closed its connection) or the hold's
// maximum passed; then the connection is dropped. A test that sends SIGINT on Decision.Committed
// (or on HoldAnswer's channel) is therefore sure that the client was interrupted while the create
// was committed and before any answer reached it.

// RequestInfo describes a request at the fault stage.
type RequestInfo struct {
	Seq         int // 1-based, in order of arrival at the fault stage, since New or ResetInterceptCount
	OperationID string
	Method      string
	Path        string
	Body        []byte // the request body (a copy)
}

// Decision is what an Interceptor chooses for one request.
type Decision struct {
	// Fault is injected when Inject is true; otherwise the scripted and probabilistic faults decide.
	Fault  FaultKind
	Inject bool
	// Hold makes a FaultCommitThenDrop or FaultCommitThenFail withhold its answer after the commit,
	// and a FaultDrop withhold it without carrying the request out, until the client gives up on the
	// request or HoldMax (default one minute) passes; then the connection is dropped.
	Hold    bool
	HoldMax time.Duration
	// Committed, if set, is called (on the request's goroutine) once a commit-then-* fault has carried
	// the request out (for a FaultDrop: once the request is held, not carried out), before anything
	// is answered.
	Committed func(RequestInfo)
	// Answered, if set, is called once the request's answer has been written and flushed to the
	// client (status 0: dropped, no answer), whether or not the request met a fault.
	Answered func(info RequestInfo, status int)
}

// Interceptor chooses the fault of a request; it is called without the emulator's lock held and
// may call the emulator's methods.
type Interceptor func(RequestInfo) Decision

// hookState is the state of the hooks, guarded by its own mutex (never held with Emulator.mu).
type hookState struct {
	mu          sync.Mutex
	seq         int
	interceptor Interceptor
	holds       []*heldAnswer
}

type heldAnswer struct {
	operationID string
	max         time.Duration
	notify      chan RequestInfo
}

func (e *Emulator) hooks() *hookState { return &e.hookState }

// SetInterceptor installs f (nil removes it).
func (e *Emulator) SetInterceptor(f Interceptor) {
	h := e.hooks()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.interceptor = f
}

// ResetInterceptCount restarts the numbering of RequestInfo.Seq at 1.
func (e *Emulator) ResetInterceptCount() {
	h := e.hooks()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq = 0
}

// HoldAnswer arranges for the next request of operationID to be carried out and its answer lost:
// the emulator commits it, sends the request on the returned channel (buffered), and withholds the
// answer until the client gives up on the request or max passes (0: one minute), then drops the
// connection. One-shot holds take precedence over the Interceptor, in the order they were armed.
func (e *Emulator) HoldAnswer(operationID string, max time.Duration) <-chan RequestInfo {
	h := e.hooks()
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan RequestInfo, 1)
	h.holds = append(h.holds, &heldAnswer{operationID: operationID, max: max, notify: ch})
	return ch
}

// intercept numbers the request and returns the hooks' decision for it.
func (e *Emulator) intercept(operationID string, r *http.Request) (RequestInfo, Decision) {
	h := e.hooks()
	h.mu.Lock()
	h.seq++
	info := RequestInfo{Seq: h.seq, OperationID: operationID, Method: r.Method, Path: r.URL.Path}
	if r.GetBody != nil {
		if rc, err := r.GetBody(); err == nil {
			info.Body, _ = io.ReadAll(rc)
			_ = rc.Close()
		}
	}
	for i, held := range h.holds {
		if held.operationID != operationID {
			continue
		}
		h.holds = append(h.holds[:i], h.holds[i+1:]...)
		h.mu.Unlock()
		return info, Decision{Fault: FaultCommitThenDrop, Inject: true, Hold: true, HoldMax: held.max,
			Committed: func(ri RequestInfo) { held.notify <- ri }}
	}
	f := h.interceptor
	h.mu.Unlock()
	if f == nil {
		return info, Decision{}
	}
	return info, f(info)
}

// applyDecision answers r with the fault d injects.
func (e *Emulator) applyDecision(w *statusWriter, r *http.Request, info RequestInfo, d Decision, retryAfter time.Duration) {
	commit := d.Fault == FaultCommitThenDrop || d.Fault == FaultCommitThenFail
	held := commit || d.Fault == FaultDrop
	if !held || (!d.Hold && d.Committed == nil) {
		e.applyFault(w, r, d.Fault, retryAfter)
		return
	}
	if commit {
		e.handler.ServeHTTP(httptest.NewRecorder(), r)
	}
	if d.Committed != nil {
		d.Committed(info)
	}
	if d.Hold {
		max := d.HoldMax
		if max <= 0 {
			max = time.Minute
		}
		sleepCtx(r.Context(), max)
	}
	if d.Fault != FaultCommitThenFail || r.Context().Err() != nil {
		drop(w)
		return
	}
	writeError(w, &apiError{
		Status:  http.StatusInternalServerError,
		Code:    "INTERNAL_ERROR",
		Message: "internal server error",
		Details: "The server failed while answering; the request may have been carried out, so check the state before retrying.",
	})
}

// answered flushes the answer and calls the decision's Answered callback.
func (e *Emulator) answered(w *statusWriter, info RequestInfo, d Decision) {
	if d.Answered == nil {
		return
	}
	status := w.status
	if w.dropped {
		status = 0
	} else {
		if status == 0 {
			w.WriteHeader(http.StatusOK)
			status = http.StatusOK
		}
		_ = http.NewResponseController(w).Flush()
	}
	d.Answered(info, status)
}
