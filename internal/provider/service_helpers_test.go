package provider

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

func TestServiceAddonsForServiceType(t *testing.T) {
	for _, c := range []struct {
		serviceType string
		want        []string
	}{
		{"POSTGRES", []string{}},
		{"TIMESERIESDB", []string{"time-series"}},
		{"TIMESCALEDB", []string{"time-series"}},
		{"timescaledb", []string{"time-series"}},
		{"VECTOR", []string{"ai"}},
		{"GRAPHDB", []string{}},
		{"", []string{}},
	} {
		if got := addonsForServiceType(c.serviceType); !slices.Equal(got, c.want) {
			t.Errorf("addonsForServiceType(%q) = %v, want %v", c.serviceType, got, c.want)
		}
	}
}

func TestServiceAddonsMatchServiceType(t *testing.T) {
	both := []string{"ai", "time-series"}
	for _, c := range []struct {
		addons      []string
		serviceType string
		want        bool
	}{
		{nil, "POSTGRES", true},
		{[]string{"ai"}, "POSTGRES", false},
		{[]string{"time-series"}, "TIMESERIESDB", true},
		{[]string{"time-series"}, "TIMESCALEDB", true},
		{both, "TIMESERIESDB", true}, // both addons report TIMESERIESDB
		{[]string{"ai"}, "TIMESERIESDB", false},
		{[]string{"ai"}, "VECTOR", true},
		{both, "VECTOR", false},
		{nil, "VECTOR", false},
		{both, "SOMETHING_NEW", true}, // unknown types: cannot tell
	} {
		if got := addonsMatchServiceType(c.addons, c.serviceType); got != c.want {
			t.Errorf("addonsMatchServiceType(%v, %q) = %v, want %v", c.addons, c.serviceType, got, c.want)
		}
	}
}

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

func TestServiceReplaceRules(t *testing.T) {
	ctx := context.Background()
	set := func(v ...string) types.Set { return serviceAddonsSet(v) }
	ts := types.StringValue("TIMESERIESDB")
	if !addonsReplace(ctx, set("time-series", "ai"), ts, false) {
		t.Error("an addons change of a created service must replace it")
	}
	if addonsReplace(ctx, set("time-series", "ai"), ts, true) {
		t.Error("after import, addons consistent with the service type must be adopted in place")
	}
	if !addonsReplace(ctx, set("ai"), ts, true) {
		t.Error("after import, addons inconsistent with the service type must replace")
	}
	if !addonsReplace(ctx, types.SetUnknown(types.StringType), ts, true) {
		t.Error("unknown addons must replace")
	}

	fork := func(src string) types.Object {
		return types.ObjectValueMust(serviceForkAttrTypes, map[string]attr.Value{
			"source_service_id": types.StringValue(src), "strategy": types.StringNull(), "target_time": types.StringNull(),
		})
	}
	from := func(src string) types.Object {
		return types.ObjectValueMust(serviceForkedFromAttrTypes, map[string]attr.Value{
			"project_id": types.StringValue("p"), "service_id": types.StringValue(src), "is_standby": types.BoolValue(false),
		})
	}
	noFork := types.ObjectNull(serviceForkAttrTypes)
	noFrom := types.ObjectNull(serviceForkedFromAttrTypes)
	if !forkReplace(fork("a"), fork("b"), from("b")) {
		t.Error("a changed fork source must replace")
	}
	if !forkReplace(fork("a"), noFork, noFrom) {
		t.Error("adding a fork block to a service that is no fork must replace")
	}
	if forkReplace(fork("a"), noFork, from("a")) {
		t.Error("after import, a fork block naming the forked_from source must be adopted in place")
	}
	if !forkReplace(noFork, fork("a"), from("a")) {
		t.Error("removing the fork block must replace")
	}
}

// findCreatedService resolves a lost create answer by looking: one match is adopted, several are an
// error naming them, none means nothing was created (only services created since the attempt count).
func TestServiceFindCreated(t *testing.T) {
	old := wait.LookFor
	wait.LookFor = 300 * time.Millisecond
	t.Cleanup(func() { wait.LookFor = old })

	srv := newTestEmulator(t)
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	ctx := context.Background()
	cause := errors.New("create service: HTTP 500")
	create := func(name string) string {
		s, err := pd.client.CreateService(ctx, api.ServiceCreate{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return deref(s.ServiceID)
	}
	started := time.Now()
	one := create("one")
	a, b := create("twice"), create("twice")

	got, err := findCreatedService(ctx, pd, "one", started, cause)
	if err != nil || deref(got.ServiceID) != one {
		t.Fatalf("one match: got %v, %v; want %s", got, err, one)
	}
	_, err = findCreatedService(ctx, pd, "twice", started, cause)
	if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !errors.Is(err, cause) {
		t.Fatalf("two matches: want an error naming %s and %s, got %v", a, b, err)
	}
	_, err = findCreatedService(ctx, pd, "never", started, cause)
	if err == nil || !strings.Contains(err.Error(), "nothing was created") {
		t.Fatalf("no match: want 'nothing was created', got %v", err)
	}
	// A service of that name from before the attempt (beyond clock skew) is not this apply's.
	_, err = findCreatedService(ctx, pd, "one", started.Add(2*ambiguousClockSkew), cause)
	if err == nil || !strings.Contains(err.Error(), "nothing was created") {
		t.Fatalf("older service: want 'nothing was created', got %v", err)
	}
}

// A service delete answered 409 while read replica sets this configuration does not manage exist
// fails at once, naming the sets and what to do; with no set (only a busy service) it is waited out.
func TestServiceDeleteBlockedByUnknownReplicaSets(t *testing.T) {
	srv := newTestEmulator(t)
	pd := &providerData{client: testClient(t, srv), backoff: testBackoff}
	ctx := context.Background()
	svc, err := pd.client.CreateService(ctx, api.ServiceCreate{Name: "holder"})
	if err != nil {
		t.Fatal(err)
	}
	id := deref(svc.ServiceID)
	conflict := &api.APIError{Operation: "delete service " + id, StatusCode: 409, Message: "service has read replica sets; delete them first"}
	if err := serviceDeleteBlocked(ctx, pd, id, conflict); err != nil {
		t.Fatalf("no replica set: the 409 is a busy service, to wait out; got %v", err)
	}
	if _, err := waitServiceReady(ctx, pd, id, true); err != nil {
		t.Fatal(err)
	}
	rs, err := pd.client.CreateReplicaSet(ctx, id, api.ReadReplicaSetCreate{Name: "orphan", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = serviceDeleteBlocked(ctx, pd, id, conflict)
	if err == nil || !strings.Contains(err.Error(), deref(rs.ID)) || !strings.Contains(err.Error(), "terraform import dbcloud_read_replica_set") ||
		!errors.Is(err, conflict) {
		t.Fatalf("want an error naming set %s and the import, wrapping the 409; got %v", deref(rs.ID), err)
	}
}
