package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Default timeouts of dbcloud_service.
const (
	serviceCreateTimeout = 30 * time.Minute
	serviceUpdateTimeout = 30 * time.Minute
	serviceDeleteTimeout = 20 * time.Minute
)

// privateAddonsDerived is the private-state key set when `addons` was derived from service_type (on
// import) rather than taken from configuration. While it is set, a configured addons set that is
// consistent with the service type is adopted in place instead of replacing the service.
const privateAddonsDerived = "addons_derived"

var (
	_ resource.Resource                   = (*serviceResource)(nil)
	_ resource.ResourceWithConfigure      = (*serviceResource)(nil)
	_ resource.ResourceWithImportState    = (*serviceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serviceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serviceResource)(nil)
)

// NewServiceResource is the dbcloud_service resource.
func NewServiceResource() resource.Resource { return &serviceResource{} }

type serviceResource struct {
	pd *providerData
}

type serviceResourceModel struct {
	ID                      types.String   `tfsdk:"id"`
	ProjectID               types.String   `tfsdk:"project_id"`
	Name                    types.String   `tfsdk:"name"`
	Addons                  types.Set      `tfsdk:"addons"`
	RegionCode              types.String   `tfsdk:"region_code"`
	CPUMillis               types.Int64    `tfsdk:"cpu_millis"`
	MemoryGbs               types.Int64    `tfsdk:"memory_gbs"`
	Environment             types.String   `tfsdk:"environment"`
	HAReplicas              types.Int64    `tfsdk:"ha_replicas"`
	SyncReplicas            types.Int64    `tfsdk:"sync_replicas"`
	ConnectionPoolerEnabled types.Bool     `tfsdk:"connection_pooler_enabled"`
	VpcID                   types.String   `tfsdk:"vpc_id"`
	Password                types.String   `tfsdk:"password"`
	PasswordWO              types.String   `tfsdk:"password_wo"`
	PasswordWOVersion       types.Int64    `tfsdk:"password_wo_version"`
	Fork                    types.Object   `tfsdk:"fork"`
	DeletionProtection      types.Bool     `tfsdk:"deletion_protection"`
	Timeouts                timeouts.Value `tfsdk:"timeouts"`

	ServiceType     types.String `tfsdk:"service_type"`
	Status          types.String `tfsdk:"status"`
	Created         types.String `tfsdk:"created"`
	Paused          types.Bool   `tfsdk:"paused"`
	Hostname        types.String `tfsdk:"hostname"`
	Port            types.Int64  `tfsdk:"port"`
	PoolerHostname  types.String `tfsdk:"pooler_hostname"`
	PoolerPort      types.Int64  `tfsdk:"pooler_port"`
	VpcHostname     types.String `tfsdk:"vpc_hostname"`
	VpcPort         types.Int64  `tfsdk:"vpc_port"`
	InitialPassword types.String `tfsdk:"initial_password"`
	ForkedFrom      types.Object `tfsdk:"forked_from"`
	VolumeType      types.String `tfsdk:"volume_type"`
}

type serviceForkModel struct {
	SourceServiceID types.String `tfsdk:"source_service_id"`
	Strategy        types.String `tfsdk:"strategy"`
	TargetTime      types.String `tfsdk:"target_time"`
}

func (r *serviceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service"
}

func (r *serviceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.pd = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *serviceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	useState := stringplanmodifier.UseStateForUnknown()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A hosted PostgreSQL service: plain Postgres, or with the TimescaleDB (`time-series`) and/or " +
			"vector (`ai`) addons.\n\n" +
			"Create waits until the service is `READY` (typically 5-10 minutes on the real service), then applies what the " +
			"create call cannot carry: HA replicas, the connection pooler, the VPC attachment and the password. If any of these " +
			"steps fails, the service stays in state (tainted) and the next apply replaces it; nothing is left orphaned.\n\n" +
			"CPU/memory, HA, pooler, environment, password and VPC changes are applied in place; `name`, `region_code`, " +
			"`addons` and `fork` changes replace the service. Set `deletion_protection = true` to make Terraform refuse to " +
			"destroy or replace it.\n\n" +
			"Import with the service id: `terraform import dbcloud_service.example rp1pz7uyae`. The password, " +
			"`initial_password` and `fork` cannot be read back; `addons` is derived from `service_type` (a service created " +
			"with both addons reports `TIMESERIESDB`, so write `addons` as configured: the provider adopts it without replacing).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Service id (e.g. `rp1pz7uyae`). Also the import ID.",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"project_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Project the service lives in (the provider's `project_id`).",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Service name, 1 to 128 characters. Changing it **replaces** the service.",
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 128)},
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"addons": schema.SetAttribute{
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				MarkdownDescription: "Addons: `time-series` (TimescaleDB, service type `TIMESERIESDB`) and/or `ai` (vector, " +
					"service type `VECTOR`). Default: empty set, plain PostgreSQL (`POSTGRES`). Changing it **replaces** the service " +
					"(except right after an import, when a value consistent with `service_type` is adopted in place).",
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType, []attr.Value{})),
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.OneOf(serviceAddonValues...)),
				},
				PlanModifiers: []planmodifier.Set{
					setplanmodifier.RequiresReplaceIf(addonsRequiresReplaceIf,
						"Changing addons replaces the service, unless it was imported and the new value is consistent with its service_type.",
						"Changing `addons` replaces the service, unless it was imported and the new value is consistent with its `service_type`."),
				},
			},
			"region_code": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Cloud region, e.g. `us-east-1`, `eu-west-1`. Default: the API picks one (shown after create). " +
					"A fork inherits the region of its source. Changing it **replaces** the service.",
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
				PlanModifiers: []planmodifier.String{useState, stringplanmodifier.RequiresReplace()},
			},
			"cpu_millis": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "CPU in thousandths of a core (`1000` = 1 vCPU); set together with `memory_gbs`. The API " +
					"accepts fixed size pairs (e.g. 500/2, 1000/4, 2000/8, 4000/16, ...) and says which when it rejects one. " +
					"Default: the API's default size (1000/4 on the public service; a fork inherits its source's). " +
					"Changes are applied in place (resize); removing it from the configuration keeps the current size.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("memory_gbs")),
				},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"memory_gbs": schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Memory in GB; set together with `cpu_millis`. Changes are applied in place (resize).",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("cpu_millis")),
				},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"environment": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Environment tag: `DEV` or `PROD`. Default: `DEV` (set by the API). Changes are applied in place; " +
					"removing it from the configuration keeps the current value.",
				Validators:    []validator.String{stringvalidator.OneOf(serviceEnvironments...)},
				PlanModifiers: []planmodifier.String{useState},
			},
			"ha_replicas": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Number of high-availability replicas (0 = none). Default: 0 (a fork also starts with 0). " +
					"Changes are applied in place; removing it from the configuration keeps the current value.",
				Validators:    []validator.Int64{int64validator.AtLeast(0)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"sync_replicas": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "How many of the HA replicas are synchronous; at most `ha_replicas`. Default: 0. " +
					"Changes are applied in place; removing it from the configuration keeps the current value (lowering " +
					"`ha_replicas` below it lowers it too).",
				Validators:    []validator.Int64{int64validator.AtLeast(0)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"connection_pooler_enabled": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Whether the connection pooler is on (its endpoint is `pooler_hostname`:`pooler_port`). " +
					"Default: `false`. Changes are applied in place.",
				Default: booldefault.StaticBool(false),
			},
			"vpc_id": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Id of a VPC (in the service's region) to attach the service to; unset = not attached. " +
					"Changes are applied in place: the service is detached from the old VPC before it is attached to the new one. " +
					"A VPC attached outside Terraform shows as a change.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"password": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "Password of the database's admin user, set after create and whenever it changes " +
					"(in place). Stored in state (sensitive); prefer `password_wo`. Conflicts with `password_wo`. " +
					"Removing it leaves the password as it is.",
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("password_wo")),
				},
			},
			"password_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				MarkdownDescription: "Write-only password (Terraform 1.11 or later): sent to the API but never stored in plan or " +
					"state. It is set after create, and again whenever `password_wo_version` changes (in place). " +
					"Conflicts with `password`.",
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("password")),
				},
			},
			"password_wo_version": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Version of `password_wo`: change it (e.g. increment it) to apply a new `password_wo` " +
					"(in place). Requires `password_wo`.",
				Validators: []validator.Int64{int64validator.AlsoRequires(path.MatchRoot("password_wo"))},
			},
			"deletion_protection": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "When `true`, any plan that would destroy or replace the service fails. Set it to `false` " +
					"and apply before destroying. Default: `false`. Terraform-only: not sent to the API.",
				Default: booldefault.StaticBool(false),
			},

			"service_type": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Service type reported by the API, e.g. `POSTGRES`, `TIMESERIESDB` (also spelled " +
					"`TIMESCALEDB`), `VECTOR`; any other string is passed through.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"status": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Status: `READY` after every successful apply; the API also reports `QUEUED`, " +
					"`CONFIGURING`, `UPGRADING`, `UNSTABLE`, `PAUSED`, `DELETING`, ...",
				PlanModifiers: []planmodifier.String{useState},
			},
			"created": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Creation time (RFC 3339, UTC).",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"paused": schema.BoolAttribute{
				Computed:            true,
				MarkdownDescription: "Whether the service is paused.",
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"hostname": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Host name of the database endpoint.",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"port": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Port of the database endpoint.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"pooler_hostname": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Host name of the connection pooler; null while the pooler is off.",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"pooler_port": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Port of the connection pooler; null while the pooler is off.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"vpc_hostname": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Host name of the service inside its VPC; null when not attached.",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"vpc_port": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Port of the service inside its VPC; null when not attached.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"initial_password": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "Password generated at create (only the create/fork answer carries it). Null after import " +
					"or when the create answer was lost; no longer valid once `password`/`password_wo` is set.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"forked_from": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Source of a forked service; null when the service is not a fork.",
				Attributes: map[string]schema.Attribute{
					"project_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Project of the source service."},
					"service_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the source service."},
					"is_standby": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the fork is a standby."},
				},
				PlanModifiers: []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
			},
			"volume_type": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Storage volume type, e.g. `gp3`.",
				PlanModifiers:       []planmodifier.String{useState},
			},
		},
		Blocks: map[string]schema.Block{
			"fork": schema.SingleNestedBlock{
				MarkdownDescription: "Create the service as a fork of another one instead of empty. Type, region and storage " +
					"are inherited; `name`, `cpu_millis`/`memory_gbs` and `environment` apply to the fork. Any change to this " +
					"block **replaces** the service.",
				Attributes: map[string]schema.Attribute{
					"source_service_id": schema.StringAttribute{
						// Required within the block (checked in ValidateConfig): the framework would
						// also demand a Required attribute when the whole block is absent.
						Optional:            true,
						MarkdownDescription: "Id of the service to fork; it must be `READY`. Required in the block.",
						Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
					},
					"strategy": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "`LAST_SNAPSHOT` (default: from the latest snapshot), `NOW` (the current state) or " +
							"`PITR` (point in time: requires `target_time`).",
						Validators: []validator.String{stringvalidator.OneOf(serviceForkStrategies...)},
					},
					"target_time": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "Point in time to fork from, RFC 3339 (e.g. `2025-01-31T12:00:00Z`). Required with " +
							"`strategy = \"PITR\"` and only allowed with it.",
						Validators: []validator.String{rfc3339StringValidator{}},
					},
				},
				PlanModifiers: []planmodifier.Object{
					objectplanmodifier.RequiresReplaceIf(forkRequiresReplaceIf,
						"Changing fork replaces the service, unless the state has no fork block (after import) and the source matches forked_from.",
						"Changing `fork` replaces the service, unless the state has no fork block (after import) and the source matches `forked_from`."),
				},
			},
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true, Update: true, Delete: true,
				CreateDescription: "How long create may take, including waiting for READY and the follow-up steps (a duration such as `45m`). Default `30m`.",
				UpdateDescription: "How long an update may take, including waiting for READY after each change. Default `30m`.",
				DeleteDescription: "How long delete may take, including waiting until the service is gone. Default `20m`.",
			}),
		},
	}
}

// ---- replacement rules (shared by the plan modifiers and ModifyPlan) ----

// addonsReplace decides whether an addons change replaces the service: always, unless the state's
// addons were derived from service_type (import) and the new addons are consistent with it.
func addonsReplace(ctx context.Context, planAddons types.Set, stateServiceType types.String, derived bool) bool {
	if !derived || planAddons.IsUnknown() || stateServiceType.IsNull() || stateServiceType.IsUnknown() {
		return true
	}
	addons, diags := setStrings(ctx, planAddons)
	if diags.HasError() {
		return true
	}
	return !addonsMatchServiceType(addons, stateServiceType.ValueString())
}

// forkReplace decides whether a fork block change replaces the service: always, unless the state has
// no fork block (after import) and the configured source is the service's forked_from.
func forkReplace(planFork, stateFork, stateForkedFrom types.Object) bool {
	if !stateFork.IsNull() || planFork.IsNull() || planFork.IsUnknown() || stateForkedFrom.IsNull() || stateForkedFrom.IsUnknown() {
		return true
	}
	src, ok := planFork.Attributes()["source_service_id"].(types.String)
	from, ok2 := stateForkedFrom.Attributes()["service_id"].(types.String)
	if !ok || !ok2 || src.IsUnknown() || src.IsNull() || from.IsNull() {
		return true
	}
	return src.ValueString() != from.ValueString()
}

func addonsDerived(ctx context.Context, get func(context.Context, string) ([]byte, diag.Diagnostics)) bool {
	b, diags := get(ctx, privateAddonsDerived)
	return !diags.HasError() && len(b) > 0 && string(b) == "true"
}

func addonsRequiresReplaceIf(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
	derived := req.Private != nil && addonsDerived(ctx, req.Private.GetKey)
	var st types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("service_type"), &st)...)
	resp.RequiresReplace = addonsReplace(ctx, req.PlanValue, st, derived)
}

func forkRequiresReplaceIf(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	var ff types.Object
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("forked_from"), &ff)...)
	resp.RequiresReplace = forkReplace(req.PlanValue, req.StateValue, ff)
}

// ---- validation ----

func (r *serviceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg serviceResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if known(cfg.SyncReplicas) && known(cfg.HAReplicas) && cfg.SyncReplicas.ValueInt64() > cfg.HAReplicas.ValueInt64() {
		resp.Diagnostics.AddAttributeError(path.Root("sync_replicas"), "sync_replicas exceeds ha_replicas",
			fmt.Sprintf("sync_replicas (%d) must not exceed ha_replicas (%d): synchronous replicas are a subset of the HA replicas.",
				cfg.SyncReplicas.ValueInt64(), cfg.HAReplicas.ValueInt64()))
	}
	if cfg.Fork.IsNull() || cfg.Fork.IsUnknown() {
		return
	}
	var fork serviceForkModel
	resp.Diagnostics.Append(cfg.Fork.As(ctx, &fork, basetypes.ObjectAsOptions{})...)
	if resp.Diagnostics.HasError() {
		return
	}
	if fork.SourceServiceID.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("fork").AtName("source_service_id"), "Missing fork.source_service_id",
			"The fork block needs source_service_id: the id of the service to fork.")
	}
	if fork.Strategy.IsUnknown() {
		return
	}
	strategy := fork.Strategy.ValueString()
	if fork.Strategy.IsNull() {
		strategy = string(api.LASTSNAPSHOT)
	}
	tt := path.Root("fork").AtName("target_time")
	switch {
	case strategy == string(api.PITR) && fork.TargetTime.IsNull():
		resp.Diagnostics.AddAttributeError(tt, "Missing fork.target_time",
			"fork.target_time is required when fork.strategy is PITR: give the point in time to fork from as an RFC 3339 timestamp.")
	case strategy != string(api.PITR) && !fork.TargetTime.IsNull():
		resp.Diagnostics.AddAttributeError(tt, "fork.target_time needs strategy PITR",
			fmt.Sprintf("fork.target_time is only used with fork.strategy = \"PITR\" (the strategy is %s): remove it or set the strategy to PITR.", strategy))
	}
}

// known reports whether a value is neither null nor unknown.
func known(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// ---- plan ----

func (r *serviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// Create: fill in what is certain, so that the plan shows it.
	if req.State.Raw.IsNull() {
		if req.Plan.Raw.IsNull() {
			return
		}
		var plan serviceResourceModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if resp.Diagnostics.HasError() {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.READY)))...)
		if known(plan.ConnectionPoolerEnabled) && !plan.ConnectionPoolerEnabled.ValueBool() {
			r.setPoolerEndpointsNull(ctx, resp)
		}
		if plan.VpcID.IsNull() {
			r.setVPCEndpointsNull(ctx, resp)
		}
		if plan.Fork.IsNull() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("forked_from"), types.ObjectNull(serviceForkedFromAttrTypes))...)
		}
		return
	}
	// No change at all, the common case of a plan: nothing to check or adjust (and no decoding).
	if !req.Plan.Raw.IsNull() && req.Plan.Raw.Equal(req.State.Raw) {
		return
	}

	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	protected := state.DeletionProtection.ValueBool()

	// Destroy.
	if req.Plan.Raw.IsNull() {
		if protected {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Service is protected against deletion",
				fmt.Sprintf("Service %s (%s) has deletion_protection = true, so Terraform will not destroy it. "+
					"To destroy it, set deletion_protection = false and apply first.", state.ID.ValueString(), state.Name.ValueString()))
		}
		return
	}

	var plan serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// Replacement: the attribute plan modifiers decide it; resp.RequiresReplace does not show their
	// decision here, so the same rules are applied again.
	var replaced []string
	if !plan.Name.Equal(state.Name) {
		replaced = append(replaced, "name")
	}
	if !plan.RegionCode.Equal(state.RegionCode) {
		replaced = append(replaced, "region_code")
	}
	if !plan.Addons.Equal(state.Addons) && addonsReplace(ctx, plan.Addons, state.ServiceType, addonsDerived(ctx, req.Private.GetKey)) {
		replaced = append(replaced, "addons")
	}
	if !plan.Fork.Equal(state.Fork) && forkReplace(plan.Fork, state.Fork, state.ForkedFrom) {
		replaced = append(replaced, "fork")
	}
	if len(replaced) > 0 {
		if protected {
			resp.Diagnostics.AddAttributeError(path.Root("deletion_protection"), "Service is protected against replacement",
				fmt.Sprintf("Changing %s replaces service %s (%s), which destroys it, but it has deletion_protection = true. "+
					"To replace it, set deletion_protection = false and apply first; or undo the change.",
					strings.Join(replaced, ", "), state.ID.ValueString(), state.Name.ValueString()))
		}
		return
	}

	// No change at all: nothing to adjust (a refresh-only difference must not become a diff).
	if req.Plan.Raw.Equal(req.State.Raw) {
		return
	}

	// Update: computed values keep their state value (UseStateForUnknown), except those the update moves.
	if !plan.VpcID.Equal(state.VpcID) {
		if plan.VpcID.IsNull() {
			r.setVPCEndpointsNull(ctx, resp)
		} else {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_hostname"), types.StringUnknown())...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_port"), types.Int64Unknown())...)
		}
	}
	if !plan.ConnectionPoolerEnabled.Equal(state.ConnectionPoolerEnabled) {
		if known(plan.ConnectionPoolerEnabled) && !plan.ConnectionPoolerEnabled.ValueBool() {
			r.setPoolerEndpointsNull(ctx, resp)
		} else {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_hostname"), types.StringUnknown())...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_port"), types.Int64Unknown())...)
		}
	}
	// Lowering ha_replicas below the synchronous count lowers that too, unless it is configured.
	var cfgSync types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("sync_replicas"), &cfgSync)...)
	if cfgSync.IsNull() && !plan.HAReplicas.Equal(state.HAReplicas) &&
		(plan.HAReplicas.IsUnknown() || (known(state.SyncReplicas) && plan.HAReplicas.ValueInt64() < state.SyncReplicas.ValueInt64())) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("sync_replicas"), types.Int64Unknown())...)
	}
	// An update that calls the API ends by waiting for READY.
	if serviceUpdateCallsAPI(plan, state) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.READY)))...)
	}
}

func (r *serviceResource) setVPCEndpointsNull(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_hostname"), types.StringNull())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("vpc_port"), types.Int64Null())...)
}

func (r *serviceResource) setPoolerEndpointsNull(ctx context.Context, resp *resource.ModifyPlanResponse) {
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_hostname"), types.StringNull())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_port"), types.Int64Null())...)
}

// changedKnown reports whether a planned value is known and differs from the state's.
func changedKnown(plan, state attr.Value) bool { return known(plan) && !plan.Equal(state) }

// serviceUpdateCallsAPI reports whether an update from state to plan makes an API call.
func serviceUpdateCallsAPI(plan, state serviceResourceModel) bool {
	return !plan.VpcID.Equal(state.VpcID) ||
		changedKnown(plan.CPUMillis, state.CPUMillis) || changedKnown(plan.MemoryGbs, state.MemoryGbs) ||
		changedKnown(plan.HAReplicas, state.HAReplicas) || changedKnown(plan.SyncReplicas, state.SyncReplicas) ||
		changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled) ||
		changedKnown(plan.Environment, state.Environment) ||
		changedKnown(plan.Password, state.Password) ||
		changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion)
}

// ---- state mapping ----

// applyRecord writes a service record into the model. Inputs the record lacks keep their value;
// computed values the record lacks become null. addons, password*, fork, deletion_protection and
// timeouts are never taken from the API; initial_password only when the record carries it.
func (m *serviceResourceModel) applyRecord(svc *api.Service, projectID string) {
	f := flattenService(svc)
	keep := func(dst *types.String, v types.String) {
		if !v.IsNull() {
			*dst = v
		}
	}
	keepInt := func(dst *types.Int64, v types.Int64) {
		if !v.IsNull() {
			*dst = v
		}
	}
	keep(&m.ID, f.ID)
	m.ProjectID = f.ProjectID
	if m.ProjectID.IsNull() {
		m.ProjectID = types.StringValue(projectID)
	}
	keep(&m.Name, f.Name)
	keep(&m.RegionCode, f.RegionCode)
	keepInt(&m.CPUMillis, f.CPUMillis)
	keepInt(&m.MemoryGbs, f.MemoryGbs)
	keep(&m.Environment, f.Environment)
	keepInt(&m.HAReplicas, f.HAReplicas)
	keepInt(&m.SyncReplicas, f.SyncReplicas)
	m.ConnectionPoolerEnabled = f.PoolerEnabled
	m.VpcID = f.VpcID
	m.ServiceType = f.ServiceType
	m.Status = f.Status
	m.Created = f.Created
	m.Paused = f.Paused
	m.Hostname = f.Hostname
	m.Port = f.Port
	m.PoolerHostname = f.PoolerHostname
	m.PoolerPort = f.PoolerPort
	m.VpcHostname = f.VpcHostname
	m.VpcPort = f.VpcPort
	m.ForkedFrom = f.ForkedFrom
	m.VolumeType = f.VolumeType
	if !f.InitialPassword.IsNull() {
		m.InitialPassword = f.InitialPassword
	}
}

// forState makes the model storable: unknown values become null, write-only values are dropped.
func (m *serviceResourceModel) forState() {
	for _, p := range []*types.String{&m.ID, &m.ProjectID, &m.Name, &m.RegionCode, &m.Environment, &m.VpcID, &m.Password,
		&m.ServiceType, &m.Status, &m.Created, &m.Hostname, &m.PoolerHostname, &m.VpcHostname, &m.InitialPassword, &m.VolumeType} {
		if p.IsUnknown() {
			*p = types.StringNull()
		}
	}
	for _, p := range []*types.Int64{&m.CPUMillis, &m.MemoryGbs, &m.HAReplicas, &m.SyncReplicas, &m.PasswordWOVersion, &m.Port, &m.PoolerPort, &m.VpcPort} {
		if p.IsUnknown() {
			*p = types.Int64Null()
		}
	}
	for _, p := range []*types.Bool{&m.ConnectionPoolerEnabled, &m.DeletionProtection, &m.Paused} {
		if p.IsUnknown() {
			*p = types.BoolNull()
		}
	}
	if m.Addons.IsUnknown() {
		m.Addons = types.SetNull(types.StringType)
	}
	if m.ForkedFrom.IsUnknown() {
		m.ForkedFrom = types.ObjectNull(serviceForkedFromAttrTypes)
	}
	if m.Fork.IsUnknown() {
		m.Fork = types.ObjectNull(serviceForkAttrTypes)
	}
	m.PasswordWO = types.StringNull()
}

// saveProgress records what exists after a failed create or update: the record as the API shows it
// now (best effort), over the model of what was done so far. The caller has added the error.
func (r *serviceResource) saveProgress(ctx context.Context, m serviceResourceModel, state interface {
	Set(context.Context, any) diag.Diagnostics
}, diags *diag.Diagnostics,
) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if svc, err := r.pd.client.GetService(rctx, m.ID.ValueString()); err == nil {
		m.applyRecord(svc, r.pd.client.ProjectID())
	} else {
		tflog.Debug(ctx, "dbcloud: could not read the service to record progress", map[string]any{"error": err.Error()})
	}
	m.forState()
	diags.Append(state.Set(ctx, &m)...)
}

// ---- CRUD ----

func (r *serviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var plan serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	var passwordWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &passwordWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Create(ctx, serviceCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pd := r.pd
	name := plan.Name.ValueString()

	var fork *serviceForkModel
	if !plan.Fork.IsNull() {
		fork = &serviceForkModel{}
		resp.Diagnostics.Append(plan.Fork.As(ctx, fork, basetypes.ObjectAsOptions{})...)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	// 1. Create (or fork). A lost answer is resolved by looking, never by sending it again.
	started := time.Now()
	var (
		svc  *api.Service
		err  error
		sent = true // whether err is the create/fork call's own
	)
	if fork != nil {
		body, berr := forkBody(plan, fork)
		if berr != nil {
			resp.Diagnostics.AddAttributeError(path.Root("fork").AtName("target_time"), "Invalid fork.target_time", berr.Error())
			return
		}
		svc, sent, err = r.forkWhenReady(ctx, fork.SourceServiceID.ValueString(), body)
	} else {
		body, d := createBody(ctx, plan)
		resp.Diagnostics.Append(d...)
		if resp.Diagnostics.HasError() {
			return
		}
		svc, err = pd.client.CreateService(ctx, body)
	}
	adopted := false
	if err != nil && sent && api.IsAmbiguous(err) {
		tflog.Warn(ctx, "dbcloud: the create answer was lost; looking for the service instead of creating it again", map[string]any{"name": name, "error": err.Error()})
		svc, err = findCreatedService(ctx, pd, name, started, err)
		adopted = err == nil
	}
	if err != nil {
		summary := "Could not create service"
		if fork != nil {
			summary = "Could not fork service"
		}
		addError(&resp.Diagnostics, summary, err)
		return
	}
	if deref(svc.ServiceID) == "" {
		resp.Diagnostics.AddError("Could not create service", "The API answered the create without a service_id: the provider cannot track the service. "+
			"Look for a service named "+strconv.Quote(name)+" and import it if it exists.")
		return
	}
	id := *svc.ServiceID
	if adopted {
		resp.Diagnostics.AddWarning("Service adopted after a lost create answer",
			fmt.Sprintf("The API did not answer the create of %q, but exactly one service with this name appeared since the attempt started: %s. "+
				"The provider adopted it instead of creating another. Its initial_password is unknown (null): set password or password_wo to choose one.", name, id))
	}

	// 2. Save the id at once: from here on, any failure leaves the service in state (tainted), never orphaned.
	cur := plan
	cur.applyRecord(svc, pd.client.ProjectID())
	if adopted {
		cur.InitialPassword = types.StringNull()
	}
	cur.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &cur)...)
	if resp.Diagnostics.HasError() {
		return
	}
	fail := func(summary string, err error) {
		addError(&resp.Diagnostics, summary, err)
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
	}

	// 3. Wait for READY, then the steps the create call cannot take.
	ready, err := waitServiceReady(ctx, pd, id, true)
	if err != nil {
		fail("Service created but did not become READY", err)
		return
	}
	if fork != nil {
		if known(plan.RegionCode) && deref(ready.RegionCode) != "" && plan.RegionCode.ValueString() != deref(ready.RegionCode) {
			resp.Diagnostics.AddAttributeError(path.Root("region_code"), "Fork region differs from region_code",
				fmt.Sprintf("A fork inherits the region of its source: service %s is in %s, but region_code is %s. Remove region_code or set it to %s.",
					id, deref(ready.RegionCode), plan.RegionCode.ValueString(), deref(ready.RegionCode)))
			r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
			return
		}
		if addons, _ := setStrings(ctx, plan.Addons); !addonsMatchServiceType(addons, deref(ready.ServiceType)) {
			resp.Diagnostics.AddAttributeWarning(path.Root("addons"), "Fork type differs from addons",
				fmt.Sprintf("A fork inherits the type of its source: service %s is %s, which does not match addons %v. "+
					"Set addons to match the source service.", id, deref(ready.ServiceType), addons))
		}
	}
	if in, ok := haInput(plan, ready); ok {
		if err := changeService(ctx, pd, id, "setting HA replicas", true, func(ctx context.Context) error { return pd.client.SetHA(ctx, id, in) }, haApplied(in)); err != nil {
			fail("Service created but setting HA replicas failed", err)
			return
		}
	}
	poolerOn := ready.ConnectionPooler != nil && ready.ConnectionPooler.Endpoint != nil
	if known(plan.ConnectionPoolerEnabled) && plan.ConnectionPoolerEnabled.ValueBool() != poolerOn {
		if err := r.setPooler(ctx, id, plan.ConnectionPoolerEnabled.ValueBool()); err != nil {
			fail("Service created but changing the connection pooler failed", err)
			return
		}
	}
	if known(plan.VpcID) {
		vpcID := plan.VpcID.ValueString()
		if err := changeService(ctx, pd, id, "attaching to VPC "+vpcID, true, func(ctx context.Context) error { return pd.client.AttachToVPC(ctx, id, vpcID) }, vpcAttached(vpcID)); err != nil {
			fail("Service created but attaching it to the VPC failed", err)
			return
		}
	}
	if pw := firstKnown(plan.Password, passwordWO); pw != "" {
		if err := changeService(ctx, pd, id, "setting the password", false, func(ctx context.Context) error { return pd.client.UpdatePassword(ctx, id, pw) }, nil); err != nil {
			fail("Service created but setting the password failed", err)
			return
		}
	}

	// 4. Final state from the READY record.
	final, err := waitServiceReady(ctx, pd, id, false)
	if err != nil {
		fail("Service created but did not become READY", err)
		return
	}
	out := plan
	out.applyRecord(final, pd.client.ProjectID())
	out.InitialPassword = cur.InitialPassword
	out.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
	pd.analytics.track(ctx, serviceTypeResource, "create")
}

// forkWhenReady forks the source once it is READY (the API refuses with 409 otherwise), and waits
// again and retries after a 409 (which provably did not fork). sent reports whether the error (if
// any) is the fork call's own, so that only a fork call's ambiguous failure is resolved by looking.
func (r *serviceResource) forkWhenReady(ctx context.Context, sourceID string, body api.ForkServiceCreate) (svc *api.Service, sent bool, err error) {
	for attempt := 0; ; attempt++ {
		if _, err := waitServiceReady(ctx, r.pd, sourceID, false); err != nil {
			if api.IsNotFound(err) {
				return nil, false, fmt.Errorf("fork source service %s does not exist: %w", sourceID, err)
			}
			return nil, false, fmt.Errorf("the fork source must be READY: %w", err)
		}
		svc, err := r.pd.client.ForkService(ctx, sourceID, body)
		if err == nil || !api.IsConflict(err) || attempt >= maxServiceConflictRetries || ctx.Err() != nil {
			return svc, true, err
		}
		tflog.Debug(ctx, "dbcloud: fork answered 409; waiting for the source to be READY and trying again",
			map[string]any{"source_service_id": sourceID, "attempt": attempt + 1})
	}
}

// createBody builds the create request from the plan (sizes are strings in this request).
func createBody(ctx context.Context, plan serviceResourceModel) (api.ServiceCreate, diag.Diagnostics) {
	addons, diags := setStrings(ctx, plan.Addons)
	apiAddons := make([]api.Addon, 0, len(addons))
	for _, a := range addons {
		apiAddons = append(apiAddons, api.Addon(a))
	}
	body := api.ServiceCreate{Name: plan.Name.ValueString(), Addons: &apiAddons}
	if known(plan.RegionCode) {
		body.RegionCode = ptr(plan.RegionCode.ValueString())
	}
	if known(plan.HAReplicas) {
		body.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	if known(plan.CPUMillis) && known(plan.MemoryGbs) {
		body.CPUMillis = ptr(strconv.FormatInt(plan.CPUMillis.ValueInt64(), 10))
		body.MemoryGbs = ptr(strconv.FormatInt(plan.MemoryGbs.ValueInt64(), 10))
	}
	if known(plan.Environment) {
		body.EnvironmentTag = ptr(api.Environment(plan.Environment.ValueString()))
	}
	return body, diags
}

// forkBody builds the fork request.
func forkBody(plan serviceResourceModel, fork *serviceForkModel) (api.ForkServiceCreate, error) {
	strategy := api.LASTSNAPSHOT
	if known(fork.Strategy) {
		strategy = api.ForkStrategy(fork.Strategy.ValueString())
	}
	body := api.ForkServiceCreate{Name: ptr(plan.Name.ValueString()), ForkStrategy: strategy}
	if known(fork.TargetTime) {
		t, err := time.Parse(time.RFC3339, fork.TargetTime.ValueString())
		if err != nil {
			return body, fmt.Errorf("fork.target_time %q is not an RFC 3339 timestamp: %w", fork.TargetTime.ValueString(), err)
		}
		body.TargetTime = &t
	}
	if known(plan.CPUMillis) && known(plan.MemoryGbs) {
		body.CPUMillis = ptr(strconv.FormatInt(plan.CPUMillis.ValueInt64(), 10))
		body.MemoryGbs = ptr(strconv.FormatInt(plan.MemoryGbs.ValueInt64(), 10))
	}
	if known(plan.Environment) {
		body.EnvironmentTag = ptr(api.Environment(plan.Environment.ValueString()))
	}
	return body, nil
}

// haInput is the setHA request that brings the record to the planned HA counts, if any is needed.
func haInput(plan serviceResourceModel, svc *api.Service) (api.SetHAInput, bool) {
	var cur api.HAReplicas
	if svc.HaReplicas != nil {
		cur = *svc.HaReplicas
	}
	var in api.SetHAInput
	if known(plan.HAReplicas) && (cur.ReplicaCount == nil || int64(*cur.ReplicaCount) != plan.HAReplicas.ValueInt64()) {
		in.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	if known(plan.SyncReplicas) && (cur.SyncReplicaCount == nil || int64(*cur.SyncReplicaCount) != plan.SyncReplicas.ValueInt64()) {
		in.SyncReplicaCount = ptr(int(plan.SyncReplicas.ValueInt64()))
	}
	return in, in.ReplicaCount != nil || in.SyncReplicaCount != nil
}

// firstKnown returns the first known, non-empty string.
func firstKnown(vals ...types.String) string {
	for _, v := range vals {
		if known(v) && v.ValueString() != "" {
			return v.ValueString()
		}
	}
	return ""
}

func (r *serviceResource) setPooler(ctx context.Context, id string, on bool) error {
	if on {
		return changeService(ctx, r.pd, id, "enabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.EnablePooler(ctx, id) }, poolerIs(true))
	}
	return changeService(ctx, r.pd, id, "disabling the connection pooler", false, func(ctx context.Context) error { return r.pd.client.DisablePooler(ctx, id) }, poolerIs(false))
}

func (r *serviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := state.ID.ValueString()
	svc, err := r.pd.reads.GetService(ctx, r.pd.client, id)
	if api.IsNotFound(err) || (err == nil && serviceIsGone(svc)) {
		tflog.Warn(ctx, "dbcloud: service no longer exists; removing it from state", map[string]any{"service_id": id})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, "Could not read service", err)
		return
	}
	state.applyRecord(svc, r.pd.client.ProjectID())
	if state.Addons.IsNull() || state.Addons.IsUnknown() {
		// Import: the record has only service_type.
		state.Addons = serviceAddonsSet(addonsForServiceType(state.ServiceType.ValueString()))
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, []byte("true"))...)
	}
	if state.DeletionProtection.IsNull() || state.DeletionProtection.IsUnknown() {
		state.DeletionProtection = types.BoolValue(false)
	}
	state.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var plan, state serviceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var passwordWO types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &passwordWO)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := plan.Timeouts.Update(ctx, serviceUpdateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pd := r.pd
	id := state.ID.ValueString()

	// cur is what holds so far: the prior state, with each input updated once its change succeeded.
	cur := state
	cur.Timeouts, cur.DeletionProtection = plan.Timeouts, plan.DeletionProtection
	fail := func(summary string, err error) {
		addError(&resp.Diagnostics, summary, err)
		r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
	}
	called := false

	// 1. VPC: detach from the old one before attaching to the new one.
	if !plan.VpcID.Equal(state.VpcID) {
		if known(state.VpcID) {
			old := state.VpcID.ValueString()
			called = true
			if err := changeService(ctx, pd, id, "detaching from VPC "+old, true, func(ctx context.Context) error { return pd.client.DetachFromVPC(ctx, id, old) }, vpcDetached); err != nil {
				fail("Could not detach the service from its VPC", err)
				return
			}
			cur.VpcID = types.StringNull()
		}
		if known(plan.VpcID) {
			vpcID := plan.VpcID.ValueString()
			called = true
			if err := changeService(ctx, pd, id, "attaching to VPC "+vpcID, true, func(ctx context.Context) error { return pd.client.AttachToVPC(ctx, id, vpcID) }, vpcAttached(vpcID)); err != nil {
				fail("Could not attach the service to the VPC", err)
				return
			}
			cur.VpcID = plan.VpcID
		}
	}

	// 2. Resize.
	if known(plan.CPUMillis) && known(plan.MemoryGbs) && (!plan.CPUMillis.Equal(state.CPUMillis) || !plan.MemoryGbs.Equal(state.MemoryGbs)) {
		cpu, mem := int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64())
		called = true
		if err := changeService(ctx, pd, id, "resizing", true, func(ctx context.Context) error { return pd.client.ResizeService(ctx, id, cpu, mem) }, resized(cpu, mem)); err != nil {
			fail("Could not resize the service", err)
			return
		}
		cur.CPUMillis, cur.MemoryGbs = plan.CPUMillis, plan.MemoryGbs
	}

	// 3. HA replicas.
	var ha api.SetHAInput
	if changedKnown(plan.HAReplicas, state.HAReplicas) {
		ha.ReplicaCount = ptr(int(plan.HAReplicas.ValueInt64()))
	}
	if changedKnown(plan.SyncReplicas, state.SyncReplicas) {
		ha.SyncReplicaCount = ptr(int(plan.SyncReplicas.ValueInt64()))
	}
	if ha.ReplicaCount != nil || ha.SyncReplicaCount != nil {
		called = true
		if err := changeService(ctx, pd, id, "setting HA replicas", true, func(ctx context.Context) error { return pd.client.SetHA(ctx, id, ha) }, haApplied(ha)); err != nil {
			fail("Could not change the HA replicas", err)
			return
		}
	}

	// 4. Connection pooler.
	if changedKnown(plan.ConnectionPoolerEnabled, state.ConnectionPoolerEnabled) {
		called = true
		if err := r.setPooler(ctx, id, plan.ConnectionPoolerEnabled.ValueBool()); err != nil {
			fail("Could not change the connection pooler", err)
			return
		}
	}

	// 5. Environment.
	if changedKnown(plan.Environment, state.Environment) {
		env := api.Environment(plan.Environment.ValueString())
		called = true
		if err := changeService(ctx, pd, id, "setting the environment", false, func(ctx context.Context) error { return pd.client.SetEnvironment(ctx, id, env) }, environmentIs(env)); err != nil {
			fail("Could not change the environment", err)
			return
		}
	}

	// 6. Password: a new password, or a new password_wo_version.
	pw := ""
	switch {
	case changedKnown(plan.PasswordWOVersion, state.PasswordWOVersion):
		if !known(passwordWO) || passwordWO.ValueString() == "" {
			resp.Diagnostics.AddAttributeError(path.Root("password_wo"), "Missing password_wo",
				"password_wo_version changed but password_wo is not set: set password_wo to the new password.")
			r.saveProgress(ctx, cur, &resp.State, &resp.Diagnostics)
			return
		}
		pw = passwordWO.ValueString()
	case changedKnown(plan.Password, state.Password):
		pw = plan.Password.ValueString()
	}
	if pw != "" {
		called = true
		if err := changeService(ctx, pd, id, "setting the password", false, func(ctx context.Context) error { return pd.client.UpdatePassword(ctx, id, pw) }, nil); err != nil {
			fail("Could not change the password", err)
			return
		}
	}

	// 7. Final state. After API calls, wait for READY (the plan says READY); otherwise just read.
	var (
		svc *api.Service
		err error
	)
	if called {
		svc, err = waitServiceReady(ctx, pd, id, false)
	} else {
		svc, err = pd.client.GetService(ctx, id)
	}
	if err != nil {
		fail("Could not read the service after the update", err)
		return
	}
	out := plan
	out.applyRecord(svc, pd.client.ProjectID())
	if known(plan.Status) {
		// The plan promised this status (READY after API calls, else the state's): the next refresh shows any later change.
		out.Status = plan.Status
	}
	out.InitialPassword = state.InitialPassword
	out.forState()
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
	if !plan.Addons.Equal(state.Addons) {
		// The configured addons were adopted: they are no longer derived.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, nil)...)
	}
	pd.analytics.track(ctx, serviceTypeResource, "update")
}

func (r *serviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if r.pd == nil {
		resp.Diagnostics.AddError("Provider not configured", "The dbcloud provider was not configured: this is a bug in the provider.")
		return
	}
	var state serviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, diags := state.Timeouts.Delete(ctx, serviceDeleteTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pd := r.pd
	id := state.ID.ValueString()

	for attempt := 0; ; attempt++ {
		err := pd.client.DeleteService(ctx, id)
		if err == nil || api.IsNotFound(err) {
			break
		}
		if api.IsConflict(err) && attempt < maxServiceConflictRetries && ctx.Err() == nil {
			// Busy: wait until the operation under way is over, then try again.
			if _, werr := waitServiceReady(ctx, pd, id, false); werr != nil && !api.IsNotFound(werr) {
				addError(&resp.Diagnostics, "Could not delete service", fmt.Errorf("%w (and waiting for the service to become READY to try again: %w)", err, werr))
				return
			}
			continue
		}
		addError(&resp.Diagnostics, "Could not delete service", err)
		return
	}
	if err := waitServiceGone(ctx, pd, id); err != nil {
		addError(&resp.Diagnostics, "Service deletion did not finish", err)
		return
	}
	pd.analytics.track(ctx, serviceTypeResource, "delete")
}

func (r *serviceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := strings.TrimSpace(req.ID)
	if id == "" || strings.Contains(id, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Import a service by its id, e.g. rp1pz7uyae; got %q.", req.ID))
		return
	}
	// Everything else, timeouts included, starts null; Read fills in what the API knows.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
