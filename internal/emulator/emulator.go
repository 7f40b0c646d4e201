// Package emulator is an in-memory, stateful, concurrency-safe implementation of the whole dbcloud
// REST API (internal/api/openapi.yaml), for tests and demos.
//
// It answers like the live API: digit-string resize bodies, rename, stop/start, projects, auth
// info, cursor-paged logs; objects that do not apply are absent; vpc_endpoint comes with its
// deprecated vpcEndpoint twin; the time-series type is spelled TIMESCALEDB; a VPC rename answers
// without a body.
//
// Every request goes through the same chain as on a real server: request log, added latency,
// HTTP Basic (or bearer token) authentication and the project allow-list, validation against
// openapi.yaml (kin-openapi), injected faults, and finally the handler, which implements the
// generated api.ServerInterface.
//
// Asynchronous operations (service create, resize, stop, start, delete, replica set and peering
// life cycles) are computed lazily from timestamps: each record keeps its pending transitions with
// deadlines, and every access (a request, or a look through the door of door.go) first carries out
// the transitions whose deadline has passed according to Options.Now. There are no background
// goroutines, so a fake clock makes the whole emulator deterministic.
package emulator

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// maxLoggedBody bounds the request body kept in the request log.
const maxLoggedBody = 1 << 20

// Faults describes probabilistic faults. Each probability is in [0, 1]; the draws use a random
// source seeded with Seed, so a given sequence of requests meets the same faults on every run.
type Faults struct {
	RateLimit      float64       // probability of 429 with Retry-After
	RetryAfter     time.Duration // Retry-After value sent with 429s (header in whole seconds, rounded up; 0 sends "0")
	ServerError    float64       // probability of 500
	Unavailable    float64       // probability of 503
	Latency        time.Duration // added to every request
	CommitThenFail float64       // probability that a state-changing request is carried out but the client gets a 500 (or, with DropConnection, a dropped connection)
	DropConnection bool
	Seed           int64
}

// Options configures an Emulator.
type Options struct {
	// AccessKey and SecretKey are the HTTP Basic credentials (user and password) every request must
	// carry. If both are empty, any Basic credentials are accepted, but the Authorization header is
	// still required.
	AccessKey, SecretKey string
	// BearerTokens are accepted as `Authorization: Bearer <token>`, as the live API accepts OAuth /
	// client-credentials tokens; auth info then answers type "oauth". Empty: no token is accepted.
	BearerTokens []string
	// Projects is the allow-list of project ids; empty means any project id is allowed. Requests for
	// other projects answer 403.
	Projects []string
	// Timing of the asynchronous phases. The zero value makes every phase immediate; tests pass
	// FastTiming() explicitly.
	Timing Timing
	// Faults injected at random.
	Faults Faults
	// Now is the clock (default time.Now). Life cycles advance according to it.
	Now func() time.Time
	// Logf, if set, receives one line per request.
	Logf func(format string, args ...any)
	// Database, if set, puts a real database behind every service (see backend.go). Nil: in memory.
	Database DatabaseBackend
	// ListStandbys makes the list of services also hold the standby record of each read replica set
	// (standby.go), after its primary. Whether the live list ever does is not documented (api-facts.md),
	// and by default it does not; clients must skip such records, and this lets tests check that they do.
	ListStandbys bool
	// Intercept, if set, answers every request that reaches the fault stage (authenticated, routed
	// and valid) through its Exchange, instead of the scripted and drawn faults and the handler
	// (Exchange.Serve): package emulatortest's hooks for tests that act at a precise moment of a
	// conversation. The emulator command never sets it.
	Intercept func(*Exchange)
}

// Emulator is the in-memory API. It is an http.Handler serving the API under BasePath.
// All its methods are safe for concurrent use.
type Emulator struct {
	store // the objects and what changes them (store.go); its mu guards the fields below too

	accessKey, secretKey string
	projects             map[string]bool // nil: any project
	spec                 *spec
	handler              http.Handler // the generated router over handlers

	// Guarded by store.mu:
	bearerTokens map[string]bool // the tokens accepted now (ExpireToken removes one)
	faults       Faults
	faultRand    *rand.Rand
	scripted     []*scriptedFault
	modes        modeState   // fault modes (faults.go)
	outage       outageState // outage.go

	intercept func(*Exchange) // Options.Intercept
}

// New returns an Emulator. It panics if the embedded OpenAPI document cannot be loaded, which is a
// programming error.
func New(opts Options) *Emulator {
	sp, err := loadSpec()
	if err != nil {
		panic(fmt.Sprintf("emulator: loading openapi.yaml: %v", err))
	}
	e := &Emulator{
		store: store{
			database:     database{db: opts.Database, logf: opts.Logf},
			now:          opts.Now,
			listStandbys: opts.ListStandbys,
			timing:       opts.Timing,
			state:        map[string]*projectState{},
			usedIDs:      map[string]bool{},
			idRand:       rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15)),
		},
		accessKey: opts.AccessKey,
		secretKey: opts.SecretKey,
		spec:      sp,
		intercept: opts.Intercept,
	}
	if e.now == nil {
		e.now = time.Now
	}
	for _, tok := range opts.BearerTokens {
		if e.bearerTokens == nil {
			e.bearerTokens = map[string]bool{}
		}
		e.bearerTokens[tok] = true
	}
	if len(opts.Projects) > 0 {
		e.projects = map[string]bool{}
		for _, p := range opts.Projects {
			if !e.projects[p] {
				e.projectOrder = append(e.projectOrder, p)
			}
			e.projects[p] = true
		}
	}
	e.setFaultsLocked(opts.Faults)
	e.handler = api.HandlerWithOptions(handlers{&e.store}, api.StdHTTPServerOptions{
		BaseURL: BasePath,
		ErrorHandlerFunc: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeError(w, badRequest("invalid request parameter", err.Error()))
		},
	})
	return e
}

// SetTiming replaces the timing. Phases already under way keep their deadlines.
func (e *Emulator) SetTiming(t Timing) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.timing = t
}

// SetFaults replaces the probabilistic faults and reseeds their random source with f.Seed.
func (e *Emulator) SetFaults(f Faults) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setFaultsLocked(f)
}

func (e *Emulator) setFaultsLocked(f Faults) {
	e.faults = f
	e.faultRand = rand.New(rand.NewPCG(uint64(f.Seed), uint64(f.Seed)^0x5bd1e995))
}

// ServeHTTP serves the API under BasePath (/v1).
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == OutagePath {
		e.serveOutageControl(w, r)
		return
	}
	started := time.Now()
	e.mu.Lock()
	at := e.now()
	e.mu.Unlock()

	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			writeError(w, badRequest("could not read the request body", err.Error()))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}

	rt := e.spec.find(r)
	logged := body
	if len(logged) > maxLoggedBody {
		logged = logged[:maxLoggedBody]
	}
	// The entry is recorded as soon as the status is known (before any byte reaches the client), so
	// a client that got an answer always finds its request in the log.
	record := func(status int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.requests = append(e.requests, Request{
			OperationID: rt.operationID,
			Method:      r.Method,
			Path:        r.URL.Path,
			Status:      status,
			Body:        bytes.Clone(logged),
			Time:        at,
		})
	}
	sw := &statusWriter{ResponseWriter: w, record: record}
	defer func() {
		status := sw.finish()
		if e.logf != nil {
			op := rt.operationID
			if op == "" {
				op = "-"
			}
			e.logf("emulator: %s %s -> %d (%s, %v)", r.Method, r.URL.Path, status, op, time.Since(started).Round(time.Microsecond))
		}
	}()
	e.serve(sw, r, rt)
}

// serve runs the chain after the request log: an outage (outage.go), latency, auth, routing,
// validation, faults, handler.
func (e *Emulator) serve(w *statusWriter, r *http.Request, rt routeResult) {
	if !e.delay(w, r, rt) {
		return
	}
	if refused, challenge := e.refuse(r, rt); refused != nil {
		if challenge != "" {
			w.Header().Set("WWW-Authenticate", challenge)
		}
		writeError(w, refused)
		return
	}
	e.dispatch(w, r, rt)
}

// delay applies an outage window or the configured latency. It answers false when the request
// has been answered (the outage's answer) or its client went away during the latency.
func (e *Emulator) delay(w *statusWriter, r *http.Request, rt routeResult) bool {
	e.mu.Lock()
	latency := e.faults.Latency
	outage, down := e.outageLocked(rt.operationID, r.Method)
	e.mu.Unlock()
	if down {
		applyOutage(w, outage)
		return false
	}
	if latency > 0 {
		sleepCtx(r.Context(), latency)
		if r.Context().Err() != nil {
			w.markDropped() // the client went away: no answer
			return false
		}
	}
	return true
}

// refuse checks the credentials, the project, the route and the request against the spec, in that
// order, and answers the first refusal (nil: the request goes on), with the WWW-Authenticate
// challenge of a 401.
func (e *Emulator) refuse(r *http.Request, rt routeResult) (refused *apiError, challenge string) {
	if !e.authenticate(r) {
		refused = &apiError{
			Status:  http.StatusUnauthorized,
			Code:    "UNAUTHORIZED",
			Message: "missing or invalid credentials",
			Details: "Send HTTP Basic authentication with the access key as user name and the secret key as password.",
		}
		if bearerToken(r) == "" {
			return refused, `Basic realm="dbcloud"`
		}
		// RFC 6750: a token that is not (or no longer) valid.
		refused.Details = "The bearer token is not valid or has expired: send a current token, or HTTP Basic authentication with the access key and secret key."
		return refused, `Bearer realm="dbcloud", error="invalid_token"`
	}
	if p := projectFromPath(r.URL.Path); p != "" && e.projects != nil && !e.projects[p] {
		who := "access key"
		if bearerToken(r) != "" {
			who = "token"
		}
		return &apiError{
			Status:  http.StatusForbidden,
			Code:    "FORBIDDEN",
			Message: fmt.Sprintf("%s may not use project %s", who, p),
			Details: "The credentials are valid but are not allowed to act on this project.",
		}, ""
	}
	switch {
	case rt.methodNotAllowed:
		return &apiError{
			Status:  http.StatusMethodNotAllowed,
			Code:    "METHOD_NOT_ALLOWED",
			Message: fmt.Sprintf("method %s is not allowed on %s", r.Method, r.URL.Path),
			Details: "The path exists but does not support this HTTP method.",
		}, ""
	case rt.route == nil:
		return &apiError{
			Status:  http.StatusNotFound,
			Code:    "NOT_FOUND",
			Message: fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path),
			Details: "The path does not name an API operation; the API is served under " + BasePath + ".",
		}, ""
	}
	if err := e.spec.validate(r, rt); err != nil {
		return badRequest(describeValidationError(err)), ""
	}
	return nil, ""
}

// dispatch answers an accepted request: through Options.Intercept when it is set, else as the
// faults decide (Exchange.Serve).
func (e *Emulator) dispatch(w *statusWriter, r *http.Request, rt routeResult) {
	x := &Exchange{OperationID: rt.operationID, Request: r, e: e, w: w}
	if e.intercept != nil {
		e.intercept(x)
		return
	}
	x.Serve()
}

// authenticate checks HTTP Basic credentials, or a bearer token of Options.BearerTokens.
func (e *Emulator) authenticate(r *http.Request) bool {
	if tok := bearerToken(r); tok != "" {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.bearerTokens[tok]
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	if e.accessKey == "" && e.secretKey == "" {
		return true
	}
	userOK := subtle.ConstantTimeCompare([]byte(user), []byte(e.accessKey)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(pass), []byte(e.secretKey)) == 1
	return userOK && passOK
}

// ExpireToken stops accepting a bearer token, as the live API stops accepting an expired one: the
// requests that carry it answer 401 from now on.
func (e *Emulator) ExpireToken(token string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.bearerTokens, token)
}

// projectFromPath returns the project id of a /v1/projects/{project_id}/... path, or "".
func projectFromPath(path string) string {
	rest, ok := strings.CutPrefix(path, BasePath+"/projects/")
	if !ok {
		return ""
	}
	p, _, _ := strings.Cut(rest, "/")
	return p
}

// statusWriter tracks the status written through it and calls record once with it (0 for a dropped
// connection). It unwraps to the underlying writer so that http.ResponseController can hijack the
// connection.
type statusWriter struct {
	http.ResponseWriter
	record   func(status int)
	status   int
	dropped  bool
	recorded bool
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		s.recordOnce(code)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap returns the underlying writer (used by http.ResponseController).
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// markDropped records the request as dropped (status 0).
func (s *statusWriter) markDropped() {
	s.dropped = true
	s.recordOnce(0)
}

func (s *statusWriter) recordOnce(status int) {
	if !s.recorded {
		s.recorded = true
		s.record(status)
	}
}

// finish records the request if nothing was written, and returns the status sent to the client: 0
// if the connection was dropped, 200 if the handler wrote nothing.
func (s *statusWriter) finish() int {
	status := s.status
	switch {
	case s.dropped:
		status = 0
	case status == 0:
		status = http.StatusOK
	}
	s.recordOnce(status)
	return status
}

// Server is an Emulator served over HTTP on a loopback address.
type Server struct {
	*Emulator
	// URL is the API base URL, ending in /v1, e.g. http://127.0.0.1:PORT/v1.
	URL string
	ts  *httptest.Server
}

// NewServer starts an Emulator on a loopback port. Close it when done.
func NewServer(opts Options) *Server {
	e := New(opts)
	ts := httptest.NewServer(e)
	return &Server{Emulator: e, URL: ts.URL + BasePath, ts: ts}
}

// Close shuts the server down, waiting for outstanding requests.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
