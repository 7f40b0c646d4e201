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
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// configureAs runs Configure as Terraform terraformVersion would, with fast client retries (unless
// max_retries says otherwise) and the given attribute values (nil = null, unknownValue = unknown).
func configureAs(t *testing.T, terraformVersion string, values map[string]any) *provider.ConfigureResponse {
	t.Helper()
	return configureProvider(&dbcloudProvider{version: "1.2.3", opts: options{backoff: testBackoff, apiRetry: testRetry}}, terraformVersion, values)
}

// configureProvider runs p's Configure as Terraform terraformVersion would ("" for none), with the
// given attribute values of its schema (nil = null, unknownValue = unknown).
func configureProvider(p *dbcloudProvider, terraformVersion string, values map[string]any) *provider.ConfigureResponse {
	ctx := context.Background()
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

// configure runs the provider's Configure with the given attribute values (nil = null, unknownValue = unknown).
func configure(t *testing.T, values map[string]any) *provider.ConfigureResponse {
	t.Helper()
	return configureProvider(&dbcloudProvider{version: "test", opts: options{backoff: wait.DefaultBackoff}}, "", values)
}

type unknown struct{}

var unknownValue = unknown{}

func clearEnv(t *testing.T) {
	for _, e := range []string{EnvBaseURL, EnvAccessKey, EnvSecretKey, EnvToken, EnvProjectID, EnvAnalytics} {
		t.Setenv(e, "")
	}
}

func fullConfig() map[string]any {
	return map[string]any{
		"base_url": "https://api.example.com/v1", "access_key": "ak", "secret_key": "sk", "project_id": "rp1pz7uyae",
	}
}

func diagText(resp *provider.ConfigureResponse) string {
	var b strings.Builder
	for _, d := range resp.Diagnostics {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}

func TestProviderConfigure_FromConfig(t *testing.T) {
	clearEnv(t)
	resp := configure(t, fullConfig())
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %s", diagText(resp))
	}
	pd, ok := resp.ResourceData.(*providerData)
	if !ok || pd.client == nil {
		t.Fatalf("ResourceData = %#v, want a configured *providerData", resp.ResourceData)
	}
	if pd.client.ProjectID() != "rp1pz7uyae" || pd.client.BaseURL() != "https://api.example.com/v1" {
		t.Errorf("client project %q base %q", pd.client.ProjectID(), pd.client.BaseURL())
	}
	if pd.analytics != nil {
		t.Error("analytics must be off by default")
	}
	if resp.DataSourceData != resp.ResourceData {
		t.Error("data sources must get the same provider data")
	}
}

func TestProviderConfigure_EnvFallbacks(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvBaseURL, "http://127.0.0.1:8080/v1")
	t.Setenv(EnvAccessKey, "env-ak")
	t.Setenv(EnvSecretKey, "env-sk")
	t.Setenv(EnvProjectID, "envproject")
	t.Setenv(EnvAnalytics, "true")
	resp := configure(t, nil)
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %s", diagText(resp))
	}
	pd := resp.ResourceData.(*providerData)
	if pd.client.ProjectID() != "envproject" || pd.client.BaseURL() != "http://127.0.0.1:8080/v1" {
		t.Errorf("env fallbacks not used: project %q base %q", pd.client.ProjectID(), pd.client.BaseURL())
	}
	if pd.analytics == nil {
		t.Error("DBCLOUD_ANALYTICS=true must turn analytics on")
	}
}

func TestProviderConfigure_ConfigWinsOverEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvProjectID, "envproject")
	t.Setenv(EnvAnalytics, "true")
	cfg := fullConfig()
	cfg["analytics"] = false
	resp := configure(t, cfg)
	if resp.Diagnostics.HasError() {
		t.Fatalf("unexpected errors: %s", diagText(resp))
	}
	pd := resp.ResourceData.(*providerData)
	if pd.client.ProjectID() != "rp1pz7uyae" {
		t.Errorf("project %q, want the configured one", pd.client.ProjectID())
	}
	if pd.analytics != nil {
		t.Error("analytics = false in config must win over the environment")
	}
}

func TestProviderConfigure_EachMissingValueNamesItsEnvVar(t *testing.T) {
	for attr, env := range map[string]string{
		"base_url": EnvBaseURL, "access_key": EnvAccessKey, "secret_key": EnvSecretKey, "project_id": EnvProjectID,
	} {
		t.Run(attr, func(t *testing.T) {
			clearEnv(t)
			cfg := fullConfig()
			delete(cfg, attr)
			resp := configure(t, cfg)
			if !resp.Diagnostics.HasError() || len(resp.Diagnostics) != 1 {
				t.Fatalf("want exactly one error, got: %s", diagText(resp))
			}
			text := diagText(resp)
			if !strings.Contains(text, attr) || !strings.Contains(text, env) {
				t.Errorf("error must name %s and %s: %s", attr, env, text)
			}
			if resp.ResourceData != nil {
				t.Error("no provider data on error")
			}
		})
	}
}

func TestProviderConfigure_AllMissing(t *testing.T) {
	clearEnv(t)
	resp := configure(t, nil)
	// One per missing setting: base_url, project_id, and the credentials (a token or the key pair).
	if got := resp.Diagnostics.ErrorsCount(); got != 3 {
		t.Fatalf("want 3 errors (one per missing setting), got %d: %s", got, diagText(resp))
	}
	for _, env := range []string{EnvToken, EnvAccessKey, EnvSecretKey} {
		if !strings.Contains(diagText(resp), env) {
			t.Errorf("the missing credentials' error must name %s: %s", env, diagText(resp))
		}
	}
}

func TestProviderConfigure_BaseURLRules(t *testing.T) {
	cases := []struct {
		url     string
		wantErr string
	}{
		{"https://api.example.com/v1", ""},
		{"http://127.0.0.1:8080/v1", ""},
		{"http://localhost:8080/v1", ""},
		{"http://[::1]:8080/v1", ""},
		{"http://api.example.com/v1", "not loopback"},
		{"http://10.0.0.5/v1", "not loopback"},
		{"ftp://api.example.com/v1", "absolute https://"},
		{"api.example.com/v1", "absolute https://"},
		{"https://%zz/v1", "not a valid URL"},
		{"https://user:pw@api.example.com/v1", "must not carry credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			clearEnv(t)
			cfg := fullConfig()
			cfg["base_url"] = tc.url
			resp := configure(t, cfg)
			text := diagText(resp)
			if tc.wantErr == "" {
				if resp.Diagnostics.HasError() {
					t.Fatalf("unexpected error: %s", text)
				}
				return
			}
			if !resp.Diagnostics.HasError() || !strings.Contains(text, tc.wantErr) {
				t.Fatalf("want an error containing %q, got: %s", tc.wantErr, text)
			}
		})
	}
}

func TestProviderConfigure_InvalidAnalyticsEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv(EnvAnalytics, "maybe")
	resp := configure(t, fullConfig())
	if !resp.Diagnostics.HasError() || !strings.Contains(diagText(resp), EnvAnalytics) {
		t.Fatalf("want an error naming %s, got: %s", EnvAnalytics, diagText(resp))
	}
}

func TestProviderConfigure_UnknownValue(t *testing.T) {
	clearEnv(t)
	cfg := fullConfig()
	cfg["base_url"] = unknownValue
	resp := configure(t, cfg)
	if !resp.Diagnostics.HasError() || !strings.Contains(diagText(resp), "not known until apply") {
		t.Fatalf("want an unknown-value error, got: %s", diagText(resp))
	}
}

// base_url without /v1 is refused when the provider is configured, with the URL it should be.
func TestProviderConfigure_BaseURLNeedsVersion(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:8080":                  `Did you mean "http://127.0.0.1:8080/v1"`,
		"https://api.example.com/public/api/":    `Did you mean "https://api.example.com/public/api/v1"`,
		"https://api.example.com/public/api/v1/": "",
	} {
		t.Run(url, func(t *testing.T) {
			clearEnv(t)
			cfg := fullConfig()
			cfg["base_url"] = url
			resp := configure(t, cfg)
			text := diagText(resp)
			if want == "" {
				if resp.Diagnostics.HasError() {
					t.Fatalf("unexpected error: %s", text)
				}
				return
			}
			if !strings.Contains(text, want) || !strings.Contains(text, EnvBaseURL) {
				t.Fatalf("want an error with %q naming %s, got: %s", want, EnvBaseURL, text)
			}
		})
	}
}

// The provider's two ways to authenticate, as Configure reads them: a token or the key pair, from the
// provider block, else the environment; the block wins over the environment; both, or neither, are
// refused with the names of the arguments and variables to set.
func TestProviderConfigure_TokenOrKeys(t *testing.T) {
	const token = "cfg-token-value"
	withToken := func() map[string]any {
		cfg := fullConfig()
		delete(cfg, "access_key")
		delete(cfg, "secret_key")
		cfg["token"] = token
		return cfg
	}
	cases := []struct {
		name      string
		cfg       map[string]any
		env       map[string]string
		wantToken string // the token the client uses ("" with the key pair)
		wantErr   []string
	}{
		{name: "token in the block", cfg: withToken(), wantToken: token},
		{name: "token from the environment", cfg: func() map[string]any { c := withToken(); delete(c, "token"); return c }(),
			env: map[string]string{EnvToken: "env-token"}, wantToken: "env-token"},
		{name: "keys in the block win over a token in the environment", cfg: fullConfig(), env: map[string]string{EnvToken: "env-token"}},
		{name: "a token in the block wins over keys in the environment", cfg: withToken(),
			env: map[string]string{EnvAccessKey: "env-ak", EnvSecretKey: "env-sk"}, wantToken: token},
		{name: "access key in the block, secret key in the environment, token in the environment", cfg: func() map[string]any {
			c := fullConfig()
			delete(c, "secret_key")
			return c
		}(), env: map[string]string{EnvSecretKey: "env-sk", EnvToken: "env-token"}},
		{name: "both in the environment", cfg: func() map[string]any { c := withToken(); delete(c, "token"); return c }(),
			env:     map[string]string{EnvToken: "env-token", EnvAccessKey: "env-ak", EnvSecretKey: "env-sk"},
			wantErr: []string{"Two ways to authenticate", EnvToken, EnvAccessKey, "Unset one"}},
		{name: "both in the block", cfg: func() map[string]any { c := fullConfig(); c["token"] = token; return c }(),
			wantErr: []string{"Two ways to authenticate", "Keep one"}},
		{name: "neither", cfg: func() map[string]any { c := withToken(); delete(c, "token"); return c }(),
			wantErr: []string{"Missing provider credentials", EnvToken, EnvAccessKey, EnvSecretKey}},
		{name: "token in the environment, half a key pair in the block", cfg: func() map[string]any {
			c := fullConfig()
			delete(c, "secret_key")
			return c
		}(), env: map[string]string{EnvToken: "env-token"}, wantErr: []string{"Missing provider setting secret_key", EnvSecretKey, EnvToken}},
		{name: "token to a plain http host that is not loopback", cfg: func() map[string]any {
			c := withToken()
			c["base_url"] = "http://api.example.com/v1"
			return c
		}(), wantErr: []string{"not loopback"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			resp := configure(t, tc.cfg)
			text := diagText(resp)
			if len(tc.wantErr) > 0 {
				if resp.Diagnostics.ErrorsCount() != 1 {
					t.Fatalf("want one error, got: %s", text)
				}
				for _, want := range tc.wantErr {
					if !strings.Contains(text, want) {
						t.Errorf("the error does not say %q: %s", want, text)
					}
				}
				if strings.Contains(text, token) || strings.Contains(text, "env-token") {
					t.Errorf("the error carries the token: %s", text)
				}
				return
			}
			if resp.Diagnostics.HasError() {
				t.Fatalf("unexpected errors: %s", text)
			}
			pd := resp.ResourceData.(*providerData)
			if got := pd.client.UsesToken(); got != (tc.wantToken != "") {
				t.Errorf("UsesToken() = %v, want %v", got, tc.wantToken != "")
			}
		})
	}
}

// tokenStack is the same with the projects the credentials may use.
const tokenStack = newResources + `
data "dbcloud_projects" "mine" {}
`

// A stack applied, re-planned empty and destroyed with a token, dbcloud_projects included. The
// provider block carries no key: the emulator accepts the requests only by the token.
func TestAccToken_stack(t *testing.T) {
	srv := newTokenEmulator(t)
	cfg := tokenProviderBlock(srv, testToken, testProjectID) + tokenStack
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckVPCExists(srv, "dbcloud_vpc.net"),
				testAccCheckServiceExists(srv, "dbcloud_service.db"),
				resource.TestCheckResourceAttrPair("dbcloud_service.db", "vpc_id", "dbcloud_vpc.net", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.#", "1"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.0.id", testProjectID),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.0.current", "true"),
			),
		},
		resource.TestStep{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	))
}
