package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// configureAs runs Configure as Terraform terraformVersion would, with fast client retries (unless
// max_retries says otherwise) and the given attribute values (nil = null, unknownValue = unknown).
func configureAs(t *testing.T, terraformVersion string, values map[string]any) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := &dbcloudProvider{version: "1.2.3", opts: options{backoff: testBackoff, apiRetry: testRetry}}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	attrs := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		v, ok := values[name]
		switch {
		case !ok || v == nil:
			attrs[name] = tftypes.NewValue(typ, nil)
		case v == unknownValue:
			attrs[name] = tftypes.NewValue(typ, tftypes.UnknownValue)
		default:
			attrs[name] = tftypes.NewValue(typ, v)
		}
	}
	req := provider.ConfigureRequest{TerraformVersion: terraformVersion, Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, attrs)}}
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, req, resp)
	return resp
}

func clearSettingsEnv(t *testing.T) {
	clearEnv(t)
	for _, e := range []string{EnvMaxRetries, EnvRequestTimeout, EnvUserAgent, EnvOutageTimeout} {
		t.Setenv(e, "")
	}
}

// settingsServer answers every request with answer and records what it saw.
type settingsServer struct {
	hits       atomic.Int32
	mu         sync.Mutex
	userAgents []string
}

func newSettingsServer(t *testing.T, answer http.HandlerFunc) (*settingsServer, string) {
	s := &settingsServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		s.userAgents = append(s.userAgents, r.Header.Get("User-Agent"))
		s.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

// serverError answers 500: an error that is not an outage, retried max_retries times.
func serverError(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte(`{"code":"INTERNAL","message":"failed"}`))
}

// unavailable answers 503: an outage, retried until the budget runs out.
func unavailable(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`{"code":"UNAVAILABLE","message":"busy"}`))
}

// outage_timeout bounds how long a read without a deadline rides out an outage, far beyond
// max_retries; the error says for how long the API was unavailable and that running again is safe.
func TestProviderSettings_OutageTimeout(t *testing.T) {
	clearSettingsEnv(t)
	srv, url := newSettingsServer(t, unavailable)
	pd := providerClient(t, configureAs(t, "1.11.4", settingsConfig(url, map[string]any{"max_retries": int64(1), "outage_timeout": "2s"})))
	start := time.Now()
	_, err := pd.client.ListServices(context.Background())
	took := time.Since(start)
	if !api.IsOutage(err) || took < time.Second || took > 10*time.Second {
		t.Fatalf("after %v: %v; want an outage error after about 2s", took, err)
	}
	if n := srv.hits.Load(); n <= 2 {
		t.Errorf("%d requests: an outage is retried beyond max_retries", n)
	}
	var diags diag.Diagnostics
	pd.addError(context.Background(), &diags, "Could not read services", err)
	text := diags[0].Detail()
	for _, want := range []string{"the API was unavailable for", "HTTP 503", "Running the same command again is safe", "outage_timeout"} {
		if !strings.Contains(text, want) {
			t.Errorf("the diagnostic lacks %q:\n%s", want, text)
		}
	}
}

func settingsConfig(baseURL string, extra map[string]any) map[string]any {
	cfg := map[string]any{"base_url": baseURL, "access_key": "ak-settings", "secret_key": "sk-settings", "project_id": "rp1pz7uyae"}
	for k, v := range extra {
		cfg[k] = v
	}
	return cfg
}

func providerClient(t *testing.T, resp *provider.ConfigureResponse) *providerData {
	t.Helper()
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %s", diagText(resp))
	}
	return resp.ResourceData.(*providerData)
}

func TestProviderSettings_FromConfig(t *testing.T) {
	clearSettingsEnv(t)
	srv, url := newSettingsServer(t, serverError)
	pd := providerClient(t, configureAs(t, "1.11.4", settingsConfig(url, map[string]any{
		"max_retries": int64(2), "request_timeout": "30s", "user_agent": "pipeline/nightly",
	})))
	if _, err := pd.client.ListServices(context.Background()); err == nil {
		t.Fatal("want the 500 error")
	}
	if n := srv.hits.Load(); n != 3 {
		t.Errorf("%d requests with max_retries = 2, want 3", n)
	}
	want := "terraform-provider-dbcloud/1.2.3 (+https://registry.terraform.io/providers/dbcloud/dbcloud) Terraform/1.11.4 pipeline/nightly"
	if ua := srv.userAgents[0]; ua != want {
		t.Errorf("User-Agent = %q\nwant        %q", ua, want)
	}
}

func TestProviderSettings_EnvFallbacks(t *testing.T) {
	clearSettingsEnv(t)
	t.Setenv(EnvMaxRetries, "1")
	t.Setenv(EnvRequestTimeout, "1s")
	t.Setenv(EnvUserAgent, "ci/job-7")
	t.Setenv(EnvOutageTimeout, "2500ms")
	srv, url := newSettingsServer(t, func(w http.ResponseWriter, r *http.Request) {
		select { // slower than the request timeout of 1s
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	pd := providerClient(t, configureAs(t, "1.10.0", settingsConfig(url, nil)))
	start := time.Now()
	_, err := pd.client.GetService(context.Background(), "svc1")
	if err == nil || !strings.Contains(err.Error(), "Timeout") && !strings.Contains(err.Error(), "deadline") {
		t.Errorf("error %v: want a request timeout", err)
	}
	// An API that does not answer is an outage: attempts of 1s, retried (beyond max_retries) until the
	// outage budget of 2.5s runs out; without the request timeout the first attempt alone would last
	// the server's 3s.
	if d := time.Since(start); d < 2*time.Second || d > 5*time.Second {
		t.Errorf("attempts of 1s within a budget of 2.5s took %v", d)
	}
	if n := srv.hits.Load(); n < 2 || !api.IsOutage(err) {
		t.Errorf("%d requests with %s=1: want at least 2, and an outage error: %v", n, EnvMaxRetries, err)
	}
	if ua := srv.userAgents[0]; !strings.HasSuffix(ua, " Terraform/1.10.0 ci/job-7") {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestProviderSettings_ConfigWinsOverEnv(t *testing.T) {
	clearSettingsEnv(t)
	t.Setenv(EnvMaxRetries, "5")
	t.Setenv(EnvUserAgent, "from-env")
	srv, url := newSettingsServer(t, serverError)
	pd := providerClient(t, configureAs(t, "1.11.4", settingsConfig(url, map[string]any{"max_retries": int64(0), "user_agent": "from-config"})))
	_, _ = pd.client.ListServices(context.Background())
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("%d requests with max_retries = 0 in the config and 5 in the environment, want 1", n)
	}
	if ua := srv.userAgents[0]; !strings.HasSuffix(ua, " from-config") || strings.Contains(ua, "from-env") {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestProviderSettings_Defaults(t *testing.T) {
	clearSettingsEnv(t)
	srv, url := newSettingsServer(t, serverError)
	pd := providerClient(t, configureAs(t, "1.11.4", settingsConfig(url, nil)))
	_, _ = pd.client.ListServices(context.Background())
	if n := int(srv.hits.Load()); n != testRetry.MaxRetries+1 {
		t.Errorf("%d requests without max_retries, want the policy's %d", n, testRetry.MaxRetries+1)
	}
	if ua := srv.userAgents[0]; ua != "terraform-provider-dbcloud/1.2.3 (+https://registry.terraform.io/providers/dbcloud/dbcloud) Terraform/1.11.4" {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestProviderSettings_Invalid(t *testing.T) {
	cases := []struct {
		name   string
		config map[string]any
		env    map[string]string
		want   string
	}{
		{"duration without a unit", map[string]any{"request_timeout": "60"}, nil, `request_timeout must be a duration with a unit, such as "60s"`},
		{"not a duration", map[string]any{"request_timeout": "a minute"}, nil, `got "a minute"`},
		{"timeout too short", map[string]any{"request_timeout": "10ms"}, nil, "request_timeout must be from 1s to 1h0m0s"},
		{"timeout too long", map[string]any{"request_timeout": "2h"}, nil, "request_timeout must be from 1s to 1h0m0s"},
		{"bad duration in the environment", nil, map[string]string{EnvRequestTimeout: "5 minutes"}, EnvRequestTimeout + ` must be a duration with a unit`},
		{"negative retries", map[string]any{"max_retries": int64(-1)}, nil, "max_retries must be from 0 to 100, got -1"},
		{"too many retries", map[string]any{"max_retries": int64(1000)}, nil, "max_retries must be from 0 to 100, got 1000"},
		{"retries not a number in the environment", nil, map[string]string{EnvMaxRetries: "lots"}, EnvMaxRetries + ` must be a whole number from 0 to 100, got "lots"`},
		{"retries out of range in the environment", nil, map[string]string{EnvMaxRetries: "-3"}, EnvMaxRetries + " must be from 0 to 100, got -3"},
		{"user agent on two lines", map[string]any{"user_agent": "a\nb"}, nil, "user_agent must be a single line"},
		{"unknown max_retries", map[string]any{"max_retries": unknownValue}, nil, "max_retries depends on a value that is not known"},
		{"unknown request_timeout", map[string]any{"request_timeout": unknownValue}, nil, "request_timeout depends on a value that is not known"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clearSettingsEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			resp := configureAs(t, "1.11.4", settingsConfig("https://api.example.com/v1", c.config))
			if !resp.Diagnostics.HasError() || !strings.Contains(diagText(resp), c.want) {
				t.Errorf("diagnostics %q, want an error containing %q", diagText(resp), c.want)
			}
			if resp.ResourceData != nil {
				t.Error("a provider with an invalid setting must not be configured")
			}
			if strings.Contains(diagText(resp), "sk-settings") || strings.Contains(diagText(resp), "ak-settings") {
				t.Errorf("a diagnostic carries a key: %s", diagText(resp))
			}
		})
	}
}
