package emulator

import (
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// The objects behind the API as the tests of this package read and change them, through the door
// (door.go); package emulatortest's Server has the same for the tests of other packages.

// look reads the object find names, as GET shows it.
func look[T any](s *Server, find func(State) (Object[T], bool)) (v T, found bool) {
	s.Edit(func(_ time.Time, st State) {
		if o, ok := find(st); ok {
			v, found = o.View(), true
		}
	})
	return v, found
}

func (s *Server) Service(projectID, serviceID string) (api.Service, bool) {
	return look(s, func(st State) (Object[api.Service], bool) { return st.Service(projectID, serviceID) })
}

func (s *Server) ReplicaSet(projectID, serviceID, replicaSetID string) (api.ReadReplicaSet, bool) {
	return look(s, func(st State) (Object[api.ReadReplicaSet], bool) {
		return st.ReplicaSet(projectID, serviceID, replicaSetID)
	})
}

func (s *Server) VPC(projectID, vpcID string) (api.VPC, bool) {
	return look(s, func(st State) (Object[api.VPC], bool) { return st.VPC(projectID, vpcID) })
}

func (s *Server) Peering(projectID, vpcID, peeringID string) (api.Peering, bool) {
	return look(s, func(st State) (Object[api.Peering], bool) { return st.Peering(projectID, vpcID, peeringID) })
}

func (s *Server) Services(projectID string) (views []api.Service) {
	s.Edit(func(_ time.Time, st State) {
		for _, o := range st.Services(projectID) {
			views = append(views, o.View())
		}
	})
	return views
}

func (s *Server) ServicePassword(projectID, serviceID string) (password string) {
	s.Edit(func(_ time.Time, st State) { password, _ = st.Password(projectID, serviceID) })
	return password
}

// PauseService puts a service in PAUSED at once, with nothing pending.
func (s *Server) PauseService(projectID, serviceID string) (found bool) {
	s.Edit(func(_ time.Time, st State) {
		var o Object[api.Service]
		if o, found = st.Service(projectID, serviceID); found {
			o.Record().Status = ptr(api.PAUSED)
			o.Settle()
		}
	})
	return found
}

func (s *Server) ServiceLogLine(projectID, serviceID, severity, message string) (found bool) {
	s.Edit(func(_ time.Time, st State) { found = st.Log(projectID, serviceID, severity, message) })
	return found
}
