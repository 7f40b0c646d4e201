package provider

// dbcloud_service: the schema and the values its attributes accept.

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func (r *serviceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	useState := stringplanmodifier.UseStateForUnknown()
	resp.Schema = schema.Schema{
		MarkdownDescription: "A hosted PostgreSQL service: plain Postgres, or with the TimescaleDB (`time-series`) and/or " +
			"vector (`ai`) addons.\n\n" +
			"Create waits until the service is `READY` (typically 5-10 minutes on the real service), then applies what the " +
			"create call cannot carry: HA replicas, the connection pooler, the VPC attachment, the password and `paused`. If any " +
			"of these steps fails, the service stays in state (tainted) and the next apply replaces it; nothing is left orphaned. " +
			"If the apply is interrupted (Ctrl-C) while create waits, the service stays in state untainted with a warning, and " +
			"the next apply resumes the wait and the remaining steps; a create that runs out of its `timeouts.create` fails and " +
			"taints the service (the next apply replaces it, or `terraform untaint` keeps it once it is ready).\n\n" +
			serviceInPlaceSentence() + " **Replace:** `region_code`, " + // from serviceChanges
			"`addons` and `fork`: a replacement deletes the service and its data, so a plan that would replace an existing " +
			"service fails unless `allow_replacement = true` (then it warns); a typo such as `region_code = \"us-east-9\"` " +
			"never deletes a service.\n\n" +
			"**Removing an optional argument** from the configuration never changes or replaces anything: the service keeps " +
			"what it has (at create, an absent argument gets the API's default). Exceptions, because absence is their only " +
			"way to say \"none\": removing `vpc_id` detaches the service; removing `deletion_protection` sets it to `false` " +
			"(it is a Terraform-only switch, not a setting of the service); removing `password` keeps the password as it is.\n\n" +
			"A paused service (`paused = true`, or stopped outside Terraform) accepts no change but `paused`, `deletion_protection`, " +
			"`allow_replacement` and `timeouts`: a plan that changes anything else fails and says to set `paused = false` (then the service is started " +
			"first, and the changes are applied). Set `deletion_protection = true` to make Terraform refuse to destroy or replace it.\n\n" +
			"Import with the service id: `terraform import dbcloud_service.example rp1pz7uyae`. The password, " +
			"`initial_password` and `fork` cannot be read back; `addons` is derived from `service_type` (a service created " +
			"with both addons reports `TIMESCALEDB`, so write `addons` as configured: the provider adopts it without replacing).",
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
				Required: true,
				MarkdownDescription: "Service name, 1 to 128 characters (counted in characters, not bytes). Changes are " +
					"applied **in place** (rename); the service, its id and its data stay.",
				Validators: []validator.String{stringvalidator.UTF8LengthBetween(1, 128)},
			},
			"addons": schema.SetAttribute{
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				MarkdownDescription: "Addons: `time-series` (TimescaleDB, service type `TIMESCALEDB`) and/or `ai` (vector; " +
					"service type `POSTGRES` or, on older servers, `VECTOR`). Absent at create: empty set, plain PostgreSQL " +
					"(`POSTGRES`). Changing it **replaces** the service (refused at plan unless `allow_replacement = true`; except " +
					"right after an import, when a value consistent with `service_type` is adopted in place); removing it from the configuration keeps the service as it is.",
				Validators: []validator.Set{
					setvalidator.ValueStringsAre(stringvalidator.OneOf(serviceAddonValues...)),
				},
				PlanModifiers: []planmodifier.Set{
					setplanmodifier.UseStateForUnknown(), // replacement: serviceReplacements (service_plan.go)
				},
			},
			"region_code": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Cloud region, e.g. `us-east-1`, `eu-west-1`: lower-case words and a number joined by hyphens, " +
					"checked at plan time (which regions exist is the API's to say). Default: the API picks one (shown after create). " +
					"A fork inherits the region of its source. Changing it **replaces** the service (refused at plan unless " +
					"`allow_replacement = true`); removing it from the configuration keeps the service where it is.",
				Validators:    []validator.String{regionCode()},
				PlanModifiers: []planmodifier.String{useState}, // replacement: serviceReplacements (service_plan.go)
			},
			"cpu_millis": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "CPU in thousandths of a core (`1000` = 1 vCPU); set together with `memory_gbs`. The API " +
					"accepts fixed size pairs (e.g. 500/2, 1000/4, 2000/8, 4000/16, ...) and says which when it rejects one. " +
					"Default: the API's default size (1000/4 on the public service; a fork inherits its source's). " +
					"Changes are applied in place (resize); removing it from the configuration keeps the current size. Null for a " +
					"shared-size service.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRoot("memory_gbs")),
				},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"memory_gbs": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Memory in GB; set together with `cpu_millis`. Changes are applied in place (resize); " +
					"removing it from the configuration keeps the current size. Null for a shared-size service.",
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
				MarkdownDescription: "How many of the HA replicas are synchronous; at most `ha_replicas`, and only together " +
					"with `ha_replicas`. Default: 0. Changes are applied in place; removing it from the configuration keeps the " +
					"current value (lowering `ha_replicas` below it lowers it too).",
				Validators: []validator.Int64{
					int64validator.AtLeast(0),
					int64validator.AlsoRequires(path.MatchRoot("ha_replicas")),
					int64validator.AtMostSumOf(path.MatchRoot("ha_replicas")),
				},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"connection_pooler_enabled": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Whether the connection pooler is on (its endpoint is `pooler_hostname`:`pooler_port`). " +
					"Absent at create: `false` (off). Changes are applied in place; removing it from the configuration keeps the " +
					"pooler as it is.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"vpc_id": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Id of a VPC (in the service's region) to attach the service to; unset = not attached. " +
					"Changes are applied in place: the service is detached from the old VPC before it is attached to the new one. " +
					"A VPC attached outside Terraform shows as a change. VPC ids are decimal strings such as `1234567890`. " +
					"Removing it from the configuration detaches the service (absence is the only way to say \"not attached\").",
				Validators: []validator.String{decimalID("VPC")},
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
					preferWriteOnly(path.MatchRoot("password_wo")),
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
					"and apply before destroying. Default: `false`. Terraform-only: not sent to the API, so removing it from the " +
					"configuration sets it back to `false` (an update of the state alone, no API call).",
				Default: booldefault.StaticBool(false),
			},
			"allow_replacement": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Whether a change that **replaces** the service (`region_code`, `addons`, `fork`) may be " +
					"planned. A replacement deletes the service, and every database, table and row in it, before it creates a new, " +
					"empty one; if the API then refuses the new value (a region it does not offer), nothing is left. So unless " +
					"this is `true`, a plan that would replace an existing service fails, naming the attribute and its old and new " +
					"value, and nothing is deleted. With `true`, such a plan goes through and warns that the service and its data " +
					"will be deleted; add `lifecycle { create_before_destroy = true }` so that the new service is created before " +
					"the old one is deleted (a value the API refuses then deletes nothing), and set it back to `false` (or remove " +
					"it) after the replacement. Default: `false` (absent). " +
					"Terraform-only: not sent to the API. `terraform apply -replace=...` and a tainted service are replaced without it: " +
					"those are asked for explicitly.",
			},

			"service_type": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Service type reported by the API: `TIMESCALEDB` or `POSTGRES` (`VECTOR` on older " +
					"servers; the old spelling `TIMESERIESDB` is accepted too); any other string is passed through.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"status": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Status: `READY` after every successful apply (`PAUSED` when `paused = true`); the API " +
					"also reports `QUEUED`, `CONFIGURING`, `UPGRADING`, `UNSTABLE`, `PAUSING`, `RESUMING`, `DELETING`, ... A " +
					"status other than `READY`/`PAUSED` in state (an interrupted apply) plans an update that waits for it.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"created": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Creation time (RFC 3339, UTC).",
				PlanModifiers:       []planmodifier.String{useState},
			},
			"paused": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Whether the service is paused (stopped: it keeps its data and costs less). `true` stops " +
					"the service and waits for `PAUSED`; `false` starts it and waits for `READY`. Changes are applied in place. " +
					"Absent at create: `false` (running; with `true` the service is created, waits for `READY`, then is stopped). " +
					"Removing it from the configuration keeps the service as it is; a service paused outside Terraform shows as " +
					"a change only when the configuration says `paused = false`.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
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
			"connection_uri": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Connection string of the database endpoint, the vendor's form without a password: " +
					"`postgresql://tsdbadmin@<hostname>:<port>/tsdb?sslmode=require`. Not sensitive. Add the password with " +
					"`provider::dbcloud::with_password(uri, password)`. Null while the service has no endpoint.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"pooler_connection_uri": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Connection string of the connection pooler (PgBouncer in front of the service: same role, " +
					"database and TLS), in the form of `connection_uri`; null while the pooler is off.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"read_only_connection_uri": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: readOnlyConnectionURIDescription,
				PlanModifiers:       []planmodifier.String{useState},
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
				MarkdownDescription: "Password generated at create (only the create/fork answer carries it). Null after import, " +
					"when the create answer was lost, and once the configuration sets the password (`password`, or `password_wo` with " +
					"`password_wo_version`): then it no longer logs in, and no password is kept in state.",
				PlanModifiers: []planmodifier.String{useState},
			},
			"forked_from": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Source of a forked service; null when the service is not a fork.",
				Attributes: map[string]schema.Attribute{
					"project_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Project of the source service."},
					"service_id": schema.StringAttribute{Computed: true, MarkdownDescription: "Id of the source service."},
					"is_standby": schema.BoolAttribute{Computed: true, MarkdownDescription: "Always `false` here: a record with `is_standby = true` is a read replica set's standby, which this resource refuses to import or refresh (manage it as a `dbcloud_read_replica_set`)."},
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
					"block **replaces** the service (refused at plan unless `allow_replacement = true`).",
				Attributes: map[string]schema.Attribute{
					"source_service_id": schema.StringAttribute{
						// Required within the block (checked in ValidateConfig): the framework would
						// also demand a Required attribute when the whole block is absent.
						Optional:            true,
						MarkdownDescription: "Id of the service to fork (10 lower-case letters and digits); it must be `READY`. Required in the block.",
						Validators:          []validator.String{serviceID()},
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

func (r *serviceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "The service id.",
			},
			identityProjectID: identityschema.StringAttribute{
				OptionalForImport: true,
				Description:       "The project the service lives in. When given on import, it must be the provider's project_id.",
			},
		},
	}
}
