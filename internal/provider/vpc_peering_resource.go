package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Default timeouts of dbcloud_vpc_peering.
const (
	peeringCreateTimeout = 20 * time.Minute
	peeringDeleteTimeout = 10 * time.Minute
)

var (
	_ resource.ResourceWithImportState = (*vpcPeeringResource)(nil)

	_ lostCreateFinder[vpcPeeringModel, api.Peering] = (*vpcPeeringResource)(nil) // findCreated and createdID: its one lookup of a lost create (placeholder.go)
)

// NewVPCPeeringResource is the dbcloud_vpc_peering resource.
func NewVPCPeeringResource() resource.Resource {
	return manageResource(&vpcPeeringResource{resourceBase{typeName: peeringTypeName}})
}

type vpcPeeringResource struct{ resourceBase }

func (r *vpcPeeringResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	nonEmpty := []validator.String{stringvalidator.LengthAtLeast(1)}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A peering connection between a `dbcloud_vpc` and a VPC of your cloud account.\n\n" +
			"Creation returns as soon as the cloud side exists, i.e. `provisioned_id` (the cloud's peering connection id, " +
			"`pcx-...`) is known, so that an accepter resource of your cloud provider can use it in the same apply. It does " +
			"**not** wait for the peer side to accept: `status` stays `pending` until then and turns `active` afterwards " +
			"(a refresh picks that up without planning any change). A peering the API reports as failed (`error_message` " +
			"set) fails the apply with that message.\n\n" +
			"Every argument replaces the peering when changed. Import with " +
			"`terraform import dbcloud_vpc_peering.example <vpc_id>/<peering_id>`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The peering id assigned by the API (a decimal string).",
				PlanModifiers:       keep,
			},
			"vpc_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the dbcloud VPC to peer (a decimal string), usually `dbcloud_vpc.<name>.id`. Changing it replaces the peering.",
				PlanModifiers:       replace,
				Validators:          []validator.String{decimalID("VPC")},
			},
			"peer_account_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Cloud account id that owns the peer VPC, e.g. `123456789012`. Changing it replaces the peering.",
				PlanModifiers:       replace,
				Validators:          nonEmpty,
			},
			"peer_region_code": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Region of the peer VPC, e.g. `us-east-1`. Changing it replaces the peering.",
				PlanModifiers:       replace,
				Validators:          []validator.String{regionCode()},
			},
			"peer_vpc_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the peer VPC in your cloud account, e.g. `vpc-0a1b2c3d`. Changing it replaces the peering.",
				PlanModifiers:       replace,
				Validators:          nonEmpty,
			},
			"status": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Status reported by the API: `pending` until the peer side accepts, then `active` " +
					"(other values, such as `failed`, are passed through). It changes outside Terraform; a refresh updates it.",
				PlanModifiers: keep,
			},
			"provisioned_id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The cloud's peering connection id (e.g. `pcx-0123456789abcdef0`), for the peer side's accepter.",
				PlanModifiers:       keep,
			},
			"error_message": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Why the peering failed, as reported by the API; null while it has not failed.",
				PlanModifiers:       keep,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true, Delete: true,
				CreateDescription: "How long create may take, waiting until the cloud side is provisioned (`provisioned_id` known); it never waits for the peer to accept. Default `20m`.",
				DeleteDescription: "How long delete may take. Default `10m`.",
			}),
		},
	}
}

func (r *vpcPeeringResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = requiredIdentity("vpc_id", "Id of the VPC the peering belongs to.", "id", "The peering id.")
}

func (r *vpcPeeringResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	createResource(ctx, r, req, resp, func(m vpcPeeringModel) timeoutOf { return m.Timeouts.Create }, peeringCreateTimeout,
		func(ctx context.Context, plan *vpcPeeringModel, _ *diag.Diagnostics) (createSteps[api.Peering, vpcPeeringModel], bool) {
			c := r.pd.client
			vpcID, body := plan.VPCID.ValueString(), peeringCreateBody(plan)
			var created *api.Peering
			return createSteps[api.Peering, vpcPeeringModel]{
				create: createCall[api.Peering]{
					before: func(ctx context.Context) (lostCreate, error) {
						before, err := c.ListPeerings(ctx, vpcID)
						return lostCreate{Before: slices.Collect(maps.Keys(wait.IDSet(before, peeringID)))}, err
					},
					call: func(ctx context.Context, _ *lostCreate) (*api.Peering, bool, error) {
						p, err := c.CreatePeering(ctx, vpcID, body)
						return p, true, err
					},
				},
				messages: createMessages{summary: "Could not create VPC peering",
					noID: fmt.Sprintf("The API accepted the peering of VPC %s with %s but answered without an id. This is a problem of the API; look for the peering in the console before applying again.", vpcID, body.PeerVpcID),
					// Ctrl-C: the peering exists and is kept. Its provisioned_id shows on a later refresh.
					interrupted: "VPC peering creation interrupted: the peering is kept",
					interruptedDetail: "The apply was interrupted while waiting for peering {id} of VPC " + vpcID + " to be provisioned. It is kept in state " +
						"(status \"{status}\"); provisioned_id appears on a later refresh, and nothing is created twice.",
				},
				record: func(m *vpcPeeringModel, p *api.Peering, _ bool) {
					created = p
					m.ID = types.StringValue(deref(p.ID))
					m.applyRecord(p)
					nullUnknowns(m)
				},
				wait: func(ctx context.Context, m *vpcPeeringModel, _ *diag.Diagnostics) (string, error) {
					last, err := waitPeeringProvisioned(ctx, r.pd, vpcID, m.ID.ValueString(), body, created)
					m.applyRecord(last)
					nullUnknowns(m)
					return "", err
				},
			}, true
		})
}

// peeringCreateBody is the create call's body, from a plan (or a placeholder's state).
func peeringCreateBody(m *vpcPeeringModel) api.PeeringCreate {
	return api.PeeringCreate{PeerAccountID: m.PeerAccountID.ValueString(), PeerRegionCode: m.PeerRegionCode.ValueString(), PeerVpcID: m.PeerVPCID.ValueString()}
}

func (r *vpcPeeringResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	readResource(ctx, r.pd, req, resp, "VPC peering",
		func(m vpcPeeringModel) (*api.Peering, error) {
			return r.pd.read().GetPeering(ctx, m.VPCID.ValueString(), m.ID.ValueString())
		}, nil, withRecord((*vpcPeeringModel).applyRecord))
}

// Update only happens for the timeouts block: every argument replaces the peering.
func (r *vpcPeeringResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan vpcPeeringModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *vpcPeeringResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	deleteResource(ctx, r.pd, req, resp, "Could not delete VPC peering",
		func(m vpcPeeringModel) timeoutOf { return m.Timeouts.Delete }, peeringDeleteTimeout,
		func(ctx context.Context, state vpcPeeringModel, _ *diag.Diagnostics) error {
			c := r.pd.client
			vpcID, id := state.VPCID.ValueString(), state.ID.ValueString()
			return wait.Delete(ctx, r.pd.backoff, fmt.Sprintf("peering %s of VPC %s to be deleted", id, vpcID),
				func(ctx context.Context) (string, bool, error) {
					p, err := c.GetPeering(ctx, vpcID, id)
					if err != nil {
						return "", false, err
					}
					st := deref(p.Status)
					return st, strings.EqualFold(st, "deleting"), nil
				},
				func(ctx context.Context) error { return c.DeletePeering(ctx, vpcID, id) }, nil)
		})
}

func (r *vpcPeeringResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importIDParts(ctx, req, resp, peeringTypeName, "1234567890/2345678901", []string{"vpc_id", "peering_id"}, []string{"vpc_id", "id"})
}

// peeringFailed is the error of a peering the API reports as failed.
func peeringFailed(vpcID string, body api.PeeringCreate, p *api.Peering) error {
	msg := deref(p.ErrorMessage)
	if msg == "" {
		msg = "no error_message was given"
	}
	return fmt.Errorf("peering %s of VPC %s with peer VPC %s (account %s, region %s) failed with status %q: %s.\n\n"+
		"Check peer_account_id, peer_region_code and peer_vpc_id, and that the peer VPC exists. Terraform keeps the failed "+
		"peering as tainted: the next apply deletes it and creates a new one",
		deref(p.ID), vpcID, body.PeerVpcID, body.PeerAccountID, body.PeerRegionCode, deref(p.Status), msg)
}

// findCreated is the peering's lookup of a lost create (placeholder.go): the one peering of the
// model's VPC like the model's that was not in lc.Before.
func (r *vpcPeeringResource) findCreated(ctx context.Context, m *vpcPeeringModel, lc lostCreate, cause error) (*api.Peering, error) {
	vpcID, body, before := m.VPCID.ValueString(), peeringCreateBody(m), lc.before()
	return wait.FindCreated(ctx, r.pd.backoff, wait.Created[api.Peering]{
		Kind: "VPC peering", Name: "with " + body.PeerVpcID, ID: peeringID,
		List: func(ctx context.Context) ([]api.Peering, error) { return r.pd.client.ListPeerings(ctx, vpcID) },
		Match: func(p *api.Peering) bool {
			return !before[deref(p.ID)] && deref(p.PeerVpcID) == body.PeerVpcID && deref(p.PeerAccountID) == body.PeerAccountID &&
				deref(p.PeerRegionCode) == body.PeerRegionCode
		},
	}, cause)
}

func (r *vpcPeeringResource) createdID(p *api.Peering) string { return peeringID(p) }

// waitPeeringProvisioned waits until the peering has its provisioned_id (or is active), and returns
// the last record seen (first when none was read). A failed peering ends the wait with its error.
func waitPeeringProvisioned(ctx context.Context, pd *providerData, vpcID, id string, body api.PeeringCreate, first *api.Peering) (*api.Peering, error) {
	c := pd.client
	last := first
	what := fmt.Sprintf("peering %s of VPC %s to be provisioned (provisioned_id known)", id, vpcID)
	_, err := wait.For(ctx, pd.backoff, what, func(ctx context.Context) (wait.PollResult[struct{}], error) {
		got, err := c.GetPeering(ctx, vpcID, id)
		switch {
		case api.IsNotFound(err):
			return wait.PollResult[struct{}]{}, wait.Stop(fmt.Errorf("peering %s of VPC %s disappeared while it was being provisioned: it was deleted outside Terraform, or its VPC was", id, vpcID))
		case err != nil:
			return wait.PollResult[struct{}]{}, err
		}
		last = got
		status := deref(got.Status)
		switch {
		case deref(got.ErrorMessage) != "" || strings.EqualFold(status, "failed"):
			return wait.PollResult[struct{}]{}, wait.Stop(peeringFailed(vpcID, body, got))
		case deref(got.ProvisionedID) != "" || strings.EqualFold(status, "active"):
			return wait.PollResult[struct{}]{Done: true}, nil
		}
		return wait.PollResult[struct{}]{Status: status + ", not yet provisioned"}, nil
	})
	return last, err
}
