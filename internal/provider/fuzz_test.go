package provider

// Fuzz tests of issue 11 point 6: whatever record the API sends (truncated JSON, wrong types,
// unknown statuses, huge strings, missing ids, nulls, camelCase twins), the provider's mapping of it
// into Terraform values never panics, and what it maps is storable in state (the values match the
// schema). FuzzDataSourceRead goes the whole way: client, decoding, flattening and state, through
// every data source's Read.
//
// `go test` runs the seed corpus (testdata/fuzz/<FuzzName>/ and the f.Add seeds below) as ordinary
// tests; `make fuzz` runs each target for a few seconds.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// fuzzRecordSeeds are record answers shared by the targets of this file (testdata/fuzz adds more).
func fuzzRecordSeeds() []string {
	huge := strings.Repeat("é", 1<<15)
	return []string{
		``, `null`, `{}`, `[]`, `[null]`, `[{}]`,
		`{"service_id":"rp1pz7uyae","project_id":"tp1project0","name":"db","region_code":"us-east-1","service_type":"TIMESCALEDB",` +
			`"created":"2026-01-02T03:04:05.123Z","status":"READY","resources":[{"id":"r1","spec":{"cpu_millis":1000,"memory_gbs":4,"volume_type":"gp3"}}],` +
			`"metadata":{"environment":"PROD"},"endpoint":{"host":"h.example","port":5432},"vpc_endpoint":{"host":"v.example","port":5432,"vpc_id":"1234567890"},` +
			`"forked_from":{"project_id":"p","service_id":"s","is_standby":false},"ha_replicas":{"sync_replica_count":1,"replica_count":2},` +
			`"connection_pooler":{"endpoint":{"host":"p.example","port":6432}},"read_replica_sets":[{"id":"rs1","name":"r","status":"active","nodes":2,` +
			`"cpu_millis":1000,"memory_gbs":4,"metadata":{"environment":"DEV"},"endpoint":{"host":"r.example","port":5432},"connection_pooler":{"endpoint":{"host":"rp.example","port":6432}}}]}`,
		`{"service_id":"rp1pz7uyae","status":"WEIRD_NEW_STATUS","service_type":"SOMETHING"}`,
		`{"service_id":"rp1pz7uyae","status":"PAUSED","service_type":"VECTOR"}`,
		`{"service_id":null,"name":null,"status":null,"resources":null,"metadata":null,"endpoint":null,"vpc_endpoint":null,"vpcEndpoint":null,` +
			`"forked_from":null,"ha_replicas":null,"connection_pooler":null,"read_replica_sets":null}`,
		`{"service_id":"rp1pz7uyae","resources":[],"forked_from":{},"connection_pooler":{},"vpc_endpoint":{},"vpcEndpoint":{"vpc_id":"99","host":"twin"}}`,
		`{"service_id":"rp1pz7uyae","resources":[{"spec":{}},{"spec":{"cpu_millis":2000}}],"endpoint":{"port":-1},"ha_replicas":{"replica_count":-5}}`,
		`{"service_id":"rp1pz7uyae","read_replica_sets":[null,{},{"status":""}]}`,
		`{"service_id":"` + huge + `","name":"` + huge + `"}`,
		`{"service_id":"rp1pz7uyae","endpoint":{"port":9223372036854775807}}`,
		`{"service_id":"rp1pz7uyae","created":"0001-01-01T00:00:00Z"}`,
		`{"id":"rs1","name":"r","status":"error","nodes":1,"cpu_millis":500,"memory_gbs":2}`,
		`{"id":null,"status":"deleting","connection_pooler":{"endpoint":{}},"endpoint":{"host":""}}`,
		`[{"id":"rs1","status":"creating"},{"id":"rs1","status":"creating"}]`,
		`{"id":"1234567890","name":"vpc","cidr":"10.0.0.0/16","region_code":"us-east-1"}`,
		`[{"id":"1234567890"},{"name":"no id"}]`,
		`{"id":"1","peer_account_id":"123456789012","peer_region_code":"us-east-1","peer_vpc_id":"vpc-1","provisioned_id":"pcx-1","status":"active"}`,
		`{"id":"1","status":"failed","error_message":"` + huge + `"}`,
		`{"service_id":12,"status":true}`,
		`{"service_id":"rp1pz7uyae"`,
	}
}

// nullObject is a value of the schema's type whose attributes are all null: the start of a model
// that the record is then applied to.
func nullObject(ctx context.Context, typ attr.Type) tftypes.Value { return objectWith(ctx, typ, nil) }

// objectWith is a value of the schema's type with the attributes of set, every other one null: a
// configuration with only what a test gives.
func objectWith(ctx context.Context, typ attr.Type, set map[string]tftypes.Value) tftypes.Value {
	obj := typ.TerraformType(ctx).(tftypes.Object)
	vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
	for name, t := range obj.AttributeTypes {
		vals[name] = tftypes.NewValue(t, nil)
		if v, ok := set[name]; ok {
			vals[name] = v
		}
	}
	return tftypes.NewValue(obj, vals)
}

// resourceState is an empty state of a resource's schema.
func resourceState(t testing.TB, r fwresource.Resource) tfsdk.State {
	t.Helper()
	ctx := t.Context()
	var resp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return tfsdk.State{Schema: resp.Schema, Raw: nullObject(ctx, resp.Schema.Type())}
}

// dataSourceState is an empty state of a data source's schema.
func dataSourceState(t testing.TB, d datasource.DataSource) tfsdk.State {
	t.Helper()
	ctx := t.Context()
	var resp datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return tfsdk.State{Schema: resp.Schema, Raw: nullObject(ctx, resp.Schema.Type())}
}

// storable sets model into st and fails the test if the values do not fit the schema.
func storable(t *testing.T, what string, st tfsdk.State, model any) {
	t.Helper()
	if d := st.Set(t.Context(), model); d.HasError() {
		t.Fatalf("%s: the flattened record is not storable: %v", what, d)
	}
}

// decodeEach decodes body as one record of type T and as a list of them; each record decoded is given to fn.
func decodeEach[T any](body []byte, fn func(*T)) {
	var one T
	if json.Unmarshal(body, &one) == nil {
		fn(&one)
	}
	var list []T
	if json.Unmarshal(body, &list) == nil {
		for i := range list {
			fn(&list[i])
		}
	}
}

// FuzzFlattenService maps any service record the way the resource (applyRecord, forState) and both
// service data sources (flattenService, serviceDataSourceModelFrom, replicaSetObjects) do, and
// stores the result in a state of the matching schema.
func FuzzFlattenService(f *testing.F) {
	for _, s := range fuzzRecordSeeds() {
		f.Add([]byte(s))
	}
	resState := resourceState(f, NewServiceResource())
	dsState := dataSourceState(f, NewServiceDataSource())
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx := t.Context()
		decodeEach(body, func(svc *api.Service) {
			// The resource: a model with every value null, the record applied, made storable.
			st := resState
			var m serviceResourceModel
			if d := st.Get(ctx, &m); d.HasError() {
				t.Fatalf("null model: %v", d)
			}
			m.applyRecord(svc, testProjectID)
			m.forState()
			storable(t, "dbcloud_service resource", st, &m)

			// The dbcloud_service data source (with its read replica sets).
			ds, diags := serviceDataSourceModelFrom(context.Background(), svc, testProjectID)
			if diags.HasError() {
				t.Fatalf("read_replica_sets of the dbcloud_service data source: %v", diags)
			}
			storable(t, "dbcloud_service data source", dsState, &ds)
		})
	})
}

// FuzzFlattenRecords maps any read replica set, VPC or peering record (kind picks which; the body is
// decoded as one record and as a list) the way the resources (applyRecord, nullUnknowns) and the data
// sources (replicaSetData, flattenVPC, flattenPeering) do, and stores the result in a state of the matching
// schema.
func FuzzFlattenRecords(f *testing.F) {
	for i, s := range fuzzRecordSeeds() {
		for kind := range 3 {
			f.Add(uint8(kind+3*i), []byte(s))
		}
	}
	rsState, rsDS := resourceState(f, NewReadReplicaSetResource()), dataSourceState(f, NewReadReplicaSetsDataSource())
	vpcState, vpcsDS := resourceState(f, NewVPCResource()), dataSourceState(f, NewVPCsDataSource())
	pState, pDS := resourceState(f, NewVPCPeeringResource()), dataSourceState(f, NewVPCPeeringsDataSource())
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		ctx := t.Context()
		switch kind % 3 {
		case 0:
			list := readReplicaSetsDataModel{ServiceID: types.StringValue("rp1pz7uyae")}
			var sets []api.ReadReplicaSet
			decodeEach(body, func(rs *api.ReadReplicaSet) {
				st := rsState
				var m readReplicaSetModel
				if d := st.Get(ctx, &m); d.HasError() {
					t.Fatalf("null model: %v", d)
				}
				m.ServiceID, m.ID = types.StringValue("rp1pz7uyae"), types.StringValue(deref(rs.ID))
				m.applyRecord(rs)
				nullUnknowns(&m)
				storable(t, "dbcloud_read_replica_set resource", st, &m)
				_ = replicaSetData(rs)
				sets = append(sets, *rs)
			})
			var diags diag.Diagnostics
			list.ReadReplicaSets, diags = replicaSetObjects(context.Background(), &sets)
			if diags.HasError() {
				t.Fatalf("replica set list: %v", diags)
			}
			list.ReplicaSets = list.ReadReplicaSets
			storable(t, "dbcloud_read_replica_sets data source", rsDS, &list)
		case 1:
			list := vpcsDataModel{VPCs: []vpcFields{}}
			decodeEach(body, func(v *api.VPC) {
				st := vpcState
				var m vpcModel
				if d := st.Get(ctx, &m); d.HasError() {
					t.Fatalf("null model: %v", d)
				}
				m.applyRecord(v)
				storable(t, "dbcloud_vpc resource", st, &m)
				list.VPCs = append(list.VPCs, flattenVPC(v))
			})
			storable(t, "dbcloud_vpcs data source", vpcsDS, &list)
		default:
			list := vpcPeeringsDataModel{VPCID: types.StringValue("1234567890"), Peerings: []peeringFields{}}
			decodeEach(body, func(p *api.Peering) {
				st := pState
				var m vpcPeeringModel
				if d := st.Get(ctx, &m); d.HasError() {
					t.Fatalf("null model: %v", d)
				}
				m.applyRecord(p)
				nullUnknowns(&m)
				storable(t, "dbcloud_vpc_peering resource", st, &m)
				if deref(p.ErrorMessage) != "" {
					_ = peeringFailed("1234567890", api.PeeringCreate{}, p).Error()
				}
				list.Peerings = append(list.Peerings, flattenPeering("1234567890", p))
			})
			storable(t, "dbcloud_vpc_peerings data source", pDS, &list)
		}
	})
}

// fuzzAnswer answers every request of the provider's client with one status and body.
type fuzzAnswer struct {
	status int
	body   []byte
}

func (a fuzzAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: a.status, Status: http.StatusText(a.status),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(a.body)), Request: req,
	}, nil
}

// fuzzClient is a client whose every request is answered status and body, without a network.
func fuzzClient(t testing.TB, rt http.RoundTripper) *api.Client {
	t.Helper()
	c, err := api.New(api.Config{
		BaseURL: "https://api.example.test/v1", AccessKey: "AK-fuzz", SecretKey: testSecretKey, ProjectID: testProjectID,
		Timeout: 5 * time.Second, Retry: &api.RetryPolicy{MaxRetries: 0, MaxElapsed: time.Second}, Transport: rt,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fuzzDataSources are the data sources FuzzDataSourceRead reads, each with the configuration
// attributes it needs (the others are null).
var fuzzDataSources = []struct {
	name string
	new  func() datasource.DataSource
	cfg  map[string]string
}{
	{"dbcloud_service", NewServiceDataSource, map[string]string{"id": "rp1pz7uyae"}},
	{"dbcloud_services", NewServicesDataSource, nil},
	{"dbcloud_read_replica_sets", NewReadReplicaSetsDataSource, map[string]string{"service_id": "rp1pz7uyae"}},
	{"dbcloud_vpc", NewVPCDataSource, map[string]string{"id": "1234567890"}},
	{"dbcloud_vpc (by name)", NewVPCDataSource, map[string]string{"name": "vpc"}},
	{"dbcloud_vpcs", NewVPCsDataSource, nil},
	{"dbcloud_vpc_peering", NewVPCPeeringDataSource, map[string]string{"vpc_id": "1234567890", "id": "1"}},
	{"dbcloud_vpc_peerings", NewVPCPeeringsDataSource, map[string]string{"vpc_id": "1234567890"}},
}

// FuzzDataSourceRead runs the Read of a data source (kind picks which) against an API that answers
// every request with status 200 (or, for a few kinds, an error status) and body: client, decoding,
// flattening and state in one. It must never panic; a failure is an error diagnostic with a summary
// and a detail; a success sets the state.
func FuzzDataSourceRead(f *testing.F) {
	for i, s := range fuzzRecordSeeds() {
		for k := range fuzzDataSources {
			f.Add(uint8(k+i), uint8(0), []byte(s))
		}
		f.Add(uint8(i), uint8(i), []byte(s))
	}
	statuses := []int{200, 200, 200, 200, 404, 409, 500, 429, 204, 401}
	f.Fuzz(func(t *testing.T, kind, statusIdx uint8, body []byte) {
		ctx := t.Context()
		spec := fuzzDataSources[int(kind)%len(fuzzDataSources)]
		status := statuses[int(statusIdx)%len(statuses)]
		ds := spec.new()
		var cresp datasource.ConfigureResponse
		ds.(datasource.DataSourceWithConfigure).Configure(ctx, datasource.ConfigureRequest{
			ProviderData: &providerData{client: fuzzClient(t, fuzzAnswer{status: status, body: body}), backoff: testBackoff},
		}, &cresp)
		var sresp datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
		obj := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
		vals := make(map[string]tftypes.Value, len(obj.AttributeTypes))
		for name, typ := range obj.AttributeTypes {
			if v, ok := spec.cfg[name]; ok {
				vals[name] = tftypes.NewValue(tftypes.String, v)
			} else {
				vals[name] = tftypes.NewValue(typ, nil)
			}
		}
		req := datasource.ReadRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(obj, vals)}}
		resp := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: nullObject(ctx, sresp.Schema.Type())}}
		ds.Read(ctx, req, &resp)
		if resp.Diagnostics.HasError() {
			for _, d := range resp.Diagnostics.Errors() {
				if d.Summary() == "" || d.Detail() == "" {
					t.Fatalf("%s: an error diagnostic without summary or detail: %q / %q", spec.name, d.Summary(), d.Detail())
				}
				if strings.Contains(d.Detail(), testSecretKey) {
					t.Fatalf("%s: the secret key reached a diagnostic: %s", spec.name, d.Detail())
				}
			}
			return
		}
		if status != http.StatusOK {
			t.Fatalf("%s: HTTP %d answered, but Read reported no error", spec.name, status)
		}
	})
}

// routedAnswer answers the provider's client by method and path: the create (any POST) with
// create, every list with [] and a GET of a service with a READY service. It counts the POSTs.
type routedAnswer struct {
	create string
	posts  *int
}

func (a routedAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	status, body := http.StatusOK, "[]"
	p := strings.TrimSuffix(req.URL.Path, "/")
	switch {
	case strings.Contains(p, "/analytics/"):
		body = `{"status":"success"}`
	case req.Method == http.MethodPost:
		*a.posts++
		status, body = http.StatusAccepted, a.create
	case strings.HasSuffix(p, "/services/rp1pz7uyae"):
		body = `{"service_id":"rp1pz7uyae","name":"db","status":"READY"}`
	}
	return fuzzAnswer{status: status, body: []byte(body)}.RoundTrip(req)
}
