package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// errorFrom makes GetService (or CreateService when post is set) meet one error answer.
func errorFrom(t *testing.T, status int, contentType, body string, post bool) error {
	t.Helper()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}, func(cfg *Config) { cfg.Retry = &RetryPolicy{MaxRetries: 0} })
	var err error
	if post {
		_, err = c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	} else {
		_, err = c.GetService(context.Background(), "rp1pz7uyae")
	}
	if err == nil {
		t.Fatalf("HTTP %d answered nil error", status)
	}
	return err
}

func TestAPIErrorWithDetails(t *testing.T) {
	err := errorFrom(t, 409, "application/json",
		`{"code":"CONFLICT","message":"service is not ready","details":"status is CONFIGURING","extra":1}`, false)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T %v is not an *APIError", err, err)
	}
	want := APIError{Operation: "get service rp1pz7uyae", StatusCode: 409, Code: "CONFLICT", Message: "service is not ready", Details: "status is CONFIGURING"}
	if *apiErr != want {
		t.Errorf("APIError = %+v, want %+v", *apiErr, want)
	}
	text := err.Error()
	for _, part := range []string{"get service rp1pz7uyae", "409", "Conflict", "CONFLICT", "service is not ready", "status is CONFIGURING"} {
		if !strings.Contains(text, part) {
			t.Errorf("Error() = %q lacks %q", text, part)
		}
	}
	if !IsConflict(err) || IsNotFound(err) || StatusCode(err) != 409 || IsAmbiguous(err) {
		t.Errorf("helpers wrong for %v", err)
	}
}

func TestAPIErrorWithoutDetails(t *testing.T) {
	err := errorFrom(t, 404, "application/json", errorBody("NOT_FOUND", "service not found"), false)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T is not an *APIError", err)
	}
	if apiErr.Details != "" || apiErr.Body != "" || apiErr.Code != "NOT_FOUND" || apiErr.Message != "service not found" {
		t.Errorf("APIError = %+v", *apiErr)
	}
	if got, want := err.Error(), "get service rp1pz7uyae: HTTP 404 Not Found [NOT_FOUND]: service not found"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !IsNotFound(err) || IsConflict(err) {
		t.Errorf("IsNotFound false for %v", err)
	}
}

func TestAPIErrorNullDetails(t *testing.T) {
	err := errorFrom(t, 400, "application/json", `{"code":"BAD_REQUEST","message":"bad name","details":null}`, false)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Details != "" || !IsBadRequest(err) {
		t.Errorf("APIError = %+v", apiErr)
	}
	if strings.Contains(err.Error(), "details") || strings.Contains(err.Error(), "null") {
		t.Errorf("Error() = %q mentions empty details", err)
	}
}

func TestAPIErrorObjectDetails(t *testing.T) {
	for _, details := range []string{`{"field":"name","reason":"too long"}`, `["a","b"]`, `42`} {
		err := errorFrom(t, 400, "application/json", `{"code":"BAD_REQUEST","message":"invalid input","details":`+details+`}`, false)
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("%T is not an *APIError", err)
		}
		if apiErr.Message != "invalid input" || apiErr.Details != details {
			t.Errorf("details %s: APIError = %+v", details, *apiErr)
		}
		if !strings.Contains(err.Error(), details) {
			t.Errorf("Error() = %q lacks the details", err)
		}
	}
}

func TestAPIErrorNonJSONBody(t *testing.T) {
	html := "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	err := errorFrom(t, 502, "text/html", html, true)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T %v is not an *APIError", err, err)
	}
	if apiErr.StatusCode != 502 || apiErr.Code != "" || apiErr.Message != "" {
		t.Errorf("APIError = %+v", *apiErr)
	}
	if !strings.Contains(apiErr.Body, "502 Bad Gateway") || !strings.Contains(apiErr.Body, "nginx") {
		t.Errorf("Body = %q lacks the page text", apiErr.Body)
	}
	text := err.Error()
	if !strings.Contains(text, `create service "db"`) || !strings.Contains(text, "HTTP 502") || !strings.Contains(text, "nginx") {
		t.Errorf("Error() = %q", text)
	}
	if strings.ContainsAny(text, "\r\n") {
		t.Errorf("Error() = %q spans several lines", text)
	}
	if IsAmbiguous(err) {
		t.Errorf("a POST answered 502 was refused, not carried out: it must not be ambiguous")
	}
}

func TestAPIErrorOtherBodies(t *testing.T) {
	cases := []struct {
		name, body string
		check      func(*APIError) bool
	}{
		{"empty", "", func(e *APIError) bool {
			return e.Body == "" && e.Error() == "get service rp1pz7uyae: HTTP 500 Internal Server Error"
		}},
		{"json without code or message", `{"error":"boom"}`, func(e *APIError) bool { return e.Body == `{"error":"boom"}` }},
		{"json of the wrong type", `{"code":1,"message":"x"}`, func(e *APIError) bool { return strings.Contains(e.Body, `"code":1`) }},
		{"plain text", "upstream timed out\n", func(e *APIError) bool { return e.Body == "upstream timed out" }},
		{"code only", `{"code":"INTERNAL"}`, func(e *APIError) bool { return e.Code == "INTERNAL" && strings.Contains(e.Error(), "[INTERNAL]") }},
	}
	for _, tc := range cases {
		err := errorFrom(t, 500, "", tc.body, false)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || !tc.check(apiErr) {
			t.Errorf("%s: APIError = %+v (%v)", tc.name, apiErr, err)
		}
	}
}

func TestAPIErrorLongBodyIsTruncated(t *testing.T) {
	body := strings.Repeat("é", 600) // 1200 bytes of 2-byte characters
	e := newAPIError("op", 500, []byte(body))
	if len(e.Body) > 520 || !strings.HasSuffix(e.Body, "...") {
		t.Errorf("Body has %d bytes: %q", len(e.Body), e.Body)
	}
	if !strings.HasPrefix(e.Body, "éé") || strings.ContainsRune(e.Body, '\uFFFD') || !isValidUTF8(e.Body) {
		t.Errorf("truncation split a character: %q", e.Body[len(e.Body)-8:])
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "?") == s }

func TestErrorHelpersThroughWrapping(t *testing.T) {
	base := &APIError{Operation: "get service x", StatusCode: 404, Code: "NOT_FOUND", Message: "gone"}
	wrapped := fmt.Errorf("reading: %w", fmt.Errorf("refresh: %w", base))
	var got *APIError
	if !errors.As(wrapped, &got) || got != base {
		t.Fatalf("errors.As through two wraps failed")
	}
	if !IsNotFound(wrapped) || StatusCode(wrapped) != 404 || IsConflict(wrapped) || IsAmbiguous(wrapped) {
		t.Errorf("helpers wrong through wrapping")
	}
	joined := errors.Join(errors.New("other"), &APIError{StatusCode: 409})
	if !IsConflict(joined) {
		t.Errorf("IsConflict through errors.Join")
	}
	for _, plain := range []error{nil, errors.New("x"), context.Canceled} {
		if StatusCode(plain) != 0 || IsNotFound(plain) || IsConflict(plain) || IsRateLimited(plain) || IsBadRequest(plain) || IsAmbiguous(plain) {
			t.Errorf("helpers true for %v", plain)
		}
	}
	if !IsRateLimited(&APIError{StatusCode: 429}) || IsAmbiguous(&APIError{StatusCode: 429}) {
		t.Errorf("429 must be rate limited and not ambiguous")
	}
	for _, code := range []int{500, 504} {
		if !IsAmbiguous(fmt.Errorf("w: %w", &APIError{StatusCode: code})) {
			t.Errorf("%d is not ambiguous", code)
		}
	}
	for _, code := range []int{502, 503} { // refused without being carried out
		if IsAmbiguous(fmt.Errorf("w: %w", &APIError{StatusCode: code})) {
			t.Errorf("%d is ambiguous", code)
		}
	}
	for _, code := range []int{400, 401, 403, 404, 409} {
		if IsAmbiguous(&APIError{StatusCode: code}) {
			t.Errorf("%d is ambiguous", code)
		}
	}
}

func TestTransportErrorAmbiguity(t *testing.T) {
	cause := errors.New("connection reset")
	sent := fmt.Errorf("create: %w", &TransportError{Operation: "create service", Err: cause})
	if !IsAmbiguous(sent) || StatusCode(sent) != 0 || !errors.Is(sent, cause) {
		t.Errorf("a sent request with no answer must be ambiguous and unwrap to its cause")
	}
	if !strings.Contains(sent.Error(), "may or may not have taken effect") || !strings.Contains(sent.Error(), "create service") {
		t.Errorf("Error() = %q", sent)
	}
	notSent := &TransportError{Operation: "create service", NotSent: true, Err: cause}
	if IsAmbiguous(notSent) {
		t.Errorf("a request that never left is not ambiguous")
	}
	if !strings.Contains(notSent.Error(), "could not connect") {
		t.Errorf("Error() = %q", notSent)
	}
}

func TestHint(t *testing.T) {
	for _, tc := range []struct {
		code int
		want string
	}{
		{400, "invalid"}, {401, "access_key"}, {403, "project_id"}, {404, "deleted"}, {409, "wait"},
		{429, "rate limit"}, {500, "again later"}, {502, "again later"}, {503, "again later"},
	} {
		h := (&APIError{StatusCode: tc.code}).Hint()
		if h == "" || !strings.Contains(h, tc.want) {
			t.Errorf("Hint() for %d = %q, want it to mention %q", tc.code, h, tc.want)
		}
	}
	if h := (&APIError{StatusCode: 418}).Hint(); h != "" {
		t.Errorf("Hint() for 418 = %q", h)
	}
}

func TestHintFromRealAnswers(t *testing.T) {
	for _, code := range []int{401, 403, 409, 429, 500} {
		err := errorFrom(t, code, "application/json", errorBody("E", "m"), true)
		var apiErr *APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("HTTP %d: %T %v is not an *APIError", code, err, err)
		}
		if apiErr.StatusCode != code || apiErr.Hint() == "" {
			t.Errorf("HTTP %d: %v, hint %q", code, err, apiErr.Hint())
		}
	}
}
