package provider

// dbcloud_service: the resource type and its CRUD, top to bottom, then how the provider finds,
// reads the status of, and waits for a service. Schema: service_schema.go; plan logic: service_plan.go;
// update actions: service_update.go; record mapping: service_flatten.go; model: service_model.go.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
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
	_ resource.ResourceWithImportState    = (*serviceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*serviceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*serviceResource)(nil)

	_ lostCreateFinder[serviceResourceModel, api.Service] = (*serviceResource)(nil) // findCreated and createdID: its one lookup of a lost create (placeholder.go)
)

// NewServiceResource is the dbcloud_service resource.
func NewServiceResource() resource.Resource {
	return manageResource(&serviceResource{resourceBase{typeName: serviceTypeName}})
}

type serviceResource struct{ resourceBase }

// Create creates (or forks) the service (the one create skeleton, create.go), records its id in state
// at once, waits for READY, makes the calls the create call cannot (serviceCreateActions: HA, pooler,
// VPC, password), and pauses it when asked. An interrupted wait keeps the service untainted, and the
// private flag makes the next plan run an update that waits for it and applies the rest (the
// password, which no refresh can show); any other failure is an error, with the progress saved
// (Terraform taints the service).
func (r *serviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	createResource(ctx, r, req, resp, func(m serviceResourceModel) timeoutOf { return m.Timeouts.Create }, serviceCreateTimeout,
		func(ctx context.Context, plan *serviceResourceModel, diags *diag.Diagnostics) (createSteps[api.Service, serviceResourceModel], bool) {
			// password_wo comes from the configuration, for the calls after the create only: the plan the
			// skeleton saves (a placeholder too) never holds it.
			withWO := *plan
			diags.Append(req.Config.GetAttribute(ctx, path.Root("password_wo"), &withWO.PasswordWO)...)
			if diags.HasError() {
				return createSteps[api.Service, serviceResourceModel]{}, false
			}
			call, summary, ok := r.createCall(ctx, *plan, diags)
			return r.createSteps(call, summary, withWO), ok
		})
	r.notePause(ctx, resp.State)
}

// notePause records in this run's pauses (service_pauses.go) a service that its create or update left
// paused (state: what the operation answers), for the logins of the same apply
// (service_credentials_ephemeral.go).
func (r *serviceResource) notePause(ctx context.Context, state tfsdk.State) {
	var id types.String
	var paused types.Bool
	if r.pd == nil || state.Raw.IsNull() || state.GetAttribute(ctx, path.Root("id"), &id).HasError() ||
		state.GetAttribute(ctx, path.Root("paused"), &paused).HasError() {
		return
	}
	if paused.ValueBool() && id.ValueString() != "" {
		r.pd.pauses.leftPaused(id.ValueString())
	}
}

// createSteps is the service's create in the skeleton (create.go).
func (r *serviceResource) createSteps(call createCall[api.Service], summary string, plan serviceResourceModel) createSteps[api.Service, serviceResourceModel] {
	pd, name := r.pd, plan.Name.ValueString()
	return createSteps[api.Service, serviceResourceModel]{
		create: call,
		messages: createMessages{summary: summary,
			noID: "The API answered the create without a service_id: the provider cannot track the service. " +
				"Look for a service named " + strconv.Quote(name) + " and import it if it exists.",
			adopted: "Service adopted after a lost create answer",
			adoptedDetail: fmt.Sprintf("The API did not answer the create of %q, but exactly one service with this name appeared since the attempt started: {id}. "+
				"The provider adopted it instead of creating another. Its initial_password is unknown (null): set password or password_wo to choose one.", name),
			interrupted: "Interrupted while waiting; the next apply resumes the wait",
			interruptedDetail: "{summary}: {error}\n\nService {id} exists and is kept in state (not tainted). The next apply waits for it " +
				"and applies the settings that were not applied yet; nothing is created twice.",
		},
		record: func(m *serviceResourceModel, svc *api.Service, adopted bool) {
			m.applyRecord(svc, pd.client.ProjectID())
			if adopted {
				m.InitialPassword = types.StringNull()
			}
			m.forState()
		},
		wait: func(ctx context.Context, m *serviceResourceModel, diags *diag.Diagnostics) (string, error) {
			return r.whenCreated(ctx, plan, m, diags)
		},
		kept: func(ctx context.Context, m *serviceResourceModel, resp *resource.CreateResponse, interrupted bool) {
			// The record as the API shows it now (best effort), over what was done so far; the wrapper
			// writes the plan's known values over it (planned.go).
			recordServiceProgress(ctx, pd, m)
			if interrupted {
				resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateResumeCreate, []byte("true"))...)
			}
		},
	}
}

// createCall is the service's create (or fork) call. A lost answer is looked for by the service's
// lookup (findCreated); a fork, like a create, is sent again only when that look proves it was not
// made.
func (r *serviceResource) createCall(ctx context.Context, plan serviceResourceModel, diags *diag.Diagnostics) (_ createCall[api.Service], summary string, ok bool) {
	pd := r.pd
	var c createCall[api.Service]
	if plan.Fork.IsNull() {
		body, d := createBody(ctx, plan)
		diags.Append(d...)
		c.call = func(ctx context.Context, _ *lostCreate) (*api.Service, bool, error) {
			svc, err := pd.client.CreateService(ctx, body)
			return svc, true, err
		}
		return c, "Could not create service", !diags.HasError()
	}
	var fork serviceForkModel
	diags.Append(plan.Fork.As(ctx, &fork, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return c, "", false
	}
	body, err := forkBody(plan, &fork)
	if err != nil {
		diags.AddAttributeError(path.Root("fork").AtName("target_time"), "Invalid fork.target_time", err.Error())
		return c, "", false
	}
	c.call = func(ctx context.Context, _ *lostCreate) (*api.Service, bool, error) {
		return forkWhenReady(ctx, pd, fork.SourceServiceID.ValueString(), body)
	}
	return c, "Could not fork service", true
}

// whenCreated is what follows the create: wait for READY, check a fork, make the calls the create
// call cannot (serviceCreateActions), then stop the service when paused = true, and record the final
// record in m. It returns the summary of the step that failed.
func (r *serviceResource) whenCreated(ctx context.Context, plan serviceResourceModel, m *serviceResourceModel, diags *diag.Diagnostics) (string, error) {
	pd, id := r.pd, m.ID.ValueString()
	ready, err := waitServiceReady(ctx, pd, id, true)
	if err != nil {
		return "Service created but did not become READY", err
	}
	if !plan.Fork.IsNull() && !checkFork(ctx, plan, ready, diags) {
		return "", nil
	}
	if a, err := runActions(ctx, pd, id, serviceCreateActions(plan, serviceResourceModel{serviceFields: flattenService(ready)}), plan, nil); err != nil {
		return a.create, err
	}
	// paused = true: stop it now that it is READY and set up; otherwise read the READY record.
	var final *api.Service
	if plan.Paused.ValueBool() {
		if err := stopAction.run(ctx, pd, id); err != nil {
			return stopAction.create, err
		}
		final, err = waitServicePaused(ctx, pd, id)
	} else {
		final, err = waitServiceReady(ctx, pd, id, false)
	}
	if err != nil {
		return "Service created but did not become " + map[bool]string{true: "PAUSED", false: "READY"}[plan.Paused.ValueBool()], err
	}
	out := plan
	out.applyRecord(final, pd.client.ProjectID())
	out.InitialPassword = m.InitialPassword
	if !known(out.Addons) {
		out.Addons = serviceAddonsSet([]string{})
	}
	out.forState()
	*m = out
	return "", nil
}

// checkFork checks a READY fork against the configuration: a region_code other than the source's is
// an error (false), addons that do not match the inherited type a warning.
func checkFork(ctx context.Context, plan serviceResourceModel, ready *api.Service, diags *diag.Diagnostics) bool {
	id := deref(ready.ServiceID)
	if known(plan.RegionCode) && deref(ready.RegionCode) != "" && plan.RegionCode.ValueString() != deref(ready.RegionCode) {
		diags.AddAttributeError(path.Root("region_code"), "Fork region differs from region_code",
			fmt.Sprintf("A fork inherits the region of its source: service %s is in %s, but region_code is %s. Remove region_code or set it to %s.",
				id, deref(ready.RegionCode), plan.RegionCode.ValueString(), deref(ready.RegionCode)))
		return false
	}
	if addons, _ := setStrings(ctx, plan.Addons); !addonsMatchServiceType(addons, deref(ready.ServiceType)) {
		diags.AddAttributeWarning(path.Root("addons"), "Fork type differs from addons",
			fmt.Sprintf("A fork inherits the type of its source: service %s is %s, which does not match addons %v. "+
				"Set addons to match the source service.", id, deref(ready.ServiceType), addons))
	}
	return true
}

// createBody builds the create request from the plan.
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
	setSizesAndEnvironment(&body, plan)
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
	setSizesAndEnvironment(&body, plan)
	return body, nil
}

// sizesAndEnvironment is a create or a fork body: both take the sizes and the environment tag from
// the plan (the client writes the sizes as the API wants them).
type sizesAndEnvironment interface {
	SetSizes(cpuMillis, memoryGbs int)
	SetEnvironment(env api.Environment)
}

// setSizesAndEnvironment sets a create's or a fork's sizes (when both are known) and environment.
func setSizesAndEnvironment(body sizesAndEnvironment, plan serviceResourceModel) {
	if known(plan.CPUMillis) && known(plan.MemoryGbs) {
		body.SetSizes(int(plan.CPUMillis.ValueInt64()), int(plan.MemoryGbs.ValueInt64()))
	}
	if known(plan.Environment) {
		body.SetEnvironment(api.Environment(plan.Environment.ValueString()))
	}
}

func (r *serviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readResource(ctx, r.pd, req, resp, "service",
		func(m serviceResourceModel) (*api.Service, error) {
			return r.pd.read().GetService(ctx, m.ID.ValueString())
		},
		serviceIsGone,
		func(m *serviceResourceModel, svc *api.Service, resp *resource.ReadResponse) bool {
			if err := notStandby(m.ID.ValueString(), svc); err != nil {
				// A read replica set's id (service_standby.go): refused on import and on refresh; the state is kept.
				resp.Diagnostics.AddError(standbySummary, err.Error())
				return false
			}
			prior := *m
			state, derived := readRecord(*m, svc, r.pd.client.ProjectID())
			if derived {
				resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAddonsDerived, []byte("true"))...)
			}
			*m = state
			// The framework starts resp.State as the prior state: an unchanged service (most services of
			// most refreshes) needs no Set, which is most of a Read's cost.
			return derived || !sameValues(&state, &prior)
		})
}

// readRecord is what Read makes of a state and the record the API answered for it: the new state,
// and whether addons were derived from service_type (an import: the record has only service_type).
func readRecord(state serviceResourceModel, svc *api.Service, projectID string) (serviceResourceModel, bool) {
	state.applyRecord(svc, projectID)
	derived := false
	if state.Addons.IsNull() || state.Addons.IsUnknown() {
		state.Addons = serviceAddonsSet(addonsForServiceType(state.ServiceType.ValueString()))
		derived = true
	}
	if state.DeletionProtection.IsNull() || state.DeletionProtection.IsUnknown() {
		state.DeletionProtection = types.BoolValue(false)
	}
	state.forState()
	return state, derived
}

func (r *serviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	pd := r.pd
	deleteResource(ctx, pd, req, resp, "Could not delete service",
		func(m serviceResourceModel) timeoutOf { return m.Timeouts.Delete }, serviceDeleteTimeout,
		func(ctx context.Context, state serviceResourceModel, diags *diag.Diagnostics) error {
			id := state.ID.ValueString()
			if pd.copies.refuseDelete(ctx, id, diags) {
				return nil
			}
			return wait.Delete(ctx, pd.backoff, fmt.Sprintf("service %s to be deleted", id),
				func(ctx context.Context) (string, bool, error) {
					svc, err := pd.client.GetService(ctx, id)
					if err != nil {
						return "", false, err
					}
					if err := notStandby(id, svc); err != nil {
						return "", false, err // never DELETE a read replica set's id on the service path
					}
					st := serviceStatus(svc)
					if serviceIsGone(svc) {
						return st, false, wait.ErrGone
					}
					return st, st == string(api.DELETING), nil
				},
				func(ctx context.Context) error { return pd.client.DeleteService(ctx, id) },
				func(ctx context.Context, conflict error) error { return serviceDeleteBlocked(ctx, pd, id, conflict) })
		})
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

// privateResumeCreate is the private-state key set when create was interrupted (Ctrl-C) before it
// finished: the next plan plans an update that waits for the service and applies what create did not.
const privateResumeCreate = "resume_create"

// findCreated is the service's lookup of a lost create (placeholder.go): a service named as the
// model's, created since the attempt started (findCreatedService).
func (r *serviceResource) findCreated(ctx context.Context, m *serviceResourceModel, lc lostCreate, cause error) (*api.Service, error) {
	return findCreatedService(ctx, r.pd, m.Name.ValueString(), lc.Started, cause)
}

func (r *serviceResource) createdID(s *api.Service) string { return deref(s.ServiceID) }
