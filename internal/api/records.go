package api

// Helpers over the generated record types: the live API sends deprecated twins and may omit or null
// any optional object, and these read it the way a client should.

// VPCEndpointOf returns the service's VPC endpoint: vpc_endpoint first, then its deprecated twin
// vpcEndpoint. It is nil when the service is not attached (the object absent, null, or without a
// vpc_id and host).
func VPCEndpointOf(s *Service) *VPCEndpoint {
	if s == nil {
		return nil
	}
	for _, ve := range []*VPCEndpoint{s.VpcEndpoint, s.VpcEndpointDeprecated} {
		if ve != nil && (ve.VpcID != nil && *ve.VpcID != "" || ve.Host != nil && *ve.Host != "") {
			return ve
		}
	}
	return nil
}

// IsSharedSize reports whether a resource spec has no CPU and memory numbers (a shared-size
// service).
func IsSharedSize(spec *ResourceSpec) bool {
	return spec == nil || spec.CPUMillis == nil || spec.MemoryGbs == nil
}

// PoolerEndpoint is the endpoint of a connection pooler, nil while the pooler is off: the one rule of
// "pooler enabled", for services and read replica sets alike. The API leaves connection_pooler out
// when the pooler is off; an object without an endpoint host is off as well.
func PoolerEndpoint(p *ConnectionPooler) *Endpoint {
	if p == nil || p.Endpoint == nil || p.Endpoint.Host == nil || *p.Endpoint.Host == "" {
		return nil
	}
	return p.Endpoint
}

// PoolerEnabled reports whether the service's connection pooler is on (PoolerEndpoint).
func (s *Service) PoolerEnabled() bool { return s != nil && PoolerEndpoint(s.ConnectionPooler) != nil }

// PoolerEnabled reports whether the read replica set's own connection pooler is on (PoolerEndpoint).
func (rs *ReadReplicaSet) PoolerEnabled() bool {
	return rs != nil && PoolerEndpoint(rs.ConnectionPooler) != nil
}

// Paused is the one rule of "the service is paused", for every reader of a service's status: PAUSED,
// or PAUSING (the API accepted a stop, which ends in PAUSED and which only a start undoes). A paused
// service accepts no change but a start: no login, no fork, no new or changed read replica set.
func (st ServiceStatus) Paused() bool { return st == PAUSED || st == PAUSING }

// Paused reports whether the service is paused (ServiceStatus.Paused).
func (s *Service) Paused() bool { return s != nil && s.Status != nil && s.Status.Paused() }
