package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// APIError is the one error type of the client: the operation it was doing, the HTTP status and the
// API's error body (code, message and the undocumented but real details string).
type APIError struct {
	// Operation names what the client was doing, e.g. "create service" or "get service rp1pz7uyae".
	Operation string
	// StatusCode is the HTTP status the API answered.
	StatusCode int
	// Code, Message and Details come from the API's error body when it is JSON.
	Code    string
	Message string
	Details string
	// Body is the raw body (trimmed) when it was not the API's JSON error body.
	Body string
	// Bearer is true when the request carried a Bearer token (not the key pair): a 401 then means
	// that the token was refused or has expired.
	Bearer bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Operation, e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		fmt.Fprintf(&b, " %s", text)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " [%s]", e.Code)
	}
	switch {
	case e.Message != "":
		fmt.Fprintf(&b, ": %s", e.Message)
	case e.Body != "":
		fmt.Fprintf(&b, ": %s", e.Body)
	}
	if e.Details != "" {
		fmt.Fprintf(&b, " (details: %s)", e.Details)
	}
	return b.String()
}

// Hint says what a user can do about the error.
func (e *APIError) Hint() string {
	switch {
	case e.StatusCode == http.StatusBadRequest:
		return "The API rejected the request as invalid: correct the configuration as the message says."
	case e.StatusCode == http.StatusUnauthorized && e.Bearer:
		return "The API refused the token: it is wrong or has expired (tokens are short-lived). Get a new one (log in " +
			"again, or mint one from the access key), set it in token (or DBCLOUD_TOKEN) and run Terraform again: the " +
			"state keeps what was done so far."
	case e.StatusCode == http.StatusUnauthorized:
		return "Check access_key and secret_key (or DBCLOUD_ACCESS_KEY / DBCLOUD_SECRET_KEY)."
	case e.StatusCode == http.StatusForbidden:
		return "The credentials may not use this project: check project_id (DBCLOUD_PROJECT_ID) and the key's permissions."
	case e.StatusCode == http.StatusNotFound:
		return "The object does not exist (any more): it may have been deleted outside Terraform."
	case e.StatusCode == http.StatusConflict:
		return "The object is busy or in a conflicting state: wait for the current operation to finish and apply again."
	case e.StatusCode == http.StatusTooManyRequests:
		return "The API is rate limiting requests: apply again later, or run fewer operations in parallel (-parallelism)."
	case e.StatusCode >= 500:
		return "The API failed on its side: apply again later. Terraform state keeps what was created, so a retry continues where this one stopped."
	}
	return ""
}

// StatusCode returns the HTTP status of an *APIError in err's chain, or 0.
func StatusCode(err error) int {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is an API answer of 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports whether err is an API answer of 409.
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsBadRequest reports whether err is an API answer of 400.
func IsBadRequest(err error) bool { return StatusCode(err) == http.StatusBadRequest }

// IsRateLimited reports whether err is an API answer of 429.
func IsRateLimited(err error) bool { return StatusCode(err) == http.StatusTooManyRequests }

// IsAmbiguous reports whether a state-changing request may or may not have taken effect: the API
// answered with a server error other than 502 and 503 (which refuse a request without carrying it
// out, see Refused), or the connection failed after the request may have reached it.
// Such a create must be resolved by looking, never by sending it again.
func IsAmbiguous(err error) bool {
	if err == nil {
		return false
	}
	if code := StatusCode(err); code != 0 {
		return code >= 500 && !Refused(code)
	}
	var tErr *TransportError
	if errors.As(err, &tErr) {
		return !tErr.NotSent
	}
	return false
}

// TransportError is a request that got no HTTP answer.
type TransportError struct {
	Operation string
	// NotSent is true when the request provably never reached the server (the connection was not made).
	NotSent bool
	Err     error
}

func (e *TransportError) Error() string {
	if e.NotSent {
		return fmt.Sprintf("%s: could not connect to the API: %v", e.Operation, e.Err)
	}
	return fmt.Sprintf("%s: no answer from the API (the request may or may not have taken effect): %v", e.Operation, e.Err)
}

func (e *TransportError) Unwrap() error { return e.Err }

// newAPIError decodes an error answer. A body that is not the JSON error body still yields a readable error.
func newAPIError(op string, status int, body []byte) *APIError {
	e := &APIError{Operation: op, StatusCode: status}
	var eb struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Code != "" || eb.Message != "") {
		e.Code, e.Message = eb.Code, eb.Message
		if len(eb.Details) > 0 && string(eb.Details) != "null" {
			var s string
			if json.Unmarshal(eb.Details, &s) == nil {
				e.Details = s
			} else {
				e.Details = string(eb.Details) // an object or array: keep its JSON
			}
		}
		return e
	}
	// Collapse the whitespace so that an HTML error page reads as one line in a diagnostic.
	e.Body = truncate(strings.Join(strings.Fields(string(body)), " "), 512, "...")
	return e
}
