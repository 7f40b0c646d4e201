package emulator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Records keep the API view of each object (without derived fields) plus the pending transitions
// of its life cycle. Everything here is guarded by the store's mu (store.go).

// step is a pending transition: do runs once the clock reaches at.
type step struct {
	at   time.Time
	do   func()
	wait func() bool // if set, the step is also held back until wait() holds (database backend)
}

// runDue carries out, in order, the steps whose deadline has passed and returns the rest.
func runDue(steps []step, now time.Time) []step {
	for len(steps) > 0 && !now.Before(steps[0].at) {
		if steps[0].wait != nil && !steps[0].wait() {
			break
		}
		s := steps[0]
		steps = steps[1:]
		s.do()
	}
	if len(steps) == 0 {
		return nil
	}
	return steps
}

type projectState struct {
	services []*serviceRec // in creation order
	vpcs     []*vpcRec     // in creation order
}

type serviceRec struct {
	// svc is the API view without initial_password, read_replica_sets and the deprecated vpcEndpoint
	// twin (derived on output).
	svc             api.Service
	initialPassword string
	password        string
	replicaSets     []*replicaSetRec // in creation order
	steps           []step
	gone            bool
	logs            []logEntry // oldest first
	// attaching is the VPC endpoint of an attach under way: the record shows it (vpc_endpoint) only
	// once the attach is done and the service READY again ("present when attached").
	attaching *api.VPCEndpoint
}

// logEntry is one line of a service's log.
type logEntry struct {
	at       time.Time
	severity string
	node     string
	message  string
	seeded   bool // a synthetic start-up line (seedLogs), not shown when the backend keeps the log
}

// newServiceParams is what a new service is made of (create, fork): newService in services.go.
type newServiceParams struct {
	name, region, serviceType string
	size                      size
	environment               api.Environment
	replicaCount              int
	forkedFrom                *api.ForkedFrom
	addons                    []string // the create request's (for the database backend)
}

type replicaSetRec struct {
	rs    api.ReadReplicaSet
	steps []step
	gone  bool
}

type vpcRec struct {
	vpc      api.VPC
	peerings []*peeringRec // in creation order
}

type peeringRec struct {
	p     api.Peering
	steps []step
}

func (s *serviceRec) id() string                    { return deref(s.svc.ServiceID) }
func (s *serviceRec) status() api.ServiceStatus     { return deref(s.svc.Status) }
func (s *serviceRec) setStatus(v api.ServiceStatus) { s.svc.Status = ptr(v) }

// vpcID is the id of the VPC the service is attached to, or "".
func (s *serviceRec) vpcID() string {
	switch {
	case s.attaching != nil:
		return deref(s.attaching.VpcID)
	case s.svc.VpcEndpoint == nil:
		return ""
	}
	return deref(s.svc.VpcEndpoint.VpcID)
}

// view is the service as GET shows it (no initial_password).
func (s *serviceRec) view() api.Service {
	v := clone(s.svc)
	v.InitialPassword = nil
	if v.VpcEndpoint != nil {
		twin := clone(*v.VpcEndpoint)
		v.VpcEndpointDeprecated = &twin
	}
	rss := make([]api.ReadReplicaSet, 0, len(s.replicaSets))
	for _, rs := range s.replicaSets {
		rss = append(rss, rs.view())
	}
	v.ReadReplicaSets = &rss
	return v
}

// createdView is the service as create and fork answer it (with initial_password).
func (s *serviceRec) createdView() api.Service {
	v := s.view()
	v.InitialPassword = ptr(s.initialPassword)
	return v
}

func (s *serviceRec) findReplicaSet(id string) *replicaSetRec {
	for _, rs := range s.replicaSets {
		if rs.id() == id {
			return rs
		}
	}
	return nil
}

func (rs *replicaSetRec) id() string                       { return deref(rs.rs.ID) }
func (rs *replicaSetRec) status() api.ReplicaSetStatus     { return deref(rs.rs.Status) }
func (rs *replicaSetRec) setStatus(v api.ReplicaSetStatus) { rs.rs.Status = ptr(v) }
func (rs *replicaSetRec) view() api.ReadReplicaSet         { return clone(rs.rs) }

func (v *vpcRec) id() string { return deref(v.vpc.ID) }

func (v *vpcRec) findPeering(id string) *peeringRec {
	for _, p := range v.peerings {
		if deref(p.p.ID) == id {
			return p
		}
	}
	return nil
}

// Accepted values.

// DefaultRegion is the region of services created without region_code.
const DefaultRegion = "us-east-1"

var regions = []string{"us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1"}

// Regions returns the region codes the emulator accepts.
func Regions() []string { return slices.Clone(regions) }

func checkRegion(field, region string) *apiError {
	if slices.Contains(regions, region) {
		return nil
	}
	return badRequest(
		fmt.Sprintf("unknown %s %q", field, region),
		fmt.Sprintf("Accepted regions: %s.", strings.Join(regions, ", ")),
	)
}

// size is a compute size; {0, 0} is "shared".
type size struct{ cpuMillis, memoryGBs int }

// Sizes the emulator accepts, as on the public service.
var sizes = []size{{0, 0}, {500, 2}, {1000, 4}, {2000, 8}, {4000, 16}, {8000, 32}, {16000, 64}, {32000, 128}}

var defaultSize = size{1000, 4}

func (s size) String() string {
	if s == (size{}) {
		return "shared/shared"
	}
	return fmt.Sprintf("%d/%d", s.cpuMillis, s.memoryGBs)
}

func acceptedSizes(withShared bool) string {
	var out []string
	for _, s := range sizes {
		if s == (size{}) && !withShared {
			continue
		}
		out = append(out, s.String())
	}
	return strings.Join(out, ", ")
}

func badSize(s string, withShared bool) *apiError {
	return badRequest(
		fmt.Sprintf("unsupported size %s (cpu_millis/memory_gbs); accepted sizes: %s", s, acceptedSizes(withShared)),
		"cpu_millis and memory_gbs must together form one of the accepted sizes.",
	)
}

// checkIntSize validates an integer size pair (resize, replica sets: "shared" is not possible).
func checkIntSize(cpuMillis, memoryGBs int) *apiError {
	s := size{cpuMillis, memoryGBs}
	if s == (size{}) || !slices.Contains(sizes, s) {
		return badSize(s.String(), false)
	}
	return nil
}

// parseDigitSize validates the digit-string size pair of the resize operations (service and replica
// set; the spec's pattern has already refused anything but digits). "shared" is not possible.
func parseDigitSize(cpu, mem string) (size, *apiError) {
	c, errC := strconv.Atoi(cpu)
	m, errM := strconv.Atoi(mem)
	if errC != nil || errM != nil {
		return size{}, badSize(cpu+"/"+mem, false)
	}
	if err := checkIntSize(c, m); err != nil {
		return size{}, badSize(cpu+"/"+mem, false)
	}
	return size{c, m}, nil
}

// parseSize validates the string size pair of service create and fork. Both nil gives def.
func parseSize(cpu, mem *string, def size) (size, *apiError) {
	switch {
	case cpu == nil && mem == nil:
		return def, nil
	case cpu == nil || mem == nil:
		return size{}, badRequest(
			"cpu_millis and memory_gbs must be given together",
			"Give both cpu_millis and memory_gbs, or neither for the default size.",
		)
	}
	if *cpu == "shared" && *mem == "shared" {
		return size{}, nil
	}
	c, errC := strconv.Atoi(*cpu)
	m, errM := strconv.Atoi(*mem)
	if errC != nil || errM != nil || c <= 0 || m <= 0 {
		return size{}, badSize(*cpu+"/"+*mem, true)
	}
	if err := checkIntSize(c, m); err != nil {
		return size{}, badSize(*cpu+"/"+*mem, true)
	}
	return size{c, m}, nil
}

// serviceSize reads the size from a service's first resource: a spec without numbers is shared.
func serviceSize(svc api.Service) size {
	if svc.Resources == nil || len(*svc.Resources) == 0 || (*svc.Resources)[0].Spec == nil {
		return defaultSize
	}
	spec := (*svc.Resources)[0].Spec
	if spec.CPUMillis == nil || spec.MemoryGbs == nil {
		return size{}
	}
	return size{*spec.CPUMillis, *spec.MemoryGbs}
}

// serviceType maps addons to a service type, with the live API's spelling: time-series gives
// TIMESCALEDB; ai alone gives VECTOR (as on the servers that still report it; newer ones say
// POSTGRES); nothing gives POSTGRES.
func serviceType(addons *[]api.Addon) string {
	var ts, ai bool
	if addons != nil {
		for _, a := range *addons {
			switch a {
			case api.TimeSeries:
				ts = true
			case api.Ai:
				ai = true
			}
		}
	}
	switch {
	case ts:
		return "TIMESCALEDB"
	case ai:
		return "VECTOR"
	}
	return "POSTGRES"
}

// Host names.

func serviceHost(projectID, serviceID string) string {
	return fmt.Sprintf("%s.%s.db.dbcloud.example", serviceID, projectID)
}

func servicePoolerHost(projectID, serviceID string) string {
	return fmt.Sprintf("%s-pooler.%s.db.dbcloud.example", serviceID, projectID)
}

func serviceVPCHost(projectID, serviceID string) string {
	return fmt.Sprintf("%s.%s.vpc.dbcloud.example", serviceID, projectID)
}

func replicaSetHost(projectID, serviceID, rsID string) string {
	return fmt.Sprintf("%s.%s.%s.replica.dbcloud.example", rsID, serviceID, projectID)
}

func replicaSetPoolerHost(projectID, serviceID, rsID string) string {
	return fmt.Sprintf("%s-pooler.%s.%s.replica.dbcloud.example", rsID, serviceID, projectID)
}

// Ports.
const (
	DatabasePort = 5432
	PoolerPort   = 6432
)

// addonNames are the create request's addons as strings (for the database backend).
func addonNames(addons *[]api.Addon) []string {
	if addons == nil {
		return nil
	}
	out := make([]string, 0, len(*addons))
	for _, a := range *addons {
		out = append(out, string(a))
	}
	return out
}

// serviceAddons are the addons a service type stands for (a restored service's, whose create
// request is gone).
func serviceAddons(serviceType string) []string {
	switch serviceType {
	case "TIMESCALEDB", "TIMESERIESDB":
		return []string{string(api.TimeSeries)}
	case "VECTOR":
		return []string{string(api.Ai)}
	}
	return nil
}
