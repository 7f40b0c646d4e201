package emulatortest

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
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
	Seq         int // 1-based, in order of arrival at the fault stage, since NewServer or ResetInterceptCount
	OperationID string
	Method      string
	Path        string
	Body        []byte // the request body (a copy)
}

// Decision is what an Interceptor chooses for one request.
type Decision struct {
	// Fault is injected when Inject is true; otherwise the scripted and probabilistic faults decide.
	Fault  emulator.FaultKind
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

// hookState is the state of the hooks, guarded by its own mutex (never held with the emulator's lock).
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

// SetInterceptor installs f (nil removes it).
func (s *Server) SetInterceptor(f Interceptor) {
	h := s.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	h.interceptor = f
}

// ResetInterceptCount restarts the numbering of RequestInfo.Seq at 1.
func (s *Server) ResetInterceptCount() {
	h := s.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq = 0
}

// HoldAnswer arranges for the next request of operationID to be carried out and its answer lost:
// the emulator commits it, sends the request on the returned channel (buffered), and withholds the
// answer until the client gives up on the request or max passes (0: one minute), then drops the
// connection. One-shot holds take precedence over the Interceptor, in the order they were armed.
func (s *Server) HoldAnswer(operationID string, max time.Duration) <-chan RequestInfo {
	h := s.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan RequestInfo, 1)
	h.holds = append(h.holds, &heldAnswer{operationID: operationID, max: max, notify: ch})
	return ch
}

// intercept answers a request at the fault stage (emulator.Options.Intercept): with the fault the
// hooks decide, else as the emulator does without them.
func (h *hookState) intercept(x *emulator.Exchange) {
	info, d := h.decide(x.OperationID, x.Request)
	if d.Answered != nil {
		defer func() { d.Answered(info, x.Answered()) }()
	}
	if !d.Inject {
		x.Serve()
		return
	}
	applyDecision(x, info, d)
}

// decide numbers the request and returns the hooks' decision for it.
func (h *hookState) decide(operationID string, r *http.Request) (RequestInfo, Decision) {
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
		return info, Decision{Fault: emulator.FaultCommitThenDrop, Inject: true, Hold: true, HoldMax: held.max,
			Committed: func(ri RequestInfo) { held.notify <- ri }}
	}
	f := h.interceptor
	h.mu.Unlock()
	if f == nil {
		return info, Decision{}
	}
	return info, f(info)
}

// applyDecision answers the request with the fault d injects.
func applyDecision(x *emulator.Exchange, info RequestInfo, d Decision) {
	r := x.Request
	commit := d.Fault == emulator.FaultCommitThenDrop || d.Fault == emulator.FaultCommitThenFail
	held := commit || d.Fault == emulator.FaultDrop
	if commit {
		x.Commit()
	}
	if !held || (!d.Hold && d.Committed == nil) {
		x.Answer(d.Fault)
		return
	}
	if d.Committed != nil {
		d.Committed(info)
	}
	if d.Hold {
		max := d.HoldMax
		if max <= 0 {
			max = time.Minute
		}
		select { // the client gives up, or the maximum passes
		case <-r.Context().Done():
		case <-time.After(max):
		}
	}
	if d.Fault != emulator.FaultCommitThenFail || r.Context().Err() != nil {
		x.Answer(emulator.FaultDrop)
		return
	}
	x.Answer(emulator.FaultCommitThenFail)
}
