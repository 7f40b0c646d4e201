package provider

import (
	"strings"
	"testing"
)

// Every argument of a timescale_service with a counterpart is carried over, from each CLI's address;
// the password becomes initial_password (and is in no diagnostic); computed values are left to the
// refresh; no identity (the project is not in the source state: the refresh sets it).
func TestMoveStateService(t *testing.T) {
	attrs := timescaleServiceAttrs("ab12cd34ef", "orders", map[string]any{
		"milli_cpu": 2000, "memory_gb": 8, "ha_replicas": 2, "sync_replicas": 1, "connection_pooler_enabled": true,
		"pooler_hostname": "ab12cd34ef.pooler.example", "pooler_port": 30002, "environment_tag": "PROD",
		"region_code": "eu-west-1", "vpc_id": 9007199254740993, "paused": true, "timeouts": map[string]any{"create": "45m"},
	})
	for _, addr := range timescaleAddresses {
		m := moveState(t, addr, "timescale_service", 0, attrs, serviceTypeName)
		if len(m.diags) > 0 {
			t.Errorf("from %s: diagnostics %q%q", addr, m.errors(), m.warnings())
		}
		wantAttrs(t, "from "+addr, m.state, map[string]any{
			"id": "ab12cd34ef", "name": "orders", "cpu_millis": 2000, "memory_gbs": 8, "ha_replicas": 2, "sync_replicas": 1,
			"connection_pooler_enabled": true, "environment": "PROD", "region_code": "eu-west-1",
			"vpc_id": "9007199254740993", // 2^53+1: every digit, not a float's
			"paused": true, "timeouts": map[string]any{"create": "45m", "update": nil, "delete": nil},
			"initial_password": "tsdb-generated-PW-ab12cd34ef", "password": nil, "password_wo": nil, "password_wo_version": nil,
			"deletion_protection": false, "allow_replacement": nil, "addons": nil, "fork": nil, "project_id": nil,
			"status": nil, "hostname": nil, "pooler_hostname": nil, "service_type": nil,
		})
		if m.identity != nil {
			t.Errorf("from %s: identity %v, want none (the refresh sets it, with the project)", addr, m.identity)
		}
	}
}

// A password_wo user keeps write-only semantics: password_wo_version moves, no password is kept.
func TestMoveStateServicePasswordWO(t *testing.T) {
	attrs := timescaleServiceAttrs("ab12cd34ef", "orders", map[string]any{"password": nil, "password_wo_version": 3})
	m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
	wantAttrs(t, "password_wo", m.state, map[string]any{"password_wo_version": 3, "initial_password": nil, "password": nil, "password_wo": nil})
	// A state that still holds a password next to a version (written before the switch to password_wo):
	// the configuration sets the password, so none is kept.
	attrs["password"] = "an-old-password"
	m = moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
	wantAttrs(t, "password_wo, old password", m.state, map[string]any{"password_wo_version": 3, "initial_password": nil, "password": nil})
}

// A state written before ha_replicas existed takes them from the deprecated enable_ha_replica.
func TestMoveStateServiceEnableHAReplica(t *testing.T) {
	for _, c := range []struct {
		enabled  any
		ha, sync any
	}{{true, 1, 0}, {false, 0, 0}, {nil, nil, nil}} {
		attrs := timescaleServiceAttrs("ab12cd34ef", "orders", map[string]any{"enable_ha_replica": c.enabled, "ha_replicas": nil, "sync_replicas": nil})
		m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
		wantAttrs(t, "enable_ha_replica", m.state, map[string]any{"ha_replicas": c.ha, "sync_replicas": c.sync})
	}
	// ha_replicas in the state wins over enable_ha_replica (which that provider keeps as configured).
	attrs := timescaleServiceAttrs("ab12cd34ef", "orders", map[string]any{"enable_ha_replica": true, "ha_replicas": 2, "sync_replicas": 1})
	m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
	wantAttrs(t, "ha_replicas and enable_ha_replica", m.state, map[string]any{"ha_replicas": 2, "sync_replicas": 1})
}

// What has no counterpart stays on the service, and the move says so in one warning naming each
// attribute that was set (and none that was not).
func TestMoveStateServiceNoCounterpart(t *testing.T) {
	attrs := timescaleServiceAttrs("ab12cd34ef", "orders", map[string]any{
		"data_tiering_enabled": true, "metric_exporter_id": "exp-metrics-1", "storage_gb": 25,
	})
	m := moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
	wantAttrs(t, "no counterpart", m.state, map[string]any{"id": "ab12cd34ef", "name": "orders"})
	warnings := m.warnings()
	if m.errors() != "" || strings.Count(warnings, "\n") != 1 {
		t.Fatalf("errors %q, warnings %q: want one warning", m.errors(), warnings)
	}
	for _, want := range []string{"service ab12cd34ef", "data_tiering_enabled", "metric_exporter_id", "storage_gb"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warning %q does not name %s", warnings, want)
		}
	}
	for _, unset := range []string{"log_exporter_id", "tsdb-generated-PW"} {
		if strings.Contains(warnings, unset) {
			t.Errorf("warning %q names %s", warnings, unset)
		}
	}
	// Off and unset: no warning.
	m = moveState(t, "registry.terraform.io/timescale/timescale", "timescale_service", 0, timescaleServiceAttrs("ab12cd34ef", "orders", nil), serviceTypeName)
	if len(m.diags) > 0 {
		t.Errorf("nothing without a counterpart set: diagnostics %q", m.warnings())
	}
}

// A read replica has no dbcloud_service equivalent: refused, naming it and what to do instead.
func TestMoveStateServiceReadReplicaRefused(t *testing.T) {
	attrs := timescaleServiceAttrs("rr12cd34ef", "orders-replica", map[string]any{"read_replica_source": "ab12cd34ef", "read_replica_nodes": 2, "password": nil})
	m := moveState(t, "registry.opentofu.org/timescale/timescale", "timescale_service", 0, attrs, serviceTypeName)
	errs := m.errors()
	if m.state != nil {
		t.Errorf("a read replica moved: %v", m.state)
	}
	for _, want := range []string{"timescale_service rr12cd34ef is a read replica of service ab12cd34ef", "dbcloud_read_replica_set", "destroy = false", "import"} {
		if !strings.Contains(errs, want) {
			t.Errorf("error %q does not say %q", errs, want)
		}
	}
}
