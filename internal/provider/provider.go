// Package provider implements the dbcloud Terraform provider with terraform-plugin-framework.
package provider

// The registry: the provider's schema and Configure, and every resource, data source, list resource,
// action and function it serves. What they share lives below them: the provider data in
// provider_data.go, the settings in provider_settings.go.

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

var (
	_ provider.Provider                       = (*dbcloudProvider)(nil)
	_ provider.ProviderWithFunctions          = (*dbcloudProvider)(nil)
	_ provider.ProviderWithActions            = (*dbcloudProvider)(nil)
	_ provider.ProviderWithListResources      = (*dbcloudProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*dbcloudProvider)(nil)
	_ provider.ProviderWithConfigValidators   = (*dbcloudProvider)(nil)
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
				MarkdownDescription: "API root URL including the version segment, e.g. `https://api.example.com/v1` (a URL " +
					"without the `/v1` segment is refused at plan, with the URL it should be). If the API has not answered any " +
					"request of a run, a connection refused, an unknown host or a TLS failure fails within " + api.DefaultFirstContact.String() +
					" with the URL tried, instead of being waited out as an outage: check this URL and that the API is running. " +
					"Plain `http://` is accepted only for loopback hosts (`localhost`, `127.0.0.1`, `[::1]`), so that " +
					"credentials never cross a network unencrypted. Environment variable: `" + EnvBaseURL + "`. Required.",
			},
			"access_key": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "Access key (the user part of HTTP Basic auth). Environment variable: `" + EnvAccessKey + "`. " +
					"Required with `secret_key`, unless `token` is set.",
			},
			"secret_key": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "Secret key (the password part of HTTP Basic auth). Never logged. Environment variable: `" + EnvSecretKey + "`. " +
					"Required with `access_key`, unless `token` is set.",
			},
			"token": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "A token (JWT) sent as `Authorization: Bearer`, instead of `access_key` and `secret_key`: the " +
					"token of a user who logged in, or one minted from an access key by a client-credentials exchange. Never " +
					"logged. Tokens expire: a run that outlives its token fails with an error that says so (nothing is retried " +
					"with it), and the next run with a new token continues from the state. Set either `token` or the key pair, " +
					"not both; a scheme set in the provider block wins over the other scheme's environment variables. " +
					"Environment variable: `" + EnvToken + "`.",
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

// ConfigValidators refuse both ways to authenticate in the provider block, at validate and plan
// (the environment's are checked in Configure: readCredentials).
func (p *dbcloudProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{
		providervalidator.Conflicting(path.MatchRoot("token"), path.MatchRoot("access_key")),
		providervalidator.Conflicting(path.MatchRoot("token"), path.MatchRoot("secret_key")),
	}
}

// Configure reads the provider's settings (provider_settings.go) and hands every resource, data
// source, list resource and action the provider data (provider_data.go).
func (p *dbcloudProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings, ok := readProviderSettings(cfg, &resp.Diagnostics)
	if !ok {
		return
	}
	data, err := newProviderData(settings, p.version, req.TerraformVersion, p.opts.backoff, p.opts.apiRetry)
	if err != nil {
		resp.Diagnostics.AddError("Could not create the dbcloud API client", err.Error())
		return
	}
	for _, secret := range []string{settings.api.SecretKey, settings.api.Token} {
		if secret != "" {
			ctx = tflog.MaskAllFieldValuesStrings(ctx, secret)
			ctx = tflog.MaskMessageStrings(ctx, secret)
		}
	}
	tflog.Debug(ctx, "dbcloud provider configured", map[string]any{
		"base_url": settings.api.BaseURL, "project_id": settings.api.ProjectID, "analytics": settings.analytics, "bearer_token": settings.api.Token != "",
	})
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
		NewServiceLogsDataSource,
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
		NewServiceForkAction,
	}
}

func (p *dbcloudProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewServiceListResource,
		NewReadReplicaSetListResource,
		NewVPCListResource,
		NewVPCPeeringListResource,
	}
}
