package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// Persistence of the emulator's state (cmd/emulator -state FILE): a Snapshot is the whole state as
// JSON (projects, services with their passwords and replica sets, VPCs and peerings, the ids handed
// out); Restore loads one into an empty emulator.
//
// Pending transitions are closures and are not saved: an operation under way when the snapshot was
// taken is finished when it is restored (QUEUED, CONFIGURING and RESUMING services come back READY,
// PAUSING ones PAUSED, DELETING and DELETED ones are gone; creating and resizing replica sets come
// back active, deleting ones are gone; pending peerings come back active, or failed for a failing
// peer VPC). The request log, analytics events, scripted faults and service logs are not saved.

// SnapshotVersion is the format version written in every snapshot.
const SnapshotVersion = 1

// Snapshot is the persisted state of an Emulator.
type Snapshot struct {
	Version  int                         `json:"version"`
	SavedAt  time.Time                   `json:"saved_at"`
	Projects map[string]*ProjectSnapshot `json:"projects"`
	UsedIDs  []string                    `json:"used_ids,omitempty"`
}

// ProjectSnapshot is one project's objects, in creation order.
type ProjectSnapshot struct {
	Services []ServiceSnapshot `json:"services,omitempty"`
	VPCs     []VPCSnapshot     `json:"vpcs,omitempty"`
}

// ServiceSnapshot is a service with what GET does not show.
type ServiceSnapshot struct {
	Service         api.Service          `json:"service"`
	InitialPassword string               `json:"initial_password,omitempty"`
	Password        string               `json:"password,omitempty"`
	ReplicaSets     []api.ReadReplicaSet `json:"read_replica_sets,omitempty"`
}

// VPCSnapshot is a VPC and its peerings.
type VPCSnapshot struct {
	VPC      api.VPC       `json:"vpc"`
	Peerings []api.Peering `json:"peerings,omitempty"`
}

// Snapshot returns the current state (after carrying out the transitions that are due).
func (e *store) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.advanceLocked()
	snap := Snapshot{Version: SnapshotVersion, SavedAt: now.UTC(), Projects: map[string]*ProjectSnapshot{}}
	for id, p := range e.state {
		ps := &ProjectSnapshot{}
		for _, s := range p.services {
			ss := ServiceSnapshot{Service: clone(s.svc), InitialPassword: s.initialPassword, Password: s.password}
			ss.Service.ReadReplicaSets = nil
			if s.attaching != nil { // restored READY: the attach is done then
				ss.Service.VpcEndpoint = ptr(clone(*s.attaching))
			}
			for _, rs := range s.replicaSets {
				ss.ReplicaSets = append(ss.ReplicaSets, rs.view())
			}
			ps.Services = append(ps.Services, ss)
		}
		for _, v := range p.vpcs {
			vs := VPCSnapshot{VPC: clone(v.vpc)}
			for _, pr := range v.peerings {
				vs.Peerings = append(vs.Peerings, clone(pr.p))
			}
			ps.VPCs = append(ps.VPCs, vs)
		}
		if len(ps.Services) > 0 || len(ps.VPCs) > 0 {
			snap.Projects[id] = ps
		}
	}
	for id := range e.usedIDs {
		snap.UsedIDs = append(snap.UsedIDs, id)
	}
	slices.Sort(snap.UsedIDs)
	return snap
}

// Restore replaces the emulator's objects with a snapshot's, finishing the operations that were
// under way (see the top of this file). With a database backend, every service gets its database
// again (see restoreDatabase).
func (e *store) Restore(snap Snapshot) error {
	if snap.Version != SnapshotVersion {
		return fmt.Errorf("emulator: state format version %d, want %d", snap.Version, SnapshotVersion)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state = map[string]*projectState{}
	e.usedIDs = map[string]bool{}
	for _, id := range snap.UsedIDs {
		e.usedIDs[id] = true
	}
	for pid, ps := range snap.Projects {
		if ps == nil {
			continue
		}
		p := e.project(pid)
		for _, ss := range ps.Services {
			s := &serviceRec{svc: clone(ss.Service), initialPassword: ss.InitialPassword, password: ss.Password}
			s.svc.ReadReplicaSets = nil
			s.svc.VpcEndpointDeprecated = nil // derived on output
			switch s.status() {
			case api.DELETING, api.DELETED:
				continue
			case api.PAUSING:
				s.setStatus(api.PAUSED)
			case api.QUEUED, api.CONFIGURING, api.RESUMING, api.OPTIMIZING, api.UPGRADING:
				s.setStatus(api.READY)
			}
			e.usedIDs[s.id()] = true
			for _, r := range ss.ReplicaSets {
				rs := &replicaSetRec{rs: clone(r)}
				switch rs.status() {
				case api.ReplicaSetStatusDeleting:
					continue
				case api.ReplicaSetStatusCreating, api.ReplicaSetStatusResizing:
					rs.setStatus(api.ReplicaSetStatusActive)
				}
				e.usedIDs[rs.id()] = true
				s.replicaSets = append(s.replicaSets, rs)
			}
			e.restoreDatabase(s)
			p.services = append(p.services, s)
		}
		for _, vs := range ps.VPCs {
			v := &vpcRec{vpc: clone(vs.VPC)}
			e.usedIDs[v.id()] = true
			for _, pe := range vs.Peerings {
				pr := &peeringRec{p: clone(pe)}
				if deref(pr.p.Status) == "pending" {
					if strings.HasPrefix(deref(pr.p.PeerVpcID), FailingPeerVPCPrefix) {
						pr.p.Status = ptr("failed")
						pr.p.ErrorMessage = ptr("peer VPC not found in account " + deref(pr.p.PeerAccountID))
					} else {
						if deref(pr.p.ProvisionedID) == "" {
							pr.p.ProvisionedID = ptr("pcx-" + e.randomString(hexDigits, 17))
						}
						pr.p.Status = ptr("active")
					}
				}
				v.peerings = append(v.peerings, pr)
			}
			p.vpcs = append(p.vpcs, v)
		}
	}
	return nil
}

// restoreDatabase gives a restored service its database back (with a backend): the backend
// starts the data it kept for the service (pgbackend with a data directory beside the state file)
// or a fresh one, with the current password; a paused service's database is stopped again, and its
// replica sets and poolers come back.
func (e *store) restoreDatabase(s *serviceRec) {
	if e.db == nil {
		return
	}
	host, port, err := e.db.OnCreate(s.id(), s.password, serviceAddons(deref(s.svc.ServiceType)))
	if err == nil {
		s.svc.Endpoint = &api.Endpoint{Host: ptr(host), Port: ptr(port)}
		for _, rs := range s.replicaSets {
			if err == nil {
				err = e.dbReplicaSet(s, rs)
			}
			if err == nil && rs.rs.ConnectionPooler != nil {
				rs.rs.ConnectionPooler = &api.ConnectionPooler{Endpoint: e.dbPooler(s, rs.id(), true, rs.rs.ConnectionPooler.Endpoint)}
			}
		}
		if err == nil && s.svc.ConnectionPooler != nil {
			s.svc.ConnectionPooler = &api.ConnectionPooler{Endpoint: e.dbPooler(s, "", true, s.svc.ConnectionPooler.Endpoint)}
		}
		if err == nil && s.status() == api.PAUSED {
			err = e.db.OnStop(s.id())
		}
	}
	if err != nil && e.logf != nil {
		e.logf("emulator: database backend: restoring service %s: %v", s.id(), err)
	}
}

// SaveState writes a snapshot to path atomically (a temporary file in the same directory, then a
// rename), readable by its owner only: it holds the services' passwords.
func SaveState(path string, snap Snapshot) error {
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }()
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadState reads a snapshot from path; a missing file gives ok false and no error.
func LoadState(path string) (snap Snapshot, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Snapshot{}, false, nil
	}
	if err != nil {
		return Snapshot{}, false, err
	}
	if err := json.Unmarshal(b, &snap); err != nil {
		return Snapshot{}, false, fmt.Errorf("emulator: reading state %s: %w", path, err)
	}
	return snap, true, nil
}
