package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

const testToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"

// tokenClient is a test client that authenticates with testToken instead of the key pair.
func tokenClient(cfg *Config) { cfg.AccessKey, cfg.SecretKey, cfg.Token = "", "", testToken }

// With a token, every operation carries `Authorization: Bearer <token>` and no Basic credentials.
func TestEveryCallSendsTheBearerToken(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, okHandler(rec), tokenClient)
	if !c.UsesToken() {
		t.Error("UsesToken() = false for a client with a token")
	}
	for _, tc := range allCalls() {
		before := len(rec.all())
		if err := tc.do(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, got := range rec.all()[before:] {
			if a := got.Header.Get("Authorization"); a != "Bearer "+testToken {
				t.Errorf("%s: Authorization = %q, want the Bearer token", tc.name, a)
			}
			if _, _, ok := (&http.Request{Header: got.Header}).BasicAuth(); ok {
				t.Errorf("%s: Basic credentials sent with a token", tc.name)
			}
		}
	}
}

// A token and a key pair are two ways to authenticate: New takes one. A token crosses no network in
// clear text either.
func TestNewTokenOrKeys(t *testing.T) {
	good := Config{BaseURL: "https://api.example.com/v1", Token: testToken, ProjectID: "p"}
	if _, err := New(good); err != nil {
		t.Fatalf("New(token) = %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"token and both keys":    {func(c *Config) { c.AccessKey, c.SecretKey = "a", "s" }, "not both"},
		"token and access key":   {func(c *Config) { c.AccessKey = "a" }, "not both"},
		"token and secret key":   {func(c *Config) { c.SecretKey = "s" }, "not both"},
		"no credentials":         {func(c *Config) { c.Token = "" }, "token, or an access key and a secret key"},
		"token with white space": {func(c *Config) { c.Token = "Bearer " + testToken }, "white space"},
		"plain http, not local":  {func(c *Config) { c.BaseURL = "http://api.example.com/v1" }, "unencrypted"},
	} {
		cfg := good
		tc.edit(&cfg)
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, want an error saying %q", name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), testToken) {
			t.Errorf("%s: the error carries the token: %v", name, err)
		}
	}
	local := good
	local.BaseURL = "http://127.0.0.1:8080/v1"
	if _, err := New(local); err != nil {
		t.Errorf("New(token, loopback http) = %v", err)
	}
}

// A 401 answer to a Bearer request is sent once (never retried, GET or POST), says that the token was
// refused or expired and how to give a new one; a 401 to the key pair keeps its own hint. The token an
// answer echoes is masked in the error and in the debug log.
func TestBearer401IsPermanentAndNamesTheToken(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="dbcloud", error="invalid_token"`)
		writeJSON(w, 401, `{"code":"UNAUTHORIZED","message":"missing or invalid credentials","details":"token `+testToken+` has expired"}`)
	}, tokenClient)
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	_, errGet := c.GetService(ctx, "svc1")
	_, errPost := c.CreateService(ctx, ServiceCreate{Name: "db"})
	if n := rec.hits.Load(); n != 2 {
		t.Errorf("%d requests for a GET and a POST answered 401, want 2 (no retry)", n)
	}
	for _, err := range []error{errGet, errPost} {
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || !apiErr.Bearer {
			t.Fatalf("error %T %v: want an *APIError 401 of a Bearer request", err, err)
		}
		hint := apiErr.Hint()
		for _, want := range []string{"refused the token", "expired", "DBCLOUD_TOKEN"} {
			if !strings.Contains(hint, want) {
				t.Errorf("hint %q does not say %q", hint, want)
			}
		}
		if strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "***") {
			t.Errorf("the token is not masked in the error: %v", err)
		}
	}
	if strings.Contains(buf.String(), testToken) {
		t.Errorf("the debug log carries the token:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "Bearer ***") {
		t.Errorf("the debug log does not show the masked Authorization header:\n%s", buf.String())
	}

	// The key pair's 401 says to check the keys.
	basic, _ := newTestClient(t, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 401, errorBody("UNAUTHORIZED", "missing or invalid credentials"))
	})
	_, err := basic.GetService(context.Background(), "svc1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Bearer || !strings.Contains(apiErr.Hint(), "access_key and secret_key") {
		t.Errorf("key pair 401: %v, hint %q", err, apiErr.Hint())
	}
}
