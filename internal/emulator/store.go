package emulator

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// store is the emulator's objects and what changes them, under one lock: the records of every
// project (state.go), the ids handed out, the clock and the timing of the life cycles, the database
// backend behind the services (backend.go), and the log of what the API received. Everything below
// it in the package (life cycles, handlers, persistence) works on a store; the Emulator (emulator.go)
// puts the request chain in front of one.
type store struct {
	database                      // the backend behind the services, and the log (backend.go)
	now          func() time.Time // Options.Now
	listStandbys bool             // Options.ListStandbys
	projectOrder []string         // the allow-list in its order (listProjects, auth info)

	// mu guards everything below, and the Emulator's own fields (emulator.go).
	mu         sync.Mutex
	timing     Timing
	idRand     *rand.Rand
	state      map[string]*projectState
	usedIDs    map[string]bool
	requests   []Request
	tracks     []api.TrackInput
	identifies []api.IdentifyInput
}

// Request is one entry of the request log.
type Request struct {
	OperationID string // operationId from openapi.yaml; "" for unknown paths
	Method      string
	Path        string
	Status      int       // status sent; 0 if the connection was dropped
	Body        []byte    // request body (at most 1 MiB)
	Time        time.Time // arrival, by Options.Now
}

// project returns the state of a project, creating it on first use.
func (e *store) project(id string) *projectState {
	p := e.state[id]
	if p == nil {
		p = &projectState{}
		e.state[id] = p
	}
	return p
}

func (e *store) findService(projectID, serviceID string) *serviceRec {
	p := e.state[projectID]
	if p == nil {
		return nil
	}
	for _, s := range p.services {
		if s.id() == serviceID {
			return s
		}
	}
	return nil
}

func (e *store) findVPC(projectID, vpcID string) *vpcRec {
	p := e.state[projectID]
	if p == nil {
		return nil
	}
	for _, v := range p.vpcs {
		if v.id() == vpcID {
			return v
		}
	}
	return nil
}

// advanceLocked carries out every transition whose deadline has passed and returns the time used.
func (e *store) advanceLocked() time.Time {
	now := e.now()
	for _, p := range e.state {
		for _, s := range p.services {
			s.steps = runDue(s.steps, now)
			for _, rs := range s.replicaSets {
				rs.steps = runDue(rs.steps, now)
			}
			s.replicaSets = slices.DeleteFunc(s.replicaSets, func(rs *replicaSetRec) bool { return rs.gone })
		}
		p.services = slices.DeleteFunc(p.services, func(s *serviceRec) bool { return s.gone })
		for _, v := range p.vpcs {
			for _, pr := range v.peerings {
				pr.steps = runDue(pr.steps, now)
			}
		}
	}
	return now
}

// IDs and secrets.

const (
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	mixedAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexDigits  = "0123456789abcdef"
)

func (e *store) randomString(alphabet string, n int) string {
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(alphabet[e.idRand.IntN(len(alphabet))])
	}
	return b.String()
}

// unique draws from gen until it returns an id never handed out before.
func (e *store) unique(gen func() string) string {
	for {
		id := gen()
		if !e.usedIDs[id] {
			e.usedIDs[id] = true
			return id
		}
	}
}

// newAlnumID returns a project/service/replica-set style id: 10 lower-case letters and digits.
func (e *store) newAlnumID() string {
	return e.unique(func() string { return e.randomString(lowerAlnum, 10) })
}

// newDecimalID returns a VPC/peering style id: a 10-digit decimal string.
func (e *store) newDecimalID() string {
	return e.unique(func() string { return strconv.Itoa(1_000_000_000 + e.idRand.IntN(9_000_000_000)) })
}

func (e *store) newPassword() string { return e.randomString(mixedAlnum, 24) }

// setServiceSize writes the size into a service's first resource, creating it if needed.
func (e *store) setServiceSize(svc *api.Service, s size) {
	if svc.Resources == nil || len(*svc.Resources) == 0 {
		svc.Resources = &[]api.Resource{{ID: ptr(e.newAlnumID())}}
	}
	r := &(*svc.Resources)[0]
	if r.Spec == nil {
		r.Spec = &api.ResourceSpec{VolumeType: ptr("gp3")}
	}
	if s == (size{}) {
		// A shared-size service has no numbers: both fields are absent.
		r.Spec.CPUMillis, r.Spec.MemoryGbs = nil, nil
		return
	}
	r.Spec.CPUMillis = ptr(s.cpuMillis)
	r.Spec.MemoryGbs = ptr(s.memoryGBs)
}
