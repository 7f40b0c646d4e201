package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// vpcDeleteTimeout bounds how long a VPC delete waits for services that are being deleted to let go of it.
const vpcDeleteTimeout = 10 * time.Minute

// vpcUnexplainedConflicts is how many 409 answers in a row, with no attached service or peering to be
// seen, a VPC delete waits out before it gives up (the API may lag behind a detach).
const vpcUnexplainedConflicts = 5

var (
	_ resource.ResourceWithImportState = (*vpcResource)(nil)

	_ lostCreateFinder[vpcModel, api.VPC] = (*vpcResource)(nil) // findCreated and createdID: its one lookup of a lost create (placeholder.go)
)

// NewVPCResource is the dbcloud_vpc resource.
func NewVPCResource() resource.Resource {
	return manageResource(&vpcResource{resourceBase{typeName: vpcTypeName}})
}

type vpcResource struct{ resourceBase }

func (r *vpcResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A VPC of the project: a private IPv4 network that services attach to (`dbcloud_service.vpc_id`) " +
			"and that can be peered with a VPC of your cloud account (`dbcloud_vpc_peering`). Creation is synchronous.\n\n" +
			"A VPC cannot be deleted while services are attached to it or peerings exist: the provider then names them. " +
			"Terraform orders this itself when the services and peerings are in the same configuration.\n\n" +
			"Import with `terraform import dbcloud_vpc.example <vpc_id>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The VPC id assigned by the API (a decimal string).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the VPC, 1 to 128 characters (counted as characters, not bytes). Changes in place (rename: same id).",
				Validators:          []validator.String{stringvalidator.UTF8LengthBetween(1, 128)},
			},
			"cidr": schema.StringAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("IPv4 address range of the VPC in CIDR notation, written with its network "+
					"address and a prefix length from /%d to /%d, e.g. `10.0.0.0/16` (`10.0.0.1/16` is rejected at plan time). "+
					"It must not overlap the networks you peer with; the API has the last word. Changing it replaces the VPC.",
					vpcCIDRMinBits, vpcCIDRMaxBits),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{vpcCIDR()},
			},
			"region_code": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Cloud region of the VPC, e.g. `us-east-1`; services attached to it must be in the same " +
					"region. Changing it replaces the VPC.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{regionCode()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Delete:            true,
				DeleteDescription: "How long delete may take, including waiting while services that are being deleted still hold the VPC. Default `10m`.",
			}),
		},
	}
}

func (r *vpcResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = requiredIdentity("id", "The VPC id.")
}

func (r *vpcResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	createResource(ctx, r, req, resp, nil, 0,
		func(ctx context.Context, plan *vpcModel, _ *diag.Diagnostics) (createSteps[api.VPC, vpcModel], bool) {
			c := r.pd.client
			body := vpcCreateBody(plan)
			return createSteps[api.VPC, vpcModel]{
				create: createCall[api.VPC]{
					before: func(ctx context.Context) (lostCreate, error) {
						before, err := c.ListVPCs(ctx)
						return lostCreate{Before: slices.Collect(maps.Keys(wait.IDSet(before, vpcID)))}, err
					},
					call: func(ctx context.Context, _ *lostCreate) (*api.VPC, bool, error) {
						vpc, err := c.CreateVPC(ctx, body)
						return vpc, true, err
					},
				},
				messages: createMessages{summary: "Could not create VPC",
					noID: fmt.Sprintf("The API created VPC %q but answered without an id. This is a problem of the API; look for the VPC in the console before applying again.", body.Name)},
				record: func(m *vpcModel, vpc *api.VPC, _ bool) {
					m.ID = types.StringValue(deref(vpc.ID))
					m.applyRecord(vpc)
				},
			}, true
		})
}

// vpcCreateBody is the create call's body, from a plan (or a placeholder's state).
func vpcCreateBody(m *vpcModel) api.VPCCreate {
	return api.VPCCreate{Name: m.Name.ValueString(), Cidr: m.CIDR.ValueString(), RegionCode: m.RegionCode.ValueString()}
}

func (r *vpcResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readResource(ctx, r.pd, req, resp, "VPC",
		func(m vpcModel) (*api.VPC, error) { return r.pd.read().GetVPC(ctx, m.ID.ValueString()) }, nil, withRecord((*vpcModel).applyRecord))
}

func (r *vpcResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state vpcModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !plan.Name.Equal(state.Name) {
		// A lost answer (an outage's dropped connection) is followed by a look, then the rename again,
		// for as long as the client's outage budget lasts (outage_timeout: a VPC has no update timeout).
		ctx, cancel := r.pd.withOutageBudget(ctx)
		defer cancel()
		id, name := state.ID.ValueString(), plan.Name.ValueString()
		var vpc *api.VPC
		err := wait.WhileBusy(ctx, r.pd.client, r.pd.backoff, wait.Busy{
			What: "the API to rename VPC " + id, MaxRetries: 5,
			Call: func(ctx context.Context) (err error) { vpc, err = r.pd.client.RenameVPC(ctx, id, name); return err },
			Applied: func(ctx context.Context) bool {
				v, err := r.pd.client.GetVPC(ctx, id)
				if err != nil || deref(v.Name) != name {
					return false
				}
				vpc = v
				return true
			},
		})
		if err != nil {
			r.pd.updateFailed(ctx, &resp.Diagnostics, "Could not rename VPC", "VPC "+state.ID.ValueString(), err)
			return
		}
		plan.applyRecord(vpc)
	}
	plan.ID = state.ID
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *vpcResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	deleteResource(ctx, r.pd, req, resp, "Could not delete VPC",
		func(m vpcModel) timeoutOf { return m.Timeouts.Delete }, vpcDeleteTimeout,
		func(ctx context.Context, state vpcModel, _ *diag.Diagnostics) error {
			c := r.pd.client
			id := state.ID.ValueString()

			var unexplained int
			what := fmt.Sprintf("VPC %s to be released by the services being deleted", id)
			_, err := wait.For(ctx, r.pd.backoff, what, func(ctx context.Context) (wait.PollResult[struct{}], error) {
				err := c.DeleteVPC(ctx, id)
				switch {
				case err == nil, api.IsNotFound(err):
					return wait.PollResult[struct{}]{Done: true}, nil
				case wait.IsTransient(err):
					return wait.PollResult[struct{}]{}, err
				case !api.IsConflict(err):
					return wait.PollResult[struct{}]{}, wait.Stop(err)
				}
				h, herr := vpcHoldersOf(ctx, c, id)
				if herr != nil {
					return wait.PollResult[struct{}]{}, herr
				}
				switch {
				case h.firm():
					return wait.PollResult[struct{}]{}, wait.Stop(h.explain(id, state.Name.ValueString(), err))
				case len(h.leaving) > 0:
					unexplained = 0
					return wait.PollResult[struct{}]{Status: "in use by services being deleted: " + strings.Join(h.leaving, ", ")}, nil
				}
				unexplained++
				if unexplained >= vpcUnexplainedConflicts {
					return wait.PollResult[struct{}]{}, wait.Stop(h.explain(id, state.Name.ValueString(), err))
				}
				return wait.PollResult[struct{}]{Status: wait.ConflictStatus(err)}, nil
			})
			return err
		})
}

func (r *vpcResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if strings.TrimSpace(req.ID) == "" || strings.Contains(req.ID, "/") {
		resp.Diagnostics.AddError("Invalid import ID for dbcloud_vpc",
			fmt.Sprintf("expected an import ID of the form <vpc_id>, got %q. Example: terraform import dbcloud_vpc.example 1234567890", req.ID))
		return
	}
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

// findCreated is the VPC's lookup of a lost create (placeholder.go): the one VPC like the model's
// that was not in lc.Before.
func (r *vpcResource) findCreated(ctx context.Context, m *vpcModel, lc lostCreate, cause error) (*api.VPC, error) {
	body, before := vpcCreateBody(m), lc.before()
	return wait.FindCreated(ctx, r.pd.backoff, wait.Created[api.VPC]{
		Kind: "VPC", Name: body.Name, List: r.pd.client.ListVPCs, ID: vpcID,
		Match: func(v *api.VPC) bool {
			return !before[deref(v.ID)] && deref(v.Name) == body.Name && deref(v.Cidr) == body.Cidr && deref(v.RegionCode) == body.RegionCode
		},
	}, cause)
}

func (r *vpcResource) createdID(v *api.VPC) string { return vpcID(v) }

// vpcHolders is what keeps a VPC from being deleted.
type vpcHolders struct {
	services []string // attached services that are not being deleted, described
	peerings []string // the VPC's peerings, described
	leaving  []string // attached services that are being deleted (they let go by themselves)
}

func (h vpcHolders) firm() bool { return len(h.services) > 0 || len(h.peerings) > 0 }

// vpcHoldersOf looks up the services attached to the VPC and its peerings.
func vpcHoldersOf(ctx context.Context, c *api.Client, vpcID string) (vpcHolders, error) {
	var h vpcHolders
	services, err := c.ListServices(ctx)
	if err != nil {
		return h, err
	}
	for _, s := range services {
		if ve := api.VPCEndpointOf(&s); ve == nil || deref(ve.VpcID) != vpcID {
			continue
		}
		st := deref(s.Status)
		if st == api.DELETING || st == api.DELETED {
			h.leaving = append(h.leaving, deref(s.ServiceID))
			continue
		}
		h.services = append(h.services, fmt.Sprintf("service %s (name %q, status %s)", deref(s.ServiceID), deref(s.Name), st))
	}
	peerings, err := c.ListPeerings(ctx, vpcID)
	if err != nil && !api.IsNotFound(err) {
		return h, err
	}
	for _, p := range peerings {
		h.peerings = append(h.peerings, fmt.Sprintf("peering %s (peer VPC %s in account %s, region %s, status %s)",
			deref(p.ID), deref(p.PeerVpcID), deref(p.PeerAccountID), deref(p.PeerRegionCode), deref(p.Status)))
	}
	return h, nil
}

// explain is the error of a VPC delete refused with 409: the API's answer, who holds the VPC, and what to do.
func (h vpcHolders) explain(vpcID, name string, apiErr error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "VPC %s (%q) is still in use, so the API refused to delete it.\n\nThe API answered: %v\n", vpcID, name, apiErr)
	if len(h.services) > 0 {
		b.WriteString("\nServices attached to it:\n")
		for _, s := range h.services {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	if len(h.peerings) > 0 {
		b.WriteString("\nPeerings of it:\n")
		for _, p := range h.peerings {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
	}
	var todo []string
	if len(h.services) > 0 {
		todo = append(todo, "detach the services from the VPC (remove vpc_id from their dbcloud_service, or destroy them)")
	}
	if len(h.peerings) > 0 {
		todo = append(todo, "delete the peerings (destroy their dbcloud_vpc_peering)")
	}
	if len(todo) == 0 {
		b.WriteString("\nNo attached service or peering is visible to this project's credentials: the API may still be " +
			"finishing a detach. Wait a minute and run terraform again.")
	} else {
		fmt.Fprintf(&b, "\nFirst %s, then run terraform again. Resources managed elsewhere (another configuration, the "+
			"console) must be changed there.", strings.Join(todo, " and "))
	}
	return errors.New(b.String())
}
