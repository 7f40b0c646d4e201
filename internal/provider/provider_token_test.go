package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

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

// Both ways in the provider block are refused by the provider's config validators, which Terraform
// runs at validate and at plan, before Configure.
func TestProviderValidateConfig_TokenAndKeys(t *testing.T) {
	ctx := context.Background()
	p := &dbcloudProvider{version: "test"}
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	for name, tc := range map[string]struct {
		set     map[string]string
		wantErr bool
	}{
		"token and access key":      {map[string]string{"token": "t", "access_key": "a"}, true},
		"token and secret key":      {map[string]string{"token": "t", "secret_key": "s"}, true},
		"token and the key pair":    {map[string]string{"token": "t", "access_key": "a", "secret_key": "s"}, true},
		"token alone":               {map[string]string{"token": "t"}, false},
		"key pair alone":            {map[string]string{"access_key": "a", "secret_key": "s"}, false},
		"nothing (the environment)": {nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			attrs := map[string]tftypes.Value{}
			for attr, typ := range objType.AttributeTypes {
				if v, ok := tc.set[attr]; ok {
					attrs[attr] = tftypes.NewValue(typ, v)
				} else {
					attrs[attr] = tftypes.NewValue(typ, nil)
				}
			}
			req := provider.ValidateConfigRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, attrs)}}
			var errs []string
			for _, v := range p.ConfigValidators(ctx) {
				resp := &provider.ValidateConfigResponse{}
				v.ValidateProvider(ctx, req, resp)
				for _, d := range resp.Diagnostics.Errors() {
					errs = append(errs, d.Detail())
				}
			}
			if got := len(errs) > 0; got != tc.wantErr {
				t.Fatalf("errors %q, want an error: %v", errs, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(strings.Join(errs, " "), "token") {
				t.Errorf("the error does not name token: %q", errs)
			}
		})
	}
}
