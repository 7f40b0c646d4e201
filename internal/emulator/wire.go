package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// apiError is an error answered with the API's Error body.
type apiError struct {
	Status  int
	Code    string
	Message string
	Details string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func badRequest(message, details string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "BAD_REQUEST", Message: message, Details: details}
}

func notFound(message, details string) *apiError {
	return &apiError{Status: http.StatusNotFound, Code: "NOT_FOUND", Message: message, Details: details}
}

func conflict(message, details string) *apiError {
	return &apiError{Status: http.StatusConflict, Code: "CONFLICT", Message: message, Details: details}
}

// writeError answers with the Error body.
func writeError(w http.ResponseWriter, e *apiError) {
	details := e.Details
	writeJSON(w, e.Status, api.Error{Code: e.Code, Message: e.Message, Details: &details})
}

// writeJSON answers with status and v as JSON. A nil v sends no body (and no Content-Type, so that
// generated clients do not try to decode an empty body).
func writeJSON(w http.ResponseWriter, status int, v any) {
	if v == nil {
		w.WriteHeader(status)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own types are marshalled here; this cannot happen.
		panic(fmt.Sprintf("emulator: marshalling a response: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// The wire types send explicit nulls for the nullable fields, as the real API does, where the
// generated types (omitempty) would leave them out.

type wireReplicaSet struct {
	api.ReadReplicaSet
	ConnectionPooler *api.ConnectionPooler `json:"connection_pooler"`
}

type wireService struct {
	api.Service
	ConnectionPooler *api.ConnectionPooler `json:"connection_pooler"`
	ForkedFrom       *api.ForkedFrom       `json:"forked_from"`
	VpcEndpoint      *api.VPCEndpoint      `json:"vpcEndpoint"`
	ReadReplicaSets  []wireReplicaSet      `json:"read_replica_sets"`
}

type wirePeering struct {
	api.Peering
	ErrorMessage *string `json:"error_message"`
}

func toWireReplicaSet(rs api.ReadReplicaSet) wireReplicaSet {
	return wireReplicaSet{ReadReplicaSet: rs, ConnectionPooler: rs.ConnectionPooler}
}

func toWireReplicaSets(in []api.ReadReplicaSet) []wireReplicaSet {
	out := make([]wireReplicaSet, 0, len(in))
	for _, rs := range in {
		out = append(out, toWireReplicaSet(rs))
	}
	return out
}

func toWireService(s api.Service) wireService {
	var rss []api.ReadReplicaSet
	if s.ReadReplicaSets != nil {
		rss = *s.ReadReplicaSets
	}
	return wireService{
		Service:          s,
		ConnectionPooler: s.ConnectionPooler,
		ForkedFrom:       s.ForkedFrom,
		VpcEndpoint:      s.VpcEndpoint,
		ReadReplicaSets:  toWireReplicaSets(rss),
	}
}

func toWireServices(in []api.Service) []wireService {
	out := make([]wireService, 0, len(in))
	for _, s := range in {
		out = append(out, toWireService(s))
	}
	return out
}

func toWirePeering(p api.Peering) wirePeering {
	return wirePeering{Peering: p, ErrorMessage: p.ErrorMessage}
}

func toWirePeerings(in []api.Peering) []wirePeering {
	out := make([]wirePeering, 0, len(in))
	for _, p := range in {
		out = append(out, toWirePeering(p))
	}
	return out
}

// message is the Message body.
func message(format string, args ...any) api.Message {
	m := fmt.Sprintf(format, args...)
	return api.Message{Message: &m}
}

// clone deep-copies one of the generated API types through JSON, so callers never share pointers
// with the emulator's state.
func clone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("emulator: cloning %T: %v", v, err))
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("emulator: cloning %T: %v", v, err))
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// deref returns *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
