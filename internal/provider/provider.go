// Package provider implements the dbcloud Terraform provider with terraform-plugin-framework.
package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Environment variables the provider falls back to.
const (
	EnvBaseURL   = "DBCLOUD_BASE_URL"
	EnvAccessKey = "DBCLOUD_ACCESS_KEY"
	EnvSecretKey = "DBCLOUD_SECRET_KEY"
	EnvProjectID = "DBCLOUD_PROJECT_ID"
	EnvAnalytics = "DBCLOUD_ANALYTICS"
)

var (
	_ provider.Provider              = (*dbcloudProvider)(nil)
	_ provider.ProviderWithFunctions = (*dbcloudProvider)(nil)
	_ provider.ProviderWithActions   = (*dbcloudProvider)(nil)

	_ provider.ProviderWithEphemeralResources = (*dbcloudProvider)(nil)
)

// options are knobs for tests: the production provider uses the defaults.
type options struct {
	backoff  wait.Backoff
	apiRetry *api.RetryPolicy
}

type dbcloudProvider struct {
	version string
	opts    options
}

// New returns the provider factory used by main and by tests.
func New(version string) func() provider.Provider {
	return newWithOptions(version, options{backoff: wait.DefaultBackoff})
}

func newWithOptions(version string, opts options) func() provider.Provider {
	return func() provider.Provider { return &dbcloudProvider{version: version, opts: opts} }
}

type providerModel struct {
	BaseURL   types.String `tfsdk:"base_url"`
	AccessKey types.String `tfsdk:"access_key"`
	SecretKey types.String `tfsdk:"secret_key"`
	ProjectID types.String `tfsdk:"project_id"`
	Analytics types.Bool   `tfsdk:"analytics"`
	pipelineSettings
}

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client    *api.Client
	analytics *analytics
	backoff   wait.Backoff
	reads     *serviceReadCache // serves service Reads from one shared list (refresh_cache.go)
}

func (p *dbcloudProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "dbcloud"
	resp.Version = p.version
}

func (p *dbcloudProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The dbcloud provider manages hosted PostgreSQL services (with the TimescaleDB `time-series` " +
			"and vector `ai` addons), read replica sets, VPCs and VPC peerings through the dbcloud REST API (v1).\n\n" +
			"Every argument can also come from an environment variable; a value in the configuration wins.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "API root URL including the version segment, e.g. `https://api.example.com/v1`. " +
					"Plain `http://` is accepted only for loopback hosts (`localhost`, `127.0.0.1`, `[::1]`), so that " +
					"credentials never cross a network unencrypted. Environment variable: `" + EnvBaseURL + "`. Required.",
			},
			"access_key": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "Access key (the user part of HTTP Basic auth). Environment variable: `" + EnvAccessKey + "`. Required.",
			},
			"secret_key": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "Secret key (the password part of HTTP Basic auth). Never logged. Environment variable: `" + EnvSecretKey + "`. Required.",
			},
			"project_id": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Project that every resource and data source of this provider lives in. Environment variable: `" + EnvProjectID + "`. Required.",
			},
			"analytics": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Send anonymous usage analytics to the API: one identify call, then one event per create, " +
					"update and delete, carrying only the resource type, the action and the provider version (no names, no ids, " +
					"no secrets). Best effort: a failed analytics call never fails an operation. Default `false`. " +
					"Environment variable: `" + EnvAnalytics + "`.",
			},
		},
	}
	maps.Copy(resp.Schema.Attributes, pipelineSettingsAttributes())
}

// settingFrom returns the configured value, else the environment's.
func settingFrom(v types.String, env string) string {
	if !v.IsNull() && !v.IsUnknown() && v.ValueString() != "" {
		return v.ValueString()
	}
	return os.Getenv(env)
}

func (p *dbcloudProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for name, v := range map[string]types.String{"base_url": cfg.BaseURL, "access_key": cfg.AccessKey, "secret_key": cfg.SecretKey, "project_id": cfg.ProjectID} {
		if v.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Unknown provider setting",
				fmt.Sprintf("%s depends on a value that is not known until apply. The provider needs it to plan: set it to a known value or use the environment variable.", name))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}

	baseURL := settingFrom(cfg.BaseURL, EnvBaseURL)
	accessKey := settingFrom(cfg.AccessKey, EnvAccessKey)
	secretKey := settingFrom(cfg.SecretKey, EnvSecretKey)
	projectID := settingFrom(cfg.ProjectID, EnvProjectID)
	for _, m := range []struct{ name, env, value string }{
		{"base_url", EnvBaseURL, baseURL},
		{"access_key", EnvAccessKey, accessKey},
		{"secret_key", EnvSecretKey, secretKey},
		{"project_id", EnvProjectID, projectID},
	} {
		if m.value == "" {
			resp.Diagnostics.AddAttributeError(path.Root(m.name), "Missing provider setting "+m.name,
				fmt.Sprintf("The provider needs %s: set it in the provider block or in the %s environment variable.", m.name, m.env))
		}
	}
	if baseURL != "" {
		if _, err := api.ValidateBaseURL(baseURL); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Invalid base_url", err.Error())
		}
	}

	analyticsOn := false
	switch {
	case !cfg.Analytics.IsNull() && !cfg.Analytics.IsUnknown():
		analyticsOn = cfg.Analytics.ValueBool()
	case os.Getenv(EnvAnalytics) != "":
		b, err := strconv.ParseBool(os.Getenv(EnvAnalytics))
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("analytics"), "Invalid "+EnvAnalytics,
				fmt.Sprintf("%s must be true or false, got %q.", EnvAnalytics, os.Getenv(EnvAnalytics)))
		}
		analyticsOn = b
	}
	settings := readPipelineSettings(cfg.pipelineSettings, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	ctx = tflog.MaskAllFieldValuesStrings(ctx, secretKey)
	ctx = tflog.MaskMessageStrings(ctx, secretKey)
	cfgAPI := api.Config{
		BaseURL: baseURL, AccessKey: accessKey, SecretKey: secretKey, ProjectID: projectID,
		UserAgent: api.UserAgent(p.version, req.TerraformVersion),
	}
	settings.apply(&cfgAPI, p.opts.apiRetry)
	reads := newServiceReadCache()
	client, err := api.New(reads.config(cfgAPI))
	if err != nil {
		resp.Diagnostics.AddError("Could not create the dbcloud API client", err.Error())
		return
	}
	data := &providerData{client: client, backoff: p.opts.backoff, reads: reads}
	if analyticsOn {
		data.analytics = newAnalytics(cfgAPI, p.version)
	}
	tflog.Debug(ctx, "dbcloud provider configured", map[string]any{"base_url": baseURL, "project_id": projectID, "analytics": analyticsOn})
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
	resp.EphemeralResourceData = data
}

func (p *dbcloudProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewServiceResource,
		NewReadReplicaSetResource,
		NewVPCResource,
		NewVPCPeeringResource,
	}
}

func (p *dbcloudProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewServiceDataSource,
		NewServicesDataSource,
		NewReadReplicaSetDataSource,
		NewReadReplicaSetsDataSource,
		NewVPCDataSource,
		NewVPCsDataSource,
		NewVPCPeeringDataSource,
		NewVPCPeeringsDataSource,
		NewProjectsDataSource,
	}
}

func (p *dbcloudProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewWithPasswordFunction,
	}
}

func (p *dbcloudProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewServiceCredentialsEphemeralResource}
}

func (p *dbcloudProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		NewServiceRestartAction,
		NewServicePauseAction,
		NewServiceResumeAction,
	}
}
