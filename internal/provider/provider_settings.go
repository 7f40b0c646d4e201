package provider

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Environment variables the provider falls back to.
const (
	EnvBaseURL   = "DBCLOUD_BASE_URL"
	EnvAccessKey = "DBCLOUD_ACCESS_KEY"
	EnvSecretKey = "DBCLOUD_SECRET_KEY"
	EnvToken     = "DBCLOUD_TOKEN"
	EnvProjectID = "DBCLOUD_PROJECT_ID"
	EnvAnalytics = "DBCLOUD_ANALYTICS"
)

// Environment variables of the settings for pipelines.
const (
	EnvMaxRetries     = "DBCLOUD_MAX_RETRIES"
	EnvRequestTimeout = "DBCLOUD_REQUEST_TIMEOUT"
	EnvUserAgent      = "DBCLOUD_USER_AGENT"
	EnvOutageTimeout  = "DBCLOUD_OUTAGE_TIMEOUT"
)

// Bounds of the settings: beyond them a value is a mistake, not a wish.
const (
	maxMaxRetries     = 100
	minRequestTimeout = time.Second
	maxRequestTimeout = time.Hour
)

// providerModel is the provider block (its schema is in provider.go).
type providerModel struct {
	BaseURL   types.String `tfsdk:"base_url"`
	AccessKey types.String `tfsdk:"access_key"`
	SecretKey types.String `tfsdk:"secret_key"`
	Token     types.String `tfsdk:"token"`
	ProjectID types.String `tfsdk:"project_id"`
	Analytics types.Bool   `tfsdk:"analytics"`
	pipelineSettings
}

// providerSettings are the provider's arguments, read from the configuration, else the environment,
// and checked.
type providerSettings struct {
	api       api.Config // base URL, credentials and project
	analytics bool
	client    clientSettings
}

// readProviderSettings reads the provider's arguments and adds an error diagnostic naming the
// argument (or the variable) for each value that is unknown, missing or not valid; ok is false then.
func readProviderSettings(cfg providerModel, diags *diag.Diagnostics) (_ providerSettings, ok bool) {
	for name, v := range map[string]types.String{"base_url": cfg.BaseURL, "access_key": cfg.AccessKey, "secret_key": cfg.SecretKey, "token": cfg.Token, "project_id": cfg.ProjectID} {
		if v.IsUnknown() {
			diags.AddAttributeError(path.Root(name), "Unknown provider setting",
				fmt.Sprintf("%s depends on a value that is not known until apply. The provider needs it to plan: set it to a known value or use the environment variable.", name))
		}
	}
	if diags.HasError() {
		return providerSettings{}, false
	}

	baseURL := settingFrom(cfg.BaseURL, EnvBaseURL)
	creds := readCredentials(cfg, diags)
	projectID := settingFrom(cfg.ProjectID, EnvProjectID)
	for _, m := range []struct{ name, env, value string }{
		{"base_url", EnvBaseURL, baseURL},
		{"project_id", EnvProjectID, projectID},
	} {
		if m.value == "" {
			diags.AddAttributeError(path.Root(m.name), "Missing provider setting "+m.name,
				fmt.Sprintf("The provider needs %s: set it in the provider block or in the %s environment variable.", m.name, m.env))
		}
	}
	if baseURL != "" {
		u, err := api.ValidateBaseURL(baseURL)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root("base_url"), "Invalid base_url", err.Error())
		case !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1"):
			fixed := *u
			fixed.Path = strings.TrimRight(u.Path, "/") + "/v1"
			diags.AddAttributeError(path.Root("base_url"), "base_url lacks the API version /v1",
				fmt.Sprintf("base_url (or %s) %q does not end in the API's version segment /v1: every request would miss the API "+
					"(answered 404, as if the objects did not exist). The API's root URL ends in /v1, such as "+
					"https://api.example.com/v1. Did you mean %q?", EnvBaseURL, baseURL, fixed.String()))
		}
	}

	analyticsOn := false
	switch {
	case !cfg.Analytics.IsNull() && !cfg.Analytics.IsUnknown():
		analyticsOn = cfg.Analytics.ValueBool()
	case os.Getenv(EnvAnalytics) != "":
		b, err := strconv.ParseBool(os.Getenv(EnvAnalytics))
		if err != nil {
			diags.AddAttributeError(path.Root("analytics"), "Invalid "+EnvAnalytics,
				fmt.Sprintf("%s must be true or false, got %q.", EnvAnalytics, os.Getenv(EnvAnalytics)))
		}
		analyticsOn = b
	}
	settings := readPipelineSettings(cfg.pipelineSettings, diags)
	if diags.HasError() {
		return providerSettings{}, false
	}

	return providerSettings{
		api:       api.Config{BaseURL: baseURL, AccessKey: creds.accessKey, SecretKey: creds.secretKey, Token: creds.token, ProjectID: projectID},
		analytics: analyticsOn,
		client:    settings,
	}, true
}

// credentials are the provider's credentials: a Bearer token, or the key pair.
type credentials struct {
	token, accessKey, secretKey string
}

// readCredentials picks the one way to authenticate, and adds an error diagnostic when there is
// none or two. The configuration wins over the environment, as for every argument: a scheme set in
// the provider block is used and the other scheme's environment variables are ignored (a pipeline
// that exports DBCLOUD_TOKEN does not break a configuration that names its keys, nor the reverse).
// Both schemes in the provider block are refused by the provider's config validators (at validate
// and plan) and here; both only in the environment are refused here, at plan.
func readCredentials(cfg providerModel, diags *diag.Diagnostics) credentials {
	set := func(v types.String) bool { return !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" }
	keysInConfig := set(cfg.AccessKey) || set(cfg.SecretKey)
	keysInEnv := os.Getenv(EnvAccessKey) != "" || os.Getenv(EnvSecretKey) != ""
	tokenInEnv := os.Getenv(EnvToken) != ""
	switch {
	case set(cfg.Token) && keysInConfig:
		diags.AddAttributeError(path.Root("token"), "Two ways to authenticate",
			"The provider block sets token and access_key/secret_key: they are two ways to authenticate. Keep one of them.")
		return credentials{}
	case set(cfg.Token):
		return credentials{token: cfg.Token.ValueString()}
	case !keysInConfig && tokenInEnv && keysInEnv:
		diags.AddAttributeError(path.Root("token"), "Two ways to authenticate",
			fmt.Sprintf("Both %s and %s/%s are set in the environment: they are two ways to authenticate. Unset one of them, "+
				"or set the one to use in the provider block (the provider block wins over the environment).", EnvToken, EnvAccessKey, EnvSecretKey))
		return credentials{}
	case !keysInConfig && tokenInEnv:
		return credentials{token: os.Getenv(EnvToken)}
	case !keysInConfig && !keysInEnv:
		diags.AddError("Missing provider credentials",
			fmt.Sprintf("The provider needs credentials: a token (token in the provider block, or the %s environment variable), "+
				"or an access key pair (access_key and secret_key, or %s and %s).", EnvToken, EnvAccessKey, EnvSecretKey))
		return credentials{}
	}
	c := credentials{accessKey: settingFrom(cfg.AccessKey, EnvAccessKey), secretKey: settingFrom(cfg.SecretKey, EnvSecretKey)}
	for _, m := range []struct{ name, other, env, value string }{
		{"access_key", "secret_key", EnvAccessKey, c.accessKey},
		{"secret_key", "access_key", EnvSecretKey, c.secretKey},
	} {
		if m.value == "" {
			diags.AddAttributeError(path.Root(m.name), "Missing provider setting "+m.name,
				fmt.Sprintf("The provider needs %s: set it in the provider block or in the %s environment variable. It goes "+
					"with %s; or authenticate with a token instead (token or %s).", m.name, m.env, m.other, EnvToken))
		}
	}
	return c
}

// newProviderData builds the provider data from the settings: the API client (behind the service
// read cache) and, when on, the analytics client. backoff and retry are the tests' knobs.
func newProviderData(s providerSettings, version, terraformVersion string, backoff wait.Backoff, retry *api.RetryPolicy) (*providerData, error) {
	cfgAPI := s.api
	cfgAPI.UserAgent = api.UserAgent(version, terraformVersion)
	s.client.apply(&cfgAPI, retry)
	reads := newReadCache()
	client, err := api.New(reads.config(cfgAPI))
	if err != nil {
		return nil, err
	}
	data := &providerData{client: client, backoff: backoff, reads: reads.of(client)}
	if s.analytics {
		data.analytics = newAnalytics(cfgAPI, version)
	}
	return data, nil
}

// settingFrom returns the configured value, else the environment's.
func settingFrom(v types.String, env string) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	return os.Getenv(env)
}

// pipelineSettings are the provider arguments that tune the client for pipelines. It is embedded
// in providerModel.
type pipelineSettings struct {
	MaxRetries     types.Int64  `tfsdk:"max_retries"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	UserAgent      types.String `tfsdk:"user_agent"`
	OutageTimeout  types.String `tfsdk:"outage_timeout"`
}

// pipelineSettingsAttributes are the schema attributes of pipelineSettings.
func pipelineSettingsAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"max_retries": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("How many times a read or delete answered 500 (a server error that is not an "+
				"outage) is retried. An outage is not counted: answers of 429, 502 and 503, a read or delete answered 504 or "+
				"whose connection failed, and any request that provably never reached the API are retried for as long as the "+
				"operation's time budget lasts (the resource's `timeouts`, else `outage_timeout`). A create or change whose "+
				"answer is lost is never sent again blindly: the provider looks first. `0` turns every retry off, outages and "+
				"429s included. Default %d, at most %d. Environment variable: `%s`.",
				api.DefaultRetryPolicy.MaxRetries, maxMaxRetries, EnvMaxRetries),
		},
		"outage_timeout": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("How long a request that no `timeouts` block bounds rides out an API outage "+
				"(every request answered 503 or 502, or connections failing) before it fails: the reads of a plan (refresh, "+
				"data sources, list resources, `terraform query`), ephemeral resources and the creates and updates of resources without "+
				"`timeouts`. A duration such as `90s` or `10m` (from %s to %s). Creates, updates, deletes and waits of resources "+
				"with `timeouts` ride out an outage until their timeout. An API that has not answered any request of the run "+
				"is not having an outage: a connection refused, an unknown host or a TLS failure before its first answer fails "+
				"within %s (check `base_url`, and that the API is running). A run that rode out an outage ends with a warning "+
				"saying for how long the API was away. Default `%s`. Environment variable: `%s`.",
				minRequestTimeout, maxRequestTimeout, api.DefaultFirstContact, api.DefaultMaxElapsed, EnvOutageTimeout),
		},
		"request_timeout": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: fmt.Sprintf("How long one HTTP request may take, as a duration such as `60s` or `2m` "+
				"(from %s to %s). Waits for a service to become ready are bounded by the resources' `timeouts` instead. "+
				"Default `60s`. Environment variable: `%s`.", minRequestTimeout, maxRequestTimeout, EnvRequestTimeout),
		},
		"user_agent": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Text appended to the User-Agent header, e.g. a pipeline's name, so that API logs can tell " +
				"its requests apart. The User-Agent always names the provider and Terraform versions. " +
				"Environment variable: `" + EnvUserAgent + "`.",
		},
	}
}

// clientSettings are the pipeline settings, read and checked.
type clientSettings struct {
	maxRetries      *int          // nil: the default
	requestTimeout  time.Duration // 0: the default
	outageTimeout   time.Duration // 0: the default
	userAgentSuffix string
}

// readPipelineSettings reads the settings from the configuration, else the environment, and adds an
// error diagnostic naming the argument (or the variable) for each value that is not valid.
func readPipelineSettings(s pipelineSettings, diags *diag.Diagnostics) clientSettings {
	var out clientSettings
	for name, unknown := range map[string]bool{
		"max_retries": s.MaxRetries.IsUnknown(), "request_timeout": s.RequestTimeout.IsUnknown(), "user_agent": s.UserAgent.IsUnknown(),
		"outage_timeout": s.OutageTimeout.IsUnknown(),
	} {
		if unknown {
			diags.AddAttributeError(path.Root(name), "Unknown provider setting",
				fmt.Sprintf("%s depends on a value that is not known until apply. The provider needs it to plan: set it to a known value or use the environment variable.", name))
		}
	}

	switch {
	case !s.MaxRetries.IsNull() && !s.MaxRetries.IsUnknown():
		out.maxRetries = checkMaxRetries(s.MaxRetries.ValueInt64(), "max_retries", diags)
	case strings.TrimSpace(os.Getenv(EnvMaxRetries)) != "":
		v := strings.TrimSpace(os.Getenv(EnvMaxRetries))
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			diags.AddAttributeError(path.Root("max_retries"), "Invalid "+EnvMaxRetries,
				fmt.Sprintf("%s must be a whole number from 0 to %d, got %q.", EnvMaxRetries, maxMaxRetries, v))
			break
		}
		out.maxRetries = checkMaxRetries(n, EnvMaxRetries, diags)
	}

	out.requestTimeout = readDurationSetting(s.RequestTimeout, "request_timeout", EnvRequestTimeout, diags)
	out.outageTimeout = readDurationSetting(s.OutageTimeout, "outage_timeout", EnvOutageTimeout, diags)

	suffix := strings.TrimSpace(settingFrom(s.UserAgent, EnvUserAgent))
	if strings.ContainsAny(suffix, "\r\n\x00") {
		diags.AddAttributeError(path.Root("user_agent"), "Invalid user_agent",
			"user_agent must be a single line of text: it is sent in an HTTP header.")
	} else {
		out.userAgentSuffix = suffix
	}
	return out
}

// readDurationSetting reads a duration setting (from minRequestTimeout to maxRequestTimeout) from the
// configuration, else the environment variable env; 0 when neither sets it or the value is not valid.
func readDurationSetting(v types.String, name, env string, diags *diag.Diagnostics) time.Duration {
	timeout, from := settingFrom(v, env), name
	if v.IsNull() || v.ValueString() == "" {
		from = env
	}
	if timeout = strings.TrimSpace(timeout); timeout == "" {
		return 0
	}
	d, err := time.ParseDuration(timeout)
	switch {
	case err != nil:
		diags.AddAttributeError(path.Root(name), "Invalid "+from,
			fmt.Sprintf("%s must be a duration with a unit, such as \"60s\", \"90s\" or \"2m\", got %q.", from, timeout))
	case d < minRequestTimeout || d > maxRequestTimeout:
		diags.AddAttributeError(path.Root(name), "Invalid "+from,
			fmt.Sprintf("%s must be from %s to %s, got %q.", from, minRequestTimeout, maxRequestTimeout, timeout))
	default:
		return d
	}
	return 0
}

func checkMaxRetries(n int64, from string, diags *diag.Diagnostics) *int {
	if n < 0 || n > maxMaxRetries {
		diags.AddAttributeError(path.Root("max_retries"), "Invalid "+from,
			fmt.Sprintf("%s must be from 0 to %d, got %d.", from, maxMaxRetries, n))
		return nil
	}
	v := int(n)
	return &v
}

// apply sets the settings on an API client configuration; base is the retry policy to start from
// (nil: api.DefaultRetryPolicy).
func (s clientSettings) apply(cfg *api.Config, base *api.RetryPolicy) {
	cfg.UserAgentSuffix = s.userAgentSuffix
	cfg.Timeout = s.requestTimeout
	if s.maxRetries == nil && s.outageTimeout == 0 {
		cfg.Retry = base
		return
	}
	policy := api.DefaultRetryPolicy
	if base != nil {
		policy = *base
	}
	if s.maxRetries != nil {
		policy.MaxRetries = *s.maxRetries
	}
	if s.outageTimeout > 0 {
		policy.MaxElapsed = s.outageTimeout
	}
	cfg.Retry = &policy
}
