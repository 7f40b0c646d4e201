package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// An error answer that echoes the request body (a new password) or the credentials never carries
// them into the *APIError: message, details and raw body are masked.
func TestErrorAnswersEchoingSecretsAreMasked(t *testing.T) {
	const password = "N3w-Passw0rd-echoed!"
	cases := map[string]func(w http.ResponseWriter, reqBody string){
		"message and details echo the body": func(w http.ResponseWriter, reqBody string) {
			b, _ := json.Marshal(map[string]string{
				"code": "BAD_PASSWORD", "message": "password " + password + " is too weak", "details": "request body: " + reqBody,
			})
			writeJSON(w, 400, string(b))
		},
		"details is an object with the secret key": func(w http.ResponseWriter, reqBody string) {
			writeJSON(w, 500, `{"code":"INTERNAL","message":"failed","details":{"request":`+reqBody+`}}`)
		},
		"details echoes the credentials": func(w http.ResponseWriter, _ string) {
			writeJSON(w, 401, `{"code":"UNAUTHORIZED","message":"bad key `+testAccessKey+`","details":"secret `+testSecretKey+` refused"}`)
		},
		"a body that is not JSON": func(w http.ResponseWriter, reqBody string) {
			w.WriteHeader(502)
			_, _ = io.WriteString(w, "<html>upstream said: "+reqBody+" / "+password+"</html>")
		},
	}
	for name, answer := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				answer(w, string(body))
			}, func(cfg *Config) { cfg.Retry = &RetryPolicy{MaxRetries: 0} })
			err := c.UpdatePassword(context.Background(), "svc1", password)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %T %v is not an *APIError", err, err)
			}
			text := err.Error() + apiErr.Message + apiErr.Details + apiErr.Body
			for _, secret := range []string{password, testSecretKey, testAccessKey} {
				if strings.Contains(text, secret) {
					t.Errorf("the error carries a secret: %s", err)
				}
			}
			if !strings.Contains(err.Error(), "***") {
				t.Errorf("the error does not show where it was masked: %s", err)
			}
		})
	}
}

// Masking keeps the rest of the error readable: code, status and the words around the secret.
func TestMaskedErrorStaysReadable(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 409, `{"code":"CONFLICT","message":"cannot set password to hunter22: service is busy","details":"state CONFIGURING"}`)
	})
	err := c.UpdatePassword(context.Background(), "svc1", "hunter22")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("%T %v", err, err)
	}
	if apiErr.StatusCode != 409 || apiErr.Code != "CONFLICT" || apiErr.Message != "cannot set password to ***: service is busy" || apiErr.Details != "state CONFIGURING" {
		t.Errorf("APIError = %+v", *apiErr)
	}
}

// The User-Agent names the provider and Terraform versions, with the configured suffix last.
func TestUserAgentWithVersionsAndSuffix(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, okHandler(rec), func(cfg *Config) {
		cfg.UserAgent = UserAgent("1.4.0", "1.11.4")
		cfg.UserAgentSuffix = " pipeline/nightly-42 "
	})
	if _, err := c.ListServices(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "terraform-provider-dbcloud/1.4.0 (+https://registry.terraform.io/providers/dbcloud/dbcloud) Terraform/1.11.4 pipeline/nightly-42"
	if ua := rec.all()[0].Header.Get("User-Agent"); ua != want {
		t.Errorf("User-Agent = %q\nwant        %q", ua, want)
	}
	if ua := UserAgent("", ""); ua != "terraform-provider-dbcloud/dev (+https://registry.terraform.io/providers/dbcloud/dbcloud)" {
		t.Errorf("UserAgent without versions = %q", ua)
	}
}
