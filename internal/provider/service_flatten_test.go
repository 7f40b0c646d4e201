package provider

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// vpcEndpoint may be null, {} or missing: all mean "not attached".
func TestServiceFlattenEndpoints(t *testing.T) {
	for _, c := range []struct {
		name, json  string
		vpcID, host string // "" = null
		pooler      bool
	}{
		{"missing", `{"service_id":"a"}`, "", "", false},
		{"null", `{"service_id":"a","vpcEndpoint":null,"connection_pooler":null}`, "", "", false},
		{"empty", `{"service_id":"a","vpcEndpoint":{},"connection_pooler":{}}`, "", "", false},
		{"attached", `{"service_id":"a","vpcEndpoint":{"host":"h.vpc","port":5432,"vpc_id":"123"},"connection_pooler":{"endpoint":{"host":"p","port":6432}}}`, "123", "h.vpc", true},
	} {
		var svc api.Service
		if err := json.Unmarshal([]byte(c.json), &svc); err != nil {
			t.Fatal(err)
		}
		f := flattenService(&svc)
		if got := f.VpcID.ValueString(); got != c.vpcID || f.VpcID.IsNull() != (c.vpcID == "") {
			t.Errorf("%s: vpc_id = %v, want %q", c.name, f.VpcID, c.vpcID)
		}
		if got := f.VpcHostname.ValueString(); got != c.host || f.VpcHostname.IsNull() != (c.host == "") {
			t.Errorf("%s: vpc_hostname = %v, want %q", c.name, f.VpcHostname, c.host)
		}
		if f.ConnectionPoolerEnabled.ValueBool() != c.pooler || f.PoolerHostname.IsNull() == c.pooler {
			t.Errorf("%s: pooler = %v/%v, want %v", c.name, f.ConnectionPoolerEnabled, f.PoolerHostname, c.pooler)
		}
		if !f.ForkedFrom.IsNull() || !f.CPUMillis.IsNull() || !f.Status.IsNull() {
			t.Errorf("%s: missing fields must be null: %+v", c.name, f)
		}
	}
}

func TestServiceFlattenRecord(t *testing.T) {
	var svc api.Service
	raw := `{"service_id":"s1","project_id":"p1","name":"n","region_code":"eu-west-1","service_type":"TIMESCALEDB",
	  "created":"2025-01-31T12:00:00+01:00","paused":false,"status":"READY",
	  "resources":[{"id":"r","spec":{"cpu_millis":2000,"memory_gbs":8,"volume_type":"gp3"}}],
	  "metadata":{"environment":"PROD"},"endpoint":{"host":"h","port":5432},
	  "forked_from":{"project_id":"p1","service_id":"s0","is_standby":false},
	  "ha_replicas":{"sync_replica_count":1,"replica_count":2},"unknown_field":42}`
	if err := json.Unmarshal([]byte(raw), &svc); err != nil {
		t.Fatal(err)
	}
	f := flattenService(&svc)
	checks := map[string][2]any{
		"created":      {f.Created.ValueString(), "2025-01-31T11:00:00Z"},
		"cpu":          {f.CPUMillis.ValueInt64(), int64(2000)},
		"memory":       {f.MemoryGbs.ValueInt64(), int64(8)},
		"volume":       {f.VolumeType.ValueString(), "gp3"},
		"env":          {f.Environment.ValueString(), "PROD"},
		"ha":           {f.HAReplicas.ValueInt64(), int64(2)},
		"sync":         {f.SyncReplicas.ValueInt64(), int64(1)},
		"service_type": {f.ServiceType.ValueString(), "TIMESCALEDB"},
		"forked_from":  {f.ForkedFrom.Attributes()["service_id"].(types.String).ValueString(), "s0"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
}

// paused is the record's rule (api.Service.Paused): true while a stop is under way (PAUSING) and once
// it is done (PAUSED), false otherwise.
func TestServiceFlattenPaused(t *testing.T) {
	for st, want := range map[api.ServiceStatus]bool{api.READY: false, api.PAUSING: true, api.PAUSED: true, api.RESUMING: false} {
		if got := flattenService(&api.Service{Status: &st}).Paused; !got.Equal(types.BoolValue(want)) {
			t.Errorf("status %s: paused = %v, want %v", st, got, want)
		}
	}
}

// BenchmarkFlattenService measures mapping one API record to Terraform values.
func BenchmarkFlattenService(b *testing.B) {
	svc := &api.Service{
		ServiceID: ptr("rp1pz7uyae"), ProjectID: ptr("tp1project0"), Name: ptr("bench"), RegionCode: ptr("us-east-1"),
		ServiceType: ptr("TIMESERIESDB"), Status: ptr(api.READY),
		Resources:   &[]api.Resource{{ID: ptr("r1"), Spec: &api.ResourceSpec{CPUMillis: ptr(1000), MemoryGbs: ptr(4), VolumeType: ptr("gp3")}}},
		Metadata:    &api.ServiceMetadata{Environment: ptr("PROD")},
		Endpoint:    &api.Endpoint{Host: ptr("rp1pz7uyae.tp1project0.db.dbcloud.example"), Port: ptr(5432)},
		HaReplicas:  &api.HAReplicas{ReplicaCount: ptr(2), SyncReplicaCount: ptr(1)},
		VpcEndpoint: &api.VPCEndpoint{Host: ptr("v.example"), Port: ptr(5432), VpcID: ptr("1234567890")},
	}
	b.ReportAllocs()
	for b.Loop() {
		var m serviceResourceModel
		m.applyRecord(svc, "tp1project0")
		benchSink = m
	}
}

var benchSink serviceResourceModel
