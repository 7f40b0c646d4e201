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

// Records go out as the live API sends them: an object that does not apply (pooler, forked_from,
// vpc_endpoint, error_message) is absent, not null (the generated types omit nil fields), and an
// attached service carries vpc_endpoint together with its deprecated twin vpcEndpoint (see
// serviceRec.view).

// messageBody is what the API sends, where the spec documents no body, on some servers.
type messageBody struct {
	Message string `json:"message"`
}

// message is a messageBody.
func message(format string, args ...any) messageBody {
	return messageBody{Message: fmt.Sprintf(format, args...)}
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
