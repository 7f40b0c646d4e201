package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// handlers implements api.ServerInterface on top of the store (store.go). The generated router
// binds the path parameters; validation against openapi.yaml has already happened.
type handlers struct{ e *store }

var _ api.ServerInterface = handlers{}

// run locks the state, brings it up to date, calls fn and answers with its result.
func (h handlers) run(w http.ResponseWriter, fn func(now time.Time) (int, any, *apiError)) {
	e := h.e
	e.mu.Lock()
	now := e.advanceLocked()
	status, body, err := fn(now)
	e.mu.Unlock()
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, status, body)
}

// decode reads the JSON request body into v, answering 400 if it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeError(w, badRequest("malformed JSON in request body", err.Error()))
		return false
	}
	return true
}

func serviceNotFound(projectID, serviceID string) *apiError {
	return notFound(
		fmt.Sprintf("service %s not found", serviceID),
		fmt.Sprintf("Project %s has no service with this id; it may have been deleted.", projectID),
	)
}

// serviceOr404 finds a service, for every call on the service path but GET of the record: an id that
// names no service answers 404, a read replica set's id too (standby.go).
func (e *store) serviceOr404(projectID, serviceID string) (*serviceRec, *apiError) {
	s := e.findService(projectID, serviceID)
	if s == nil {
		if primary, _ := e.findReplicaSetByID(projectID, serviceID); primary != nil {
			return nil, replicaSetOnServicePath(projectID, primary.id(), serviceID)
		}
		return nil, serviceNotFound(projectID, serviceID)
	}
	return s, nil
}

// readyService finds a service that must be READY for a state-changing call (404, then 409).
func (e *store) readyService(projectID, serviceID string) (*serviceRec, *apiError) {
	s, err := e.serviceOr404(projectID, serviceID)
	if err != nil {
		return nil, err
	}
	if st := s.status(); st != api.READY {
		return nil, conflict(
			fmt.Sprintf("service %s is %s, not READY", serviceID, st),
			"This change needs the service to be READY; wait for the operation under way to finish, then retry.",
		)
	}
	return s, nil
}

// bearerToken returns the token of an `Authorization: Bearer` header, or "".
func bearerToken(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
