package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configure runs the provider's Configure with the given attribute values (nil = null, unknownValue = unknown).
func configure(t *testing.T, values map[string]any) *provider.ConfigureResponse {
	t.Helper()
	ctx := context.Background()
	p := &dbcloudProvider{version: "test", opts: options{backoff: wait.DefaultBackoff}}
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
	req := provider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, attrs)}}
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, req, resp)
	return resp
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
