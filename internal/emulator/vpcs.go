package emulator

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// FailingPeerVPCPrefix makes a peering fail: a peering whose peer_vpc_id starts with it turns
// "failed" (with an error_message) once provisioning is over, instead of getting a provisioned_id.
const FailingPeerVPCPrefix = "vpc-fail"

func vpcNotFound(projectID, vpcID string) *apiError {
	return notFound(
		fmt.Sprintf("vpc %s not found", vpcID),
		fmt.Sprintf("Project %s has no VPC with this id; it may have been deleted.", projectID),
	)
}

func peeringNotFound(vpcID, peeringID string) *apiError {
	return notFound(
		fmt.Sprintf("peering %s not found", peeringID),
		fmt.Sprintf("VPC %s has no peering with this id; it may have been deleted.", vpcID),
	)
}

func (e *store) vpcOr404(projectID, vpcID string) (*vpcRec, *apiError) {
	v := e.findVPC(projectID, vpcID)
	if v == nil {
		return nil, vpcNotFound(projectID, vpcID)
	}
	return v, nil
}

// checkCIDR accepts an IPv4 network address with a prefix length from 16 to 28.
func checkCIDR(cidr string) *apiError {
	const hint = "Give an IPv4 CIDR block whose address is the network address, with a prefix length from /16 to /28, e.g. 10.0.0.0/16."
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil || !prefix.Addr().Is4() {
		return badRequest(fmt.Sprintf("cidr %q is not an IPv4 CIDR block", cidr), hint)
	}
	if b := prefix.Bits(); b < 16 || b > 28 {
		return badRequest(fmt.Sprintf("cidr %s: prefix length /%d is outside /16 to /28", cidr, b), hint)
	}
	if m := prefix.Masked(); m != prefix {
		return badRequest(fmt.Sprintf("cidr %s is not a network address (did you mean %s?)", cidr, m), hint)
	}
	return nil
}

// ListVPCs answers the project's VPCs, oldest first.
func (h handlers) ListVPCs(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		out := []api.VPC{}
		if p := h.e.state[projectID]; p != nil {
			for _, v := range p.vpcs {
				out = append(out, clone(v.vpc))
			}
		}
		return http.StatusOK, out, nil
	})
}

// CreateVPC creates a VPC (synchronous, 201).
func (h handlers) CreateVPC(w http.ResponseWriter, r *http.Request, projectID api.ProjectID) {
	var in api.VPCCreate
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		e := h.e
		if n := len([]rune(in.Name)); n < 1 || n > 128 {
			return 0, nil, badRequest("name must be 1 to 128 characters", fmt.Sprintf("The name has %d characters.", n))
		}
		if err := checkCIDR(in.Cidr); err != nil {
			return 0, nil, err
		}
		if err := checkRegion("region_code", in.RegionCode); err != nil {
			return 0, nil, err
		}
		v := &vpcRec{vpc: api.VPC{
			ID:         ptr(e.newDecimalID()),
			Name:       ptr(in.Name),
			Cidr:       ptr(in.Cidr),
			RegionCode: ptr(in.RegionCode),
		}}
		p := e.project(projectID)
		p.vpcs = append(p.vpcs, v)
		return http.StatusCreated, clone(v.vpc), nil
	})
}

// GetVPC answers one VPC.
func (h handlers) GetVPC(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, vpcID api.VPCID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		v, err := h.e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, clone(v.vpc), nil
	})
}

// RenameVPC renames a VPC and answers 200 without a body, as the live API does.
func (h handlers) RenameVPC(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, vpcID api.VPCID) {
	var in api.VPCRename
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		v, err := h.e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		if n := len([]rune(in.Name)); n < 1 || n > 128 {
			return 0, nil, badRequest("name must be 1 to 128 characters", fmt.Sprintf("The name has %d characters.", n))
		}
		v.vpc.Name = ptr(in.Name)
		return http.StatusOK, nil, nil
	})
}

// DeleteVPC deletes a VPC that has no attached services and no peerings (204), else 409.
func (h handlers) DeleteVPC(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, vpcID api.VPCID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		e := h.e
		v, err := e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		var attached, peerings []string
		p := e.state[projectID]
		for _, s := range p.services {
			if s.vpcID() == vpcID {
				attached = append(attached, s.id())
			}
		}
		for _, pr := range v.peerings {
			peerings = append(peerings, deref(pr.p.ID))
		}
		if len(attached) > 0 || len(peerings) > 0 {
			slices.Sort(attached)
			slices.Sort(peerings)
			var parts, todo []string
			if len(attached) > 0 {
				parts = append(parts, fmt.Sprintf("attached services [%s]", strings.Join(attached, ", ")))
				todo = append(todo, fmt.Sprintf("detach services %s", strings.Join(attached, ", ")))
			}
			if len(peerings) > 0 {
				parts = append(parts, fmt.Sprintf("peerings [%s]", strings.Join(peerings, ", ")))
				todo = append(todo, fmt.Sprintf("delete peerings %s", strings.Join(peerings, ", ")))
			}
			return 0, nil, conflict(
				fmt.Sprintf("vpc %s is in use: %s", vpcID, strings.Join(parts, "; ")),
				fmt.Sprintf("Before deleting the VPC, %s.", strings.Join(todo, " and ")),
			)
		}
		p.vpcs = slices.DeleteFunc(p.vpcs, func(x *vpcRec) bool { return x == v })
		return http.StatusNoContent, nil, nil
	})
}

// ListPeerings answers a VPC's peerings, oldest first.
func (h handlers) ListPeerings(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, vpcID api.VPCID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		v, err := h.e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		out := make([]api.Peering, 0, len(v.peerings))
		for _, pr := range v.peerings {
			out = append(out, clone(pr.p))
		}
		return http.StatusOK, out, nil
	})
}

// CreatePeering creates a pending peering (201). After PeeringProvisioning it gets a provisioned_id
// (or fails, see FailingPeerVPCPrefix); after PeeringAccepting more it is active.
func (h handlers) CreatePeering(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, vpcID api.VPCID) {
	var in api.PeeringCreate
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		e := h.e
		v, err := e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		if in.PeerAccountID == "" || in.PeerRegionCode == "" || in.PeerVpcID == "" {
			return 0, nil, badRequest("peer_account_id, peer_region_code and peer_vpc_id are required", "All three fields must be non-empty.")
		}
		pr := &peeringRec{p: api.Peering{
			ID:             ptr(e.newDecimalID()),
			PeerAccountID:  ptr(in.PeerAccountID),
			PeerRegionCode: ptr(in.PeerRegionCode),
			PeerVpcID:      ptr(in.PeerVpcID),
			ProvisionedID:  ptr(""),
			Status:         ptr("pending"),
		}}
		provisioned := now.Add(e.timing.PeeringProvisioning)
		pcx := "pcx-" + e.randomString(hexDigits, 17)
		if strings.HasPrefix(in.PeerVpcID, FailingPeerVPCPrefix) {
			msg := fmt.Sprintf("peer VPC not found in account %s: %s (region %s)", in.PeerAccountID, in.PeerVpcID, in.PeerRegionCode)
			pr.steps = []step{{at: provisioned, do: func() {
				pr.p.Status = ptr("failed")
				pr.p.ErrorMessage = ptr(msg)
			}}}
		} else {
			pr.steps = []step{
				{at: provisioned, do: func() { pr.p.ProvisionedID = ptr(pcx) }},
				{at: provisioned.Add(e.timing.PeeringAccepting), do: func() { pr.p.Status = ptr("active") }},
			}
		}
		v.peerings = append(v.peerings, pr)
		return http.StatusCreated, clone(pr.p), nil
	})
}

// GetPeering answers one peering.
func (h handlers) GetPeering(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, vpcID api.VPCID, peeringID api.PeeringID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		v, err := h.e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		pr := v.findPeering(peeringID)
		if pr == nil {
			return 0, nil, peeringNotFound(vpcID, peeringID)
		}
		return http.StatusOK, clone(pr.p), nil
	})
}

// DeletePeering deletes a peering at once (204).
func (h handlers) DeletePeering(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, vpcID api.VPCID, peeringID api.PeeringID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		v, err := h.e.vpcOr404(projectID, vpcID)
		if err != nil {
			return 0, nil, err
		}
		pr := v.findPeering(peeringID)
		if pr == nil {
			return 0, nil, peeringNotFound(vpcID, peeringID)
		}
		v.peerings = slices.DeleteFunc(v.peerings, func(x *peeringRec) bool { return x == pr })
		return http.StatusNoContent, nil, nil
	})
}

// Identify records an identify call.
func (h handlers) Identify(w http.ResponseWriter, r *http.Request) {
	var in api.IdentifyInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		h.e.identifies = append(h.e.identifies, clone(in))
		return http.StatusOK, api.AnalyticsResponse{Status: ptr("success")}, nil
	})
}

// Track records an analytics event.
func (h handlers) Track(w http.ResponseWriter, r *http.Request) {
	var in api.TrackInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		h.e.tracks = append(h.e.tracks, clone(in))
		return http.StatusOK, api.AnalyticsResponse{Status: ptr("success")}, nil
	})
}
