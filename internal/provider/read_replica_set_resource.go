package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Default timeouts of dbcloud_read_replica_set.
const (
	replicaSetCreateTimeout = 30 * time.Minute
	replicaSetUpdateTimeout = 30 * time.Minute
	replicaSetDeleteTimeout = 20 * time.Minute
)

var (
	_ resource.ResourceWithImportState = (*readReplicaSetResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*readReplicaSetResource)(nil)

	_ lostCreateFinder[readReplicaSetModel, api.ReadReplicaSet] = (*readReplicaSetResource)(nil) // findCreated and createdID: its one lookup of a lost create (placeholder.go)
)

// NewReadReplicaSetResource is the dbcloud_read_replica_set resource.
func NewReadReplicaSetResource() resource.Resource {
	return manageResource(&readReplicaSetResource{resourceBase{typeName: replicaSetTypeName}})
}

type readReplicaSetResource struct{ resourceBase }

func (r *readReplicaSetResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A read replica set of a `dbcloud_service`: one or more read-only nodes with their own endpoint " +
			"(and optionally their own connection pooler).\n\n" +
			"Creating a set needs the parent service to be `READY`: while the service is busy (being created, resized, " +
			"attached to a VPC...) the provider waits instead of failing. Creation waits until the set is `active`; a set " +
			"that ends in status `error` fails the apply (Terraform keeps it as tainted and replaces it on the next apply).\n\n" +
			"**In place:** `cpu_millis` and `memory_gbs` (one resize call, then a wait until the set is `active` again), " +
			"`connection_pooler_enabled` and `environment`. **Replacement:** `service_id`, `name` and `nodes` (the API fixes " +
			"a set's node count at create: its resize call cannot change it, so a new `nodes` value destroys the set and " +
			"creates a new one). Deletion waits until the set is gone.\n\n" +
			"**Removing an optional argument** (`nodes`, `environment`, `connection_pooler_enabled`) from the configuration " +
			"never changes or replaces anything: the set keeps the value it has. At create, an absent argument takes the " +
			"documented default.\n\n" +
			"**Interrupted applies:** when the apply is interrupted (Ctrl-C) while a new set is still `creating`, the set is " +
			"kept in state with its id and a warning (it is not tainted); the next plan shows an update of `status` to " +
			"`active` and the next apply waits for it, without a second create. When the `create` timeout runs out instead, " +
			"the apply fails and Terraform taints the set: the next apply replaces it (raise `timeouts.create` to avoid that).\n\n" +
			"Import with `terraform import dbcloud_read_replica_set.example <service_id>/<replica_set_id>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The replica set id assigned by the API (10 lower-case letters and digits).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"service_id": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Id of the parent service, usually `dbcloud_service.<name>.id`. " +
					"Changing it replaces the replica set (a set cannot move between services).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{serviceID()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the replica set, 1 to 128 characters. The API cannot rename a set: changing it replaces the set.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:          []validator.String{stringvalidator.UTF8LengthBetween(1, 128)},
			},
			"nodes": schema.Int64Attribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Number of replica nodes, at least 1; `1` when not set at create. The API fixes the node " +
					"count at create: **changing it replaces the set** (destroy, then create). Removing the argument keeps the " +
					"set's node count.",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
				PlanModifiers: []planmodifier.Int64{
					int64planmodifier.UseStateForUnknown(),
					int64planmodifier.RequiresReplace(),
				},
			},
			"cpu_millis": schema.Int64Attribute{
				Required: true,
				MarkdownDescription: "CPU of each node in milli-cores (`1000` = 1 vCPU). Must form one of the sizes the API " +
					"offers together with `memory_gbs` (e.g. `500`/`2`, `1000`/`4`, `2000`/`8`); the API validates the pair. " +
					"Changes in place (resize; the set keeps its id and endpoint).",
				Validators: []validator.Int64{int64validator.AtLeast(1)},
			},
			"memory_gbs": schema.Int64Attribute{
				Required:            true,
				MarkdownDescription: "Memory of each node in GB, paired with `cpu_millis` (see there). Changes in place (resize).",
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"environment": schema.StringAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Environment tag: `DEV` or `PROD`. When not set, the API's value is kept (new sets " +
					"start as `DEV`). Changes in place; removing the argument keeps the set's tag.",
				Validators:    []validator.String{stringvalidator.OneOf(string(api.DEV), string(api.PROD))},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"connection_pooler_enabled": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				MarkdownDescription: "Whether the set has its own connection pooler (`pooler_hostname`/`pooler_port`). " +
					"New sets start without one. Changes in place. Removing the argument keeps the pooler as it is.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"status": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Status reported by the API: `creating`, `active`, `resizing`, `deleting` or `error` " +
					"(other values are passed through). After a successful apply it is `active`. A set left `creating` or " +
					"`resizing` by an interrupted apply plans an update to `active`: the next apply waits for it.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"hostname": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Host name of the replica set's read-only endpoint.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"port": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "TCP port of the replica set's read-only endpoint.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
			"connection_uri": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Connection string of the replica set's endpoint: the primary's role and database, no password " +
					"(`postgresql://tsdbadmin@<hostname>:<port>/tsdb?sslmode=require`). Use the primary service's password with " +
					"`provider::dbcloud::with_password`. The endpoint is read-only by nature (a hot standby): reads work, every write " +
					"fails (SQLSTATE 25006), and clients that open read-write transactions (such as the PostgreSQL Terraform " +
					"provider) cannot use it at all.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"pooler_hostname": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Host name of the replica set's connection pooler; null while the pooler is disabled.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"pooler_port": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "TCP port of the replica set's connection pooler; null while the pooler is disabled.",
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true, Update: true, Delete: true,
				CreateDescription: "How long create may take, including waiting for the parent service to be READY and the set to be `active` (a duration such as `45m`). Default `30m`.",
				UpdateDescription: "How long an update may take, including waiting for the set to be `active` again after a resize. Default `30m`.",
				DeleteDescription: "How long delete may take, including waiting until the set has left the list. Default `20m`.",
			}),
		},
	}
}

func (r *readReplicaSetResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = requiredIdentity("service_id", "Id of the parent service.", "id", "The replica set id.")
}

// ModifyPlan keeps plans quiet and honest: the pooler endpoint becomes unknown only when the pooler is
// switched, and an update that changes something in place (replicaSetChanges) always ends with the
// set active. A set whose last apply did not see it active (an interrupted create's wait: status
// creating or resizing) plans status active, so that the next apply runs Update, which waits for it.
//
// A set cannot be created or changed on a paused service (the API answers 409 until the service is
// READY): when the plan knows the service is paused, and stays so, it says so here, not at apply.
func (r *readReplicaSetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if req.State.Raw.IsNull() {
		var serviceID, name types.String
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("service_id"), &serviceID)...)
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
		r.refuseOnPausedService(ctx, serviceID, fmt.Sprintf("read replica set %q cannot be created", name.ValueString()), &resp.Diagnostics)
		return
	}
	var plan, state readReplicaSetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	poolerChanges := !plan.ConnectionPoolerEnabled.Equal(state.ConnectionPoolerEnabled)
	if poolerChanges {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_hostname"), types.StringUnknown())...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pooler_port"), types.Int64Unknown())...)
	}
	changes := len(replicaSetChanges.changedAttrs(plan, state)) > 0 || replicaSetTransitional(state.Status.ValueString())
	if changes && plan.ServiceID.Equal(state.ServiceID) && plan.Name.Equal(state.Name) && plan.Nodes.Equal(state.Nodes) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringValue(string(api.ReplicaSetStatusActive)))...)
		r.refuseOnPausedService(ctx, plan.ServiceID, fmt.Sprintf("read replica set %s (%s) cannot be changed",
			state.ID.ValueString(), state.Name.ValueString()), &resp.Diagnostics)
	}
}

// refuseOnPausedService adds an error when the plan knows that service serviceID is paused after this
// apply: this plan leaves it paused (this run's pauses, written by the plan of the service,
// service_plan.go recordPause), or, when this run does not plan the service, the API said it is
// paused (its record in the list the plan already read, refresh_cache.go; api.Service.Paused). what is what cannot be done, e.g. `read replica set "r"
// cannot be created`. A service the plan knows nothing of, or could not read, is left to the apply.
func (r *readReplicaSetResource) refuseOnPausedService(ctx context.Context, serviceID types.String, what string, diags *diag.Diagnostics) {
	if r.pd == nil || !known(serviceID) {
		return
	}
	id := serviceID.ValueString()
	paused, planned := r.pd.pauses.afterApply(id)
	if !planned {
		svc, err := r.pd.read().GetService(ctx, id)
		if err != nil {
			return
		}
		paused = svc.Paused()
	}
	if !paused {
		return
	}
	diags.AddAttributeError(path.Root("service_id"), "Service is paused",
		fmt.Sprintf("Service %s is paused, so %s: the API adds and changes read replica sets only on a running (READY) "+
			"service. Set paused = false on the service (Terraform then starts it first; set paused = true again afterwards), "+
			"or resume it, then plan again.", id, what))
}

// Create creates the set once its service is READY, records its id in state at once, waits until it
// is active and applies the settings the create call cannot take (pooler, environment).
func (r *readReplicaSetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	createResource(ctx, r, req, resp, func(m readReplicaSetModel) timeoutOf { return m.Timeouts.Create }, replicaSetCreateTimeout,
		func(ctx context.Context, plan *readReplicaSetModel, _ *diag.Diagnostics) (createSteps[api.ReadReplicaSet, readReplicaSetModel], bool) {
			serviceID, name := plan.ServiceID.ValueString(), plan.Name.ValueString()
			nodes := int64(1) // the documented default when the configuration does not set it
			if known(plan.Nodes) {
				nodes = plan.Nodes.ValueInt64()
			}
			body := api.ReadReplicaSetCreate{Name: name, Nodes: int(nodes), CPUMillis: int(plan.CPUMillis.ValueInt64()), MemoryGbs: int(plan.MemoryGbs.ValueInt64())}
			return createSteps[api.ReadReplicaSet, readReplicaSetModel]{
				create: createCall[api.ReadReplicaSet]{
					call: func(ctx context.Context, lc *lostCreate) (*api.ReadReplicaSet, bool, error) {
						return createReplicaSetWhenReady(ctx, r.pd, serviceID, body, lc)
					},
				},
				messages: createMessages{summary: "Could not create read replica set",
					noID: fmt.Sprintf("The API accepted read replica set %q on service %s but answered without an id. This is a problem of the API; look for the set in the console before applying again.", name, serviceID),
					// Interrupted (Ctrl-C): the set is kept; the next plan sees its status (creating) and plans the
					// wait (ModifyPlan), instead of a destroy and a second create.
					interrupted: "Read replica set creation interrupted: the set is kept",
					interruptedDetail: fmt.Sprintf("The apply was interrupted while waiting for read replica set %q ({id}) of service %s to become active. "+
						"It is kept in state with its id (status \"{status}\"); the next terraform apply waits for it and applies the remaining settings, "+
						"without creating a second set. Detail: {detail}", name, serviceID),
				},
				record: func(m *readReplicaSetModel, rs *api.ReadReplicaSet, _ bool) {
					m.ID = types.StringValue(deref(rs.ID))
					m.applyRecord(rs)
					nullUnknowns(m)
				},
				// Wait until active, then the settings the create call cannot take.
				wait: func(ctx context.Context, m *readReplicaSetModel, _ *diag.Diagnostics) (string, error) {
					id := m.ID.ValueString()
					rs, err := waitReplicaSet(ctx, r.pd, serviceID, id, name, "to become active", nil)
					if rs != nil {
						m.applyRecord(rs)
					}
					if err == nil {
						created := *m
						created.ConnectionPoolerEnabled, created.Environment = types.BoolValue(rs.PoolerEnabled()), types.StringValue(replicaSetEnvironment(rs))
						_, err = runActions(ctx, r.pd, id, replicaSetChanges.afterCreate(*plan, created), *plan, nil)
					}
					if err == nil {
						if rs, err = r.pd.client.GetReplicaSet(ctx, serviceID, id); err == nil {
							m.applyRecord(rs)
						}
					}
					return "", err
				},
			}, true
		})
}

func (r *readReplicaSetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readResource(ctx, r.pd, req, resp, "read replica set",
		func(m readReplicaSetModel) (*api.ReadReplicaSet, error) {
			return r.pd.read().GetReplicaSet(ctx, m.ServiceID.ValueString(), m.ID.ValueString())
		},
		func(rs *api.ReadReplicaSet) bool { return deref(rs.Status) == api.ReplicaSetStatusDeleting },
		withRecord((*readReplicaSetModel).applyRecord))
}

func (r *readReplicaSetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state readReplicaSetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel, ok := withTimeout(ctx, plan.Timeouts.Update, replicaSetUpdateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	defer cancel()
	serviceID, id, name := state.ServiceID.ValueString(), state.ID.ValueString(), state.Name.ValueString()
	object := fmt.Sprintf("Read replica set %s of service %s", id, serviceID)
	// An earlier apply interrupted before the set was active: finish that wait first.
	resume := replicaSetTransitional(state.Status.ValueString())
	if resume {
		if _, err := waitReplicaSet(ctx, r.pd, serviceID, id, name, "to become active (resuming an interrupted apply)", nil); err != nil {
			r.pd.updateFailed(ctx, &resp.Diagnostics, replicaSetUpdateFailed, object, err)
			return
		}
	}
	actions := replicaSetChanges.actions(plan, state)
	if a, err := runActions(ctx, r.pd, id, actions, plan, nil); err != nil {
		r.pd.updateFailed(ctx, &resp.Diagnostics, a.update, object, err)
		return
	}
	if resume || len(actions) > 0 {
		rs, err := r.pd.client.GetReplicaSet(ctx, serviceID, id)
		if err != nil {
			r.pd.updateFailed(ctx, &resp.Diagnostics, replicaSetUpdateFailed, object, err)
			return
		}
		plan.applyRecord(rs)
	}
	nullUnknowns(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *readReplicaSetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	deleteResource(ctx, r.pd, req, resp, "Could not delete read replica set",
		func(m readReplicaSetModel) timeoutOf { return m.Timeouts.Delete }, replicaSetDeleteTimeout,
		func(ctx context.Context, state readReplicaSetModel, _ *diag.Diagnostics) error {
			serviceID, id := state.ServiceID.ValueString(), state.ID.ValueString()
			c := r.pd.client
			return wait.Delete(ctx, r.pd.backoff, fmt.Sprintf("read replica set %s of service %s to be deleted", id, serviceID),
				func(ctx context.Context) (string, bool, error) {
					rs, err := c.GetReplicaSet(ctx, serviceID, id)
					if err != nil {
						return "", false, err
					}
					st := deref(rs.Status)
					return string(st), st == api.ReplicaSetStatusDeleting, nil
				},
				func(ctx context.Context) error { return c.DeleteReplicaSet(ctx, serviceID, id) }, nil)
		})
}

func (r *readReplicaSetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importIDParts(ctx, req, resp, replicaSetTypeName, "rp1pz7uyae/rs7k2m9q4x", []string{"service_id", "replica_set_id"}, []string{"service_id", "id"})
}

// ---- model <-> API ----

// replicaSetTransitional reports a status that turns active by waiting.
func replicaSetTransitional(status string) bool {
	switch api.ReplicaSetStatus(status) {
	case api.ReplicaSetStatusCreating, api.ReplicaSetStatusResizing:
		return true
	}
	return false
}

// findCreated is the set's lookup of a lost create (placeholder.go): the one set of the model's
// service named as the model's that was not in lc.Before.
func (r *readReplicaSetResource) findCreated(ctx context.Context, m *readReplicaSetModel, lc lostCreate, cause error) (*api.ReadReplicaSet, error) {
	return findNewReplicaSet(ctx, r.pd, m.ServiceID.ValueString(), m.Name.ValueString(), lc.before(), cause)
}

func (r *readReplicaSetResource) createdID(rs *api.ReadReplicaSet) string { return replicaSetID(rs) }
