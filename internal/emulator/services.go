package emulator

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// newService adds a QUEUED service to a project.
func (e *store) newService(projectID string, p newServiceParams, now time.Time) *serviceRec {
	id := e.newAlnumID()
	pw := e.newPassword()
	svc := api.Service{
		ServiceID:   ptr(id),
		ProjectID:   ptr(projectID),
		Name:        ptr(p.name),
		RegionCode:  ptr(p.region),
		ServiceType: ptr(p.serviceType),
		Created:     ptr(now.UTC().Truncate(time.Second)),
		Metadata:    &api.ServiceMetadata{Environment: ptr(string(p.environment))},
		Endpoint:    &api.Endpoint{Host: ptr(serviceHost(projectID, id)), Port: ptr(DatabasePort)},
		HaReplicas:  &api.HAReplicas{ReplicaCount: ptr(p.replicaCount), SyncReplicaCount: ptr(0)},
		ForkedFrom:  p.forkedFrom,
	}
	e.setServiceSize(&svc, p.size)
	s := &serviceRec{svc: svc, initialPassword: pw, password: pw}
	e.dbCreate(s, p)
	e.startService(s, opProvision, now, nil)
	s.seedLogs(now)
	proj := e.project(projectID)
	proj.services = append(proj.services, s)
	return s
}

// ListServices answers the project's services, oldest first.
func (h handlers) ListServices(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		out := []api.Service{}
		if p := h.e.state[projectID]; p != nil {
			for _, s := range p.services {
				out = append(out, s.view())
				if h.e.listStandbys {
					for _, rs := range s.replicaSets {
						out = append(out, standbyView(projectID, s, rs))
					}
				}
			}
		}
		return http.StatusOK, out, nil
	})
}

// CreateService creates a QUEUED service and answers it with its initial_password.
func (h handlers) CreateService(w http.ResponseWriter, r *http.Request, projectID api.ProjectID) {
	var in api.ServiceCreate
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		e := h.e
		if n := len([]rune(in.Name)); n < 1 || n > 128 {
			return 0, nil, badRequest("name must be 1 to 128 characters", fmt.Sprintf("The name has %d characters.", n))
		}
		region := DefaultRegion
		if in.RegionCode != nil {
			region = *in.RegionCode
		}
		if err := checkRegion("region_code", region); err != nil {
			return 0, nil, err
		}
		sz, err := parseSize(in.CPUMillis, in.MemoryGbs, defaultSize)
		if err != nil {
			return 0, nil, err
		}
		replicas := deref(in.ReplicaCount)
		if replicas < 0 {
			return 0, nil, badRequest("replica_count must not be negative", "Use 0 for no HA replicas.")
		}
		env := api.DEV
		if in.EnvironmentTag != nil {
			env = *in.EnvironmentTag
		}
		s := e.newService(projectID, newServiceParams{
			name:         in.Name,
			region:       region,
			serviceType:  serviceType(in.Addons),
			addons:       addonNames(in.Addons),
			size:         sz,
			environment:  env,
			replicaCount: replicas,
		}, now)
		return http.StatusAccepted, s.createdView(), nil
	})
}

// GetService answers one service (without initial_password), or, for a read replica set's id, the
// Service record of its standby (standby.go).
func (h handlers) GetService(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		if s := h.e.findService(projectID, serviceID); s != nil {
			return http.StatusOK, s.view(), nil
		}
		if primary, rs := h.e.findReplicaSetByID(projectID, serviceID); rs != nil {
			return http.StatusOK, standbyView(projectID, primary, rs), nil
		}
		return 0, nil, serviceNotFound(projectID, serviceID)
	})
}

// DeleteService starts deleting a service in any state. Its replica sets go deleting and its VPC
// attachment is released at once; the service is gone after ServiceDeleting.
func (h handlers) DeleteService(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.serviceOr404(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if st := s.status(); (st == api.DELETING || st == api.DELETED) && len(s.steps) > 0 {
			return http.StatusAccepted, nil, nil
		}
		h.e.startService(s, opDelete, now, nil)
		h.e.dbDelete(s)
		s.svc.VpcEndpoint, s.attaching = nil, nil
		for _, rs := range s.replicaSets {
			rs.setStatus(api.ReplicaSetStatusDeleting)
			rs.steps = nil
		}
		s.log(now, "LOG", "received fast shutdown request: the service is being deleted")
		return http.StatusAccepted, nil, nil
	})
}

// ResizeService changes the compute size (digit strings; integers were refused by the spec's
// validation) and answers the service, CONFIGURING.
func (h handlers) ResizeService(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.ResizeInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		sz, err := parseDigitSize(in.CPUMillis, in.MemoryGbs)
		if err != nil {
			return 0, nil, err
		}
		h.e.setServiceSize(&s.svc, sz)
		h.e.startService(s, opConfigure, now, nil)
		s.log(now, "LOG", fmt.Sprintf("resizing to %s (cpu_millis/memory_gbs)", sz))
		return http.StatusAccepted, s.view(), nil
	})
}

// RenameService renames a READY service (synchronous) and answers it.
func (h handlers) RenameService(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.ServiceRename
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if n := len([]rune(in.Name)); n < 1 || n > 128 {
			return 0, nil, badRequest("name must be 1 to 128 characters", fmt.Sprintf("The name has %d characters.", n))
		}
		s.svc.Name = ptr(in.Name)
		s.log(now, "LOG", fmt.Sprintf("service renamed to %q", in.Name))
		return http.StatusOK, s.view(), nil
	})
}

// StopService pauses a READY service: PAUSING, then PAUSED after ServicePausing.
func (h handlers) StopService(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if err := h.e.dbStop(s); err != nil {
			return 0, nil, err
		}
		h.e.startService(s, opPause, now, nil)
		s.log(now, "LOG", "received smart shutdown request: the service is being paused")
		return http.StatusAccepted, s.view(), nil
	})
}

// StartService resumes a PAUSED service: RESUMING, then READY after ServiceResuming. Any other
// status answers 409.
func (h handlers) StartService(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.serviceOr404(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if st := s.status(); st != api.PAUSED {
			return 0, nil, conflict(
				fmt.Sprintf("service %s is %s, not PAUSED", serviceID, st),
				"Only a paused service can be started.",
			)
		}
		if err := h.e.dbStart(s); err != nil {
			return 0, nil, err
		}
		h.e.startService(s, opResume, now, nil)
		s.log(now, "LOG", "the service is being resumed")
		return http.StatusAccepted, s.view(), nil
	})
}

// UpdatePassword stores a new password (synchronous).
func (h handlers) UpdatePassword(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.UpdatePasswordInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if in.Password == "" {
			return 0, nil, badRequest("password must not be empty", "Give the new password in the password field.")
		}
		if err := h.e.dbPassword(s, in.Password); err != nil {
			return 0, nil, err
		}
		s.password = in.Password
		return http.StatusNoContent, nil, nil
	})
}

// SetEnvironment sets metadata.environment (synchronous).
func (h handlers) SetEnvironment(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.SetEnvironmentInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if s.svc.Metadata == nil {
			s.svc.Metadata = &api.ServiceMetadata{}
		}
		s.svc.Metadata.Environment = ptr(string(in.Environment))
		return http.StatusOK, message("environment of service %s set to %s", serviceID, in.Environment), nil
	})
}

// SetHA changes the HA replica counts; the service goes CONFIGURING. A sync_replica_count above the
// resulting replica_count is refused; lowering replica_count alone lowers sync_replica_count with it.
func (h handlers) SetHA(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.SetHAInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if in.ReplicaCount == nil && in.SyncReplicaCount == nil {
			return 0, nil, badRequest("give replica_count, sync_replica_count or both", "The request changed nothing.")
		}
		cur := api.HAReplicas{}
		if s.svc.HaReplicas != nil {
			cur = *s.svc.HaReplicas
		}
		replicas, syncReplicas := deref(cur.ReplicaCount), deref(cur.SyncReplicaCount)
		if in.ReplicaCount != nil {
			replicas = *in.ReplicaCount
		}
		if in.SyncReplicaCount != nil {
			syncReplicas = *in.SyncReplicaCount
			if syncReplicas > replicas {
				return 0, nil, badRequest(
					fmt.Sprintf("sync_replica_count (%d) must not exceed replica_count (%d)", syncReplicas, replicas),
					"Synchronous replicas are a subset of the HA replicas.",
				)
			}
		}
		if replicas < 0 || syncReplicas < 0 {
			return 0, nil, badRequest("replica counts must not be negative", "Use 0 for no replicas.")
		}
		syncReplicas = min(syncReplicas, replicas)
		s.svc.HaReplicas = &api.HAReplicas{ReplicaCount: ptr(replicas), SyncReplicaCount: ptr(syncReplicas)}
		h.e.startService(s, opConfigure, now, nil)
		s.log(now, "LOG", fmt.Sprintf("HA replicas set to %d (%d synchronous)", replicas, syncReplicas))
		return http.StatusAccepted, s.view(), nil
	})
}

// EnablePooler turns the connection pooler on (synchronous, idempotent).
func (h handlers) EnablePooler(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		invented := &api.Endpoint{Host: ptr(servicePoolerHost(projectID, serviceID)), Port: ptr(PoolerPort)}
		s.svc.ConnectionPooler = &api.ConnectionPooler{Endpoint: h.e.dbPooler(s, "", true, invented)}
		return http.StatusOK, message("connection pooler enabled for service %s", serviceID), nil
	})
}

// DisablePooler turns the connection pooler off (synchronous, idempotent).
func (h handlers) DisablePooler(w http.ResponseWriter, _ *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	h.run(w, func(time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if s.svc.ConnectionPooler != nil {
			h.e.dbPooler(s, "", false, nil)
		}
		s.svc.ConnectionPooler = nil
		return http.StatusOK, message("connection pooler disabled for service %s", serviceID), nil
	})
}

// ForkService creates a QUEUED copy of a READY service.
func (h handlers) ForkService(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.ForkServiceCreate
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		e := h.e
		src, err := e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if in.ForkStrategy == api.PITR {
			if in.TargetTime == nil {
				return 0, nil, badRequest("target_time is required for fork_strategy PITR", "Give target_time as an RFC 3339 time within the service's history.")
			}
			if in.TargetTime.After(now) {
				return 0, nil, badRequest("target_time is in the future", fmt.Sprintf("target_time %s is after the current time %s.", in.TargetTime.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
			}
			if created := src.svc.Created; created != nil && in.TargetTime.Before(*created) {
				return 0, nil, badRequest("target_time is before the service was created", fmt.Sprintf("Service %s was created at %s.", serviceID, created.Format(time.RFC3339)))
			}
		}
		name := deref(src.svc.Name) + "-fork"
		if in.Name != nil {
			name = *in.Name
		}
		sz, err := parseSize(in.CPUMillis, in.MemoryGbs, serviceSize(src.svc))
		if err != nil {
			return 0, nil, err
		}
		env := api.DEV
		if in.EnvironmentTag != nil {
			env = *in.EnvironmentTag
		}
		region := deref(src.svc.RegionCode)
		if region == "" {
			region = DefaultRegion
		}
		fork := e.newService(projectID, newServiceParams{
			name:        name,
			region:      region,
			serviceType: deref(src.svc.ServiceType),
			size:        sz,
			environment: env,
			forkedFrom:  &api.ForkedFrom{ProjectID: ptr(projectID), ServiceID: ptr(serviceID), IsStandby: ptr(false)},
		}, now)
		return http.StatusAccepted, fork.createdView(), nil
	})
}

// AttachServiceToVPC attaches a service to a VPC of the same region; the service goes CONFIGURING,
// and its vpc_endpoint shows once it is READY again (the attach is done).
func (h handlers) AttachServiceToVPC(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.VPCAttachInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		e := h.e
		s, err := e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		v := e.findVPC(projectID, in.VpcID)
		if v == nil {
			return 0, nil, vpcNotFound(projectID, in.VpcID)
		}
		if sr, vr := deref(s.svc.RegionCode), deref(v.vpc.RegionCode); sr != vr {
			return 0, nil, badRequest(
				fmt.Sprintf("vpc %s is in region %s but service %s is in region %s", in.VpcID, vr, serviceID, sr),
				"A service can only be attached to a VPC in its own region.",
			)
		}
		if cur := s.vpcID(); cur != "" {
			return 0, nil, conflict(
				fmt.Sprintf("service %s is already attached to vpc %s", serviceID, cur),
				"Detach the service from its VPC before attaching it to another one.",
			)
		}
		s.attaching = &api.VPCEndpoint{
			Host:  ptr(serviceVPCHost(projectID, serviceID)),
			Port:  ptr(DatabasePort),
			VpcID: ptr(in.VpcID),
		}
		e.startService(s, opConfigure, now, func() { s.svc.VpcEndpoint, s.attaching = s.attaching, nil })
		return http.StatusAccepted, message("service %s is being attached to vpc %s", serviceID, in.VpcID), nil
	})
}

// DetachServiceFromVPC detaches a service from the VPC it is attached to; it goes CONFIGURING.
func (h handlers) DetachServiceFromVPC(w http.ResponseWriter, r *http.Request, projectID api.ProjectID, serviceID api.ServiceID) {
	var in api.VPCAttachInput
	if !decode(w, r, &in) {
		return
	}
	h.run(w, func(now time.Time) (int, any, *apiError) {
		s, err := h.e.readyService(projectID, serviceID)
		if err != nil {
			return 0, nil, err
		}
		if cur := s.vpcID(); cur != in.VpcID {
			details := "The service is not attached to any VPC."
			if cur != "" {
				details = fmt.Sprintf("The service is attached to vpc %s.", cur)
			}
			return 0, nil, conflict(fmt.Sprintf("service %s is not attached to vpc %s", serviceID, in.VpcID), details)
		}
		s.svc.VpcEndpoint = nil
		h.e.startService(s, opConfigure, now, nil)
		return http.StatusAccepted, message("service %s is being detached from vpc %s", serviceID, in.VpcID), nil
	})
}
