package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// apiCall is one hand-written client method with the request it must produce.
type apiCall struct {
	name         string
	method, path string // path relative to the base URL
	body         bool   // the request carries a JSON body
	do           func(context.Context, *Client) error
}

func allCalls() []apiCall {
	P := "/projects/" + testProjectID
	S := P + "/services/svc1"
	R := S + "/replicaSets/rs1"
	V := P + "/vpcs/123"
	return []apiCall{
		{"ListServices", "GET", P + "/services", false, func(ctx context.Context, c *Client) error { _, err := c.ListServices(ctx); return err }},
		{"CreateService", "POST", P + "/services", true, func(ctx context.Context, c *Client) error {
			_, err := c.CreateService(ctx, ServiceCreate{Name: "db"})
			return err
		}},
		{"GetService", "GET", S, false, func(ctx context.Context, c *Client) error { _, err := c.GetService(ctx, "svc1"); return err }},
		{"DeleteService", "DELETE", S, false, func(ctx context.Context, c *Client) error { return c.DeleteService(ctx, "svc1") }},
		{"ResizeService", "POST", S + "/resize", true, func(ctx context.Context, c *Client) error { return c.ResizeService(ctx, "svc1", 1000, 4) }},
		{"RenameService", "POST", S + "/rename", true, func(ctx context.Context, c *Client) error { _, err := c.RenameService(ctx, "svc1", "n"); return err }},
		{"StopService", "POST", S + "/stop", false, func(ctx context.Context, c *Client) error { _, err := c.StopService(ctx, "svc1"); return err }},
		{"StartService", "POST", S + "/start", false, func(ctx context.Context, c *Client) error { _, err := c.StartService(ctx, "svc1"); return err }},
		{"GetServiceLogs", "GET", S + "/logs", false, func(ctx context.Context, c *Client) error {
			_, err := c.GetServiceLogs(ctx, "svc1", &GetServiceLogsParams{Cursor: ptr("c10")})
			return err
		}},
		{"ListProjects", "GET", "/projects", false, func(ctx context.Context, c *Client) error { _, err := c.ListProjects(ctx); return err }},
		{"GetAuthInfo", "GET", "/auth/info", false, func(ctx context.Context, c *Client) error { _, err := c.GetAuthInfo(ctx); return err }},
		{"UpdatePassword", "POST", S + "/updatePassword", true, func(ctx context.Context, c *Client) error { return c.UpdatePassword(ctx, "svc1", "pw") }},
		{"SetEnvironment", "POST", S + "/setEnvironment", true, func(ctx context.Context, c *Client) error { return c.SetEnvironment(ctx, "svc1", PROD) }},
		{"SetHA", "POST", S + "/setHA", true, func(ctx context.Context, c *Client) error {
			return c.SetHA(ctx, "svc1", SetHAInput{ReplicaCount: ptr(1)})
		}},
		{"EnablePooler", "POST", S + "/enablePooler", false, func(ctx context.Context, c *Client) error { return c.EnablePooler(ctx, "svc1") }},
		{"DisablePooler", "POST", S + "/disablePooler", false, func(ctx context.Context, c *Client) error { return c.DisablePooler(ctx, "svc1") }},
		{"ForkService", "POST", S + "/forkService", true, func(ctx context.Context, c *Client) error {
			_, err := c.ForkService(ctx, "svc1", ForkServiceCreate{ForkStrategy: NOW})
			return err
		}},
		{"AttachToVPC", "POST", S + "/attachToVPC", true, func(ctx context.Context, c *Client) error { return c.AttachToVPC(ctx, "svc1", "123") }},
		{"DetachFromVPC", "POST", S + "/detachFromVPC", true, func(ctx context.Context, c *Client) error { return c.DetachFromVPC(ctx, "svc1", "123") }},
		{"ListReplicaSets", "GET", S + "/replicaSets", false, func(ctx context.Context, c *Client) error { _, err := c.ListReplicaSets(ctx, "svc1"); return err }},
		{"GetReplicaSet", "GET", S + "/replicaSets", false, func(ctx context.Context, c *Client) error {
			_, err := c.GetReplicaSet(ctx, "svc1", "rs1")
			return err
		}},
		{"CreateReplicaSet", "POST", S + "/replicaSets", true, func(ctx context.Context, c *Client) error {
			_, err := c.CreateReplicaSet(ctx, "svc1", ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
			return err
		}},
		{"DeleteReplicaSet", "DELETE", R, false, func(ctx context.Context, c *Client) error { return c.DeleteReplicaSet(ctx, "svc1", "rs1") }},
		{"ResizeReplicaSet", "POST", R + "/resize", true, func(ctx context.Context, c *Client) error {
			return c.ResizeReplicaSet(ctx, "svc1", "rs1", 1000, 4)
		}},
		{"EnableReplicaSetPooler", "POST", R + "/enablePooler", false, func(ctx context.Context, c *Client) error { return c.EnableReplicaSetPooler(ctx, "svc1", "rs1") }},
		{"DisableReplicaSetPooler", "POST", R + "/disablePooler", false, func(ctx context.Context, c *Client) error { return c.DisableReplicaSetPooler(ctx, "svc1", "rs1") }},
		{"SetReplicaSetEnvironment", "POST", R + "/setEnvironment", true, func(ctx context.Context, c *Client) error {
			return c.SetReplicaSetEnvironment(ctx, "svc1", "rs1", DEV)
		}},
		{"ListVPCs", "GET", P + "/vpcs", false, func(ctx context.Context, c *Client) error { _, err := c.ListVPCs(ctx); return err }},
		{"CreateVPC", "POST", P + "/vpcs", true, func(ctx context.Context, c *Client) error {
			_, err := c.CreateVPC(ctx, VPCCreate{Name: "v", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"})
			return err
		}},
		{"GetVPC", "GET", V, false, func(ctx context.Context, c *Client) error { _, err := c.GetVPC(ctx, "123"); return err }},
		{"DeleteVPC", "DELETE", V, false, func(ctx context.Context, c *Client) error { return c.DeleteVPC(ctx, "123") }},
		{"RenameVPC", "POST", V + "/rename", true, func(ctx context.Context, c *Client) error { _, err := c.RenameVPC(ctx, "123", "n"); return err }},
		{"ListPeerings", "GET", V + "/peerings", false, func(ctx context.Context, c *Client) error { _, err := c.ListPeerings(ctx, "123"); return err }},
		{"CreatePeering", "POST", V + "/peerings", true, func(ctx context.Context, c *Client) error {
			_, err := c.CreatePeering(ctx, "123", PeeringCreate{PeerAccountID: "a", PeerRegionCode: "us-east-1", PeerVpcID: "vpc-1"})
			return err
		}},
		{"GetPeering", "GET", V + "/peerings/456", false, func(ctx context.Context, c *Client) error { _, err := c.GetPeering(ctx, "123", "456"); return err }},
		{"DeletePeering", "DELETE", V + "/peerings/456", false, func(ctx context.Context, c *Client) error { return c.DeletePeering(ctx, "123", "456") }},
		{"Identify", "POST", "/analytics/identify", true, func(ctx context.Context, c *Client) error { return c.Identify(ctx, map[string]any{"k": "v"}) }},
		{"Track", "POST", "/analytics/track", true, func(ctx context.Context, c *Client) error { return c.Track(ctx, "create", nil) }},
	}
}

// okHandler answers every request 200 with a body of the right shape: a bare array for list
// endpoints (holding replica set rs1), an object otherwise.
func okHandler(rec *recorder) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		p := r.URL.Path
		if r.Method == http.MethodGet && (strings.HasSuffix(p, "/services") || strings.HasSuffix(p, "/vpcs") || strings.HasSuffix(p, "/peerings") || strings.HasSuffix(p, "/projects")) {
			writeJSON(w, 200, `[]`)
			return
		}
		if r.Method == http.MethodGet && strings.HasSuffix(p, "/replicaSets") {
			writeJSON(w, 200, `[{"id":"rs0"},{"id":"rs1","name":"r"}]`)
			return
		}
		writeJSON(w, 200, `{}`)
	}
}

func TestEveryCallSendsAuthUserAgentAndPath(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, okHandler(rec), func(cfg *Config) { cfg.UserAgent = "terraform-provider-dbcloud/1.2.3" })
	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte(testAccessKey+":"+testSecretKey))
	ctx := context.Background()
	for _, tc := range allCalls() {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rec.all())
			if err := tc.do(ctx, c); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			reqs := rec.all()[before:]
			want := 1
			if tc.name == "RenameVPC" {
				want = 2 // the answer has no body: the VPC is read again
			}
			if len(reqs) != want {
				t.Fatalf("%d requests, want %d", len(reqs), want)
			}
			got := reqs[0]
			if got.Method != tc.method || got.Path != "/v1"+tc.path {
				t.Errorf("request %s %s, want %s /v1%s", got.Method, got.Path, tc.method, tc.path)
			}
			if a := got.Header.Get("Authorization"); a != wantAuth {
				t.Errorf("Authorization = %q, want %q", a, wantAuth)
			}
			// The server side decodes it back to the two keys.
			user, pass, ok := (&http.Request{Header: got.Header}).BasicAuth()
			if !ok || user != testAccessKey || pass != testSecretKey {
				t.Errorf("BasicAuth() = %q, %q, %v", user, pass, ok)
			}
			if ua := got.Header.Get("User-Agent"); ua != "terraform-provider-dbcloud/1.2.3" {
				t.Errorf("User-Agent = %q", ua)
			}
			if acc := got.Header.Get("Accept"); acc != "application/json" {
				t.Errorf("Accept = %q", acc)
			}
			if tc.body {
				if ct := got.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q, want application/json", ct)
				}
				if !json.Valid([]byte(got.Body)) {
					t.Errorf("body is not JSON: %q", got.Body)
				}
			}
			if strings.HasPrefix(tc.path, "/projects/") && !strings.Contains(got.Path, "/projects/"+testProjectID+"/") {
				t.Errorf("path %q lacks the project id", got.Path)
			}
		})
	}
}

func TestRequestBodies(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, okHandler(rec))
	ctx := context.Background()
	if err := c.ResizeService(ctx, "svc1", 2000, 8); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdatePassword(ctx, "svc1", "n3w-Pass"); err != nil {
		t.Fatal(err)
	}
	if err := c.AttachToVPC(ctx, "svc1", "1234567890"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateService(ctx, ServiceCreate{Name: "db", CPUMillis: ptr("1000"), MemoryGbs: ptr("4"), Addons: &[]Addon{TimeSeries}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"cpu_millis":"2000","memory_gbs":"8"}`,
		`{"password":"n3w-Pass"}`,
		`{"vpc_id":"1234567890"}`,
		`{"addons":["time-series"],"cpu_millis":"1000","memory_gbs":"4","name":"db"}`,
	}
	reqs := rec.all()
	for i, w := range want {
		var got, exp any
		if err := json.Unmarshal([]byte(reqs[i].Body), &got); err != nil {
			t.Fatalf("request %d body %q: %v", i, reqs[i].Body, err)
		}
		_ = json.Unmarshal([]byte(w), &exp)
		gb, _ := json.Marshal(got)
		eb, _ := json.Marshal(exp)
		if string(gb) != string(eb) {
			t.Errorf("request %d body = %s, want %s", i, gb, eb)
		}
	}
}

func TestDefaultUserAgent(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, okHandler(rec))
	if _, err := c.ListServices(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ua := rec.all()[0].Header.Get("User-Agent"); ua != "terraform-provider-dbcloud/dev" {
		t.Errorf("default User-Agent = %q", ua)
	}
}

func TestBaseURLWithTrailingSlashAndPathEscaping(t *testing.T) {
	rec := &recorder{}
	c, srv := newTestClient(t, okHandler(rec), func(cfg *Config) { cfg.BaseURL += "/" })
	if got, want := c.BaseURL(), srv.URL+"/v1"; got != want {
		t.Errorf("BaseURL() = %q, want %q", got, want)
	}
	if c.ProjectID() != testProjectID {
		t.Errorf("ProjectID() = %q", c.ProjectID())
	}
	if _, err := c.GetService(context.Background(), "a/b c"); err != nil {
		t.Fatal(err)
	}
	got := rec.all()[0]
	if got.Path != "/v1/projects/"+testProjectID+"/services/a/b c" || !strings.Contains(got.RawPath, "a%2Fb") {
		t.Errorf("path %q (raw %q): the id must stay one escaped segment under /v1/", got.Path, got.RawPath)
	}
}

func TestValidateBaseURL(t *testing.T) {
	ok := []string{
		"https://api.example.com/v1",
		"https://api.example.com:8443/v1/",
		"http://127.0.0.1:8080/v1",
		"http://127.0.0.2/v1",
		"http://localhost:9000/v1",
		"http://LOCALHOST/v1",
		"http://[::1]:8080/v1",
	}
	for _, raw := range ok {
		if _, err := ValidateBaseURL(raw); err != nil {
			t.Errorf("ValidateBaseURL(%q) = %v, want ok", raw, err)
		}
	}
	bad := []struct{ raw, why string }{
		{"http://example.com/v1", "unencrypted"},
		{"http://10.0.0.1/v1", "not loopback"},
		{"http://localhost.example.com/v1", "not loopback"},
		{"http://[::1/v1", "not a valid URL"},
		{"://nope", "not a valid URL"},
		{"/v1", "absolute"},
		{"api.example.com/v1", "absolute"},
		{"ftp://api.example.com/v1", "https://"},
		{"https:///v1", "absolute"},
		{"https://:443/v1", "absolute"},
		{"https://user:pass@api.example.com/v1", "credentials"},
		{"https://user@api.example.com/v1", "credentials"},
		{"https://api.example.com/v1?x=1", "query"},
		{"https://api.example.com/v1#frag", "fragment"},
		{"", "absolute"},
	}
	for _, tc := range bad {
		_, err := ValidateBaseURL(tc.raw)
		if err == nil {
			t.Errorf("ValidateBaseURL(%q) accepted, want refused", tc.raw)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) {
			t.Errorf("ValidateBaseURL(%q) = %q, want it to say %q", tc.raw, err, tc.why)
		}
		if strings.Contains(err.Error(), "pass@") {
			t.Errorf("error repeats the credentials of the URL: %q", err)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	good := Config{BaseURL: "https://api.example.com/v1", AccessKey: "a", SecretKey: "s", ProjectID: "p"}
	if _, err := New(good); err != nil {
		t.Fatalf("New(good) = %v", err)
	}
	for name, edit := range map[string]func(*Config){
		"no access key": func(c *Config) { c.AccessKey = "" },
		"no secret key": func(c *Config) { c.SecretKey = "" },
		"plain http":    func(c *Config) { c.BaseURL = "http://example.com/v1" },
		"relative":      func(c *Config) { c.BaseURL = "v1" },
		"user info":     func(c *Config) { c.BaseURL = "https://a:b@api.example.com/v1" },
	} {
		cfg := good
		edit(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	cfg := good
	cfg.SecretKey = ""
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "secret key") {
		t.Errorf("empty secret key: error %v should name the secret key", err)
	}
}

const fullService = `{
	"service_id": "svc1", "project_id": "rp1pz7uyae", "name": "db", "region_code": "us-east-1",
	"service_type": "TIMESCALEDB", "created": "2024-05-01T10:00:00Z", "paused": false, "status": "READY",
	"resources": [{"id": "r1", "spec": {"cpu_millis": 1000, "memory_gbs": 4, "volume_type": "gp3"}}],
	"metadata": {"environment": "PROD"},
	"endpoint": {"host": "svc1.example.com", "port": 5432},
	"vpcEndpoint": {"host": "svc1.vpc.example.com", "port": 5433, "vpc_id": "1234567890"},
	"forked_from": {"project_id": "rp1pz7uyae", "service_id": "svc0", "is_standby": false},
	"ha_replicas": {"sync_replica_count": 0, "replica_count": 1},
	"connection_pooler": {"endpoint": {"host": "pool.example.com", "port": 6432}},
	"read_replica_sets": [{"id": "rs1", "name": "r", "status": "active", "nodes": 2, "cpu_millis": 500, "memory_gbs": 2}],
	"brand_new_field": {"nested": [1, 2, 3]}, "another": "x"
}`

func TestServiceDecoding(t *testing.T) {
	cases := map[string]struct {
		body  string
		check func(t *testing.T, s *Service)
	}{
		"full with unknown fields": {fullService, func(t *testing.T, s *Service) {
			if *s.ServiceID != "svc1" || *s.ServiceType != "TIMESCALEDB" || *s.Status != READY {
				t.Errorf("decoded %+v", s)
			}
			if ve := VPCEndpointOf(s); ve == nil || *ve.VpcID != "1234567890" || *ve.Port != 5433 {
				t.Errorf("vpcEndpoint %+v", ve)
			}
			if (*s.Resources)[0].Spec.CPUMillis == nil || *(*s.Resources)[0].Spec.CPUMillis != 1000 {
				t.Errorf("resources %+v", s.Resources)
			}
			if got := (*s.ReadReplicaSets)[0]; *got.ID != "rs1" || *got.Nodes != 2 {
				t.Errorf("read_replica_sets %+v", got)
			}
			if s.Created == nil || !s.Created.Equal(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)) {
				t.Errorf("created %v", s.Created)
			}
		}},
		"missing fields": {`{"service_id":"svc1"}`, func(t *testing.T, s *Service) {
			if *s.ServiceID != "svc1" || s.Name != nil || s.Status != nil || s.Endpoint != nil || s.VpcEndpoint != nil || s.InitialPassword != nil {
				t.Errorf("decoded %+v", s)
			}
		}},
		"vpcEndpoint null": {`{"service_id":"svc1","vpcEndpoint":null}`, func(t *testing.T, s *Service) {
			if s.VpcEndpoint != nil {
				t.Errorf("vpcEndpoint %+v, want nil", s.VpcEndpoint)
			}
		}},
		"vpcEndpoint empty object": {`{"service_id":"svc1","vpcEndpoint":{}}`, func(t *testing.T, s *Service) {
			if s.VpcEndpoint != nil && (s.VpcEndpoint.Host != nil || s.VpcEndpoint.VpcID != nil) {
				t.Errorf("vpcEndpoint %+v, want empty", s.VpcEndpoint)
			}
		}},
		"unknown status and type": {`{"service_id":"svc1","status":"HIBERNATING","service_type":"SOMETHING_NEW"}`, func(t *testing.T, s *Service) {
			if string(*s.Status) != "HIBERNATING" || *s.ServiceType != "SOMETHING_NEW" {
				t.Errorf("decoded %+v", s)
			}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tc.body) })
			s, err := c.GetService(context.Background(), "svc1")
			if err != nil {
				t.Fatalf("GetService: %v", err)
			}
			tc.check(t, s)
		})
	}
}

func TestCreateServiceReturnsInitialPassword(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusAccepted, `{"service_id":"svc9","status":"QUEUED","initial_password":"init-pw"}`)
	})
	s, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if err != nil {
		t.Fatal(err)
	}
	if *s.ServiceID != "svc9" || *s.Status != QUEUED || *s.InitialPassword != "init-pw" {
		t.Errorf("decoded %+v", s)
	}
}

func TestListsDecodeBareArrays(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/services"):
			writeJSON(w, 200, `[{"service_id":"a","x":1},{"service_id":"b","vpcEndpoint":null}]`)
		case strings.HasSuffix(r.URL.Path, "/vpcs"):
			writeJSON(w, 200, `[{"id":"1234567890","name":"v","cidr":"10.0.0.0/16","region_code":"us-east-1"}]`)
		case strings.HasSuffix(r.URL.Path, "/peerings"):
			writeJSON(w, 200, `[{"id":"1","status":"pending","provisioned_id":"","error_message":null}]`)
		case strings.HasSuffix(r.URL.Path, "/replicaSets"):
			writeJSON(w, 200, `[]`)
		}
	})
	ctx := context.Background()
	svcs, err := c.ListServices(ctx)
	if err != nil || len(svcs) != 2 || *svcs[1].ServiceID != "b" {
		t.Errorf("ListServices = %+v, %v", svcs, err)
	}
	vpcs, err := c.ListVPCs(ctx)
	if err != nil || len(vpcs) != 1 || *vpcs[0].Cidr != "10.0.0.0/16" {
		t.Errorf("ListVPCs = %+v, %v", vpcs, err)
	}
	peerings, err := c.ListPeerings(ctx, "1234567890")
	if err != nil || len(peerings) != 1 || *peerings[0].Status != "pending" || peerings[0].ErrorMessage != nil {
		t.Errorf("ListPeerings = %+v, %v", peerings, err)
	}
	sets, err := c.ListReplicaSets(ctx, "a")
	if err != nil || len(sets) != 0 {
		t.Errorf("ListReplicaSets = %+v, %v", sets, err)
	}
}

func TestListRefusesAnObject(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{"items":[]}`) })
	if _, err := c.ListServices(context.Background()); err == nil || !strings.Contains(err.Error(), "list services") {
		t.Errorf("ListServices of an object = %v, want a decoding error naming the operation", err)
	}
}

func TestGetReplicaSet(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `[{"id":"rs0","name":"zero"},{"id":"rs1","name":"one","status":"resizing"}]`)
	})
	ctx := context.Background()
	rs, err := c.GetReplicaSet(ctx, "svc1", "rs1")
	if err != nil || *rs.Name != "one" || *rs.Status != ReplicaSetStatusResizing {
		t.Fatalf("GetReplicaSet(rs1) = %+v, %v", rs, err)
	}
	_, err = c.GetReplicaSet(ctx, "svc1", "rs9")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || !IsNotFound(err) {
		t.Fatalf("GetReplicaSet(rs9) = %v, want a 404 *APIError", err)
	}
	if !strings.Contains(err.Error(), "rs9") || !strings.Contains(err.Error(), "svc1") {
		t.Errorf("error %q should name the set and the service", err)
	}
}

// A list with sets that have no id cannot say that a set is gone: that is an error, never a 404
// (a Read would drop the set from state and the next apply would create a second one).
func TestGetReplicaSetListWithoutIDsIsNotA404(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `[{"id":"rs1","name":"one"},{"name":"no id"},{"id":"","name":"empty id"}]`)
	})
	ctx := context.Background()
	if rs, err := c.GetReplicaSet(ctx, "svc1", "rs1"); err != nil || *rs.Name != "one" {
		t.Fatalf("GetReplicaSet(rs1) = %+v, %v: a listed set is found whatever the others look like", rs, err)
	}
	_, err := c.GetReplicaSet(ctx, "svc1", "rs9")
	if err == nil || IsNotFound(err) {
		t.Fatalf("GetReplicaSet(rs9) = %v, want an error that is not a 404", err)
	}
	if !strings.Contains(err.Error(), "2 replica set(s) without an id") || !strings.Contains(err.Error(), "rs9") {
		t.Errorf("error %q should say what was wrong and name the set", err)
	}
}

func TestGetReplicaSetPassesListErrors(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, errorBody("NOT_FOUND", "service svc1 not found"))
	})
	_, err := c.GetReplicaSet(context.Background(), "svc1", "rs1")
	if !IsNotFound(err) || !strings.Contains(err.Error(), "service svc1 not found") {
		t.Errorf("GetReplicaSet on a missing service = %v", err)
	}
}

func TestUpdatePasswordAccepts204And200(t *testing.T) {
	for _, status := range []int{http.StatusNoContent, http.StatusOK} {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if status == http.StatusOK {
				writeJSON(w, status, `{"message":"password updated"}`)
				return
			}
			w.WriteHeader(status)
		})
		if err := c.UpdatePassword(context.Background(), "svc1", "pw"); err != nil {
			t.Errorf("UpdatePassword answered %d: %v", status, err)
		}
	}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 202, `{}`) })
	if err := c.UpdatePassword(context.Background(), "svc1", "pw"); err == nil {
		t.Errorf("UpdatePassword answered 202 should be an error (not a documented answer)")
	}
}

func TestDeleteVPC204AndConflict(t *testing.T) {
	var n atomic.Int32
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusConflict, errorBody("CONFLICT", "VPC has attached services"))
	})
	ctx := context.Background()
	if err := c.DeleteVPC(ctx, "123"); err != nil {
		t.Fatalf("DeleteVPC 204: %v", err)
	}
	err := c.DeleteVPC(ctx, "123")
	if !IsConflict(err) || IsAmbiguous(err) {
		t.Errorf("DeleteVPC 409 = %v", err)
	}
}

func TestSuccessWithNonJSONBody(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		_, _ = w.Write([]byte("<html>oops</html>"))
	})
	_, err := c.GetService(context.Background(), "svc1")
	if err == nil || !strings.Contains(err.Error(), "get service svc1") || !strings.Contains(err.Error(), "not the expected JSON") {
		t.Errorf("GetService with an HTML 200 = %v", err)
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	rec := &recorder{}
	c, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		if strings.HasPrefix(r.URL.Path, "/elsewhere") {
			writeJSON(w, 200, `[]`)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	_, err := c.CreateService(context.Background(), ServiceCreate{Name: "db"})
	if StatusCode(err) != http.StatusFound || !strings.Contains(err.Error(), "/elsewhere") || !strings.Contains(err.Error(), "base_url") {
		t.Errorf("CreateService answered 302 = %v, want a 302 *APIError naming the target", err)
	}
	if n := rec.hits.Load(); n != 1 {
		t.Errorf("%d requests to %s, want 1 (the redirect must not be followed)", n, srv.URL)
	}
}

// TestLiveAPIShapes covers what the live API changed: resize sizes as digit strings (service and
// replica set, no nodes), the logs query, the VPC rename answered without a body, and the
// vpc_endpoint / vpcEndpoint twins.
func TestLiveAPIShapes(t *testing.T) {
	rec := &recorder{}
	var (
		mu        sync.Mutex
		logsQuery url.Values
	)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		rec.record(r)
		if strings.HasSuffix(r.URL.Path, "/logs") {
			mu.Lock()
			logsQuery = r.URL.Query()
			mu.Unlock()
		}
		switch {
		case strings.HasSuffix(r.URL.Path, "/rename") && strings.Contains(r.URL.Path, "/vpcs/"):
			w.WriteHeader(http.StatusOK) // no body, no Content-Type
		case strings.Contains(r.URL.Path, "/vpcs/"):
			writeJSON(w, 200, `{"id":"123","name":"renamed","cidr":"10.0.0.0/16","region_code":"us-east-1"}`)
		case strings.HasSuffix(r.URL.Path, "/logs"):
			writeJSON(w, 200, `{"logs":["a"],"entries":[{"timestamp":"2026-01-01T00:00:00Z","severity":"LOG","message":"a"}],"last_cursor":"c1"}`)
		default:
			writeJSON(w, 202, `{}`)
		}
	})
	ctx := context.Background()
	if err := c.ResizeReplicaSet(ctx, "svc1", "rs1", 2000, 8); err != nil {
		t.Fatal(err)
	}
	if got := rec.all()[0].Body; got != `{"cpu_millis":"2000","memory_gbs":"8"}` {
		t.Errorf("replica set resize body = %s", got)
	}
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	logs, err := c.GetServiceLogs(ctx, "svc1", &GetServiceLogsParams{Since: &since, Cursor: ptr("c1"), Severities: &[]string{"ERROR", "WARNING"}, Search: ptr("disk")})
	if err != nil || logs.LastCursor == nil || *logs.LastCursor != "c1" || logs.Entries == nil || len(*logs.Entries) != 1 {
		t.Fatalf("logs = %+v, %v", logs, err)
	}
	mu.Lock()
	q := logsQuery
	mu.Unlock()
	if q.Get("since") != "2026-01-01T00:00:00Z" || q.Get("cursor") != "c1" || q.Get("severities") != "ERROR,WARNING" || q.Get("search") != "disk" {
		t.Errorf("logs query = %v", q)
	}
	vpc, err := c.RenameVPC(ctx, "123", "renamed")
	if err != nil || vpc == nil || *vpc.Name != "renamed" {
		t.Fatalf("RenameVPC = %+v, %v", vpc, err)
	}
	if reqs := rec.all()[2:]; len(reqs) != 2 || reqs[1].Method != http.MethodGet {
		t.Errorf("RenameVPC should read the VPC again after the empty answer: %d requests", len(reqs))
	}

	snake := &VPCEndpoint{VpcID: ptr("1"), Host: ptr("snake")}
	camel := &VPCEndpoint{VpcID: ptr("1"), Host: ptr("camel")}
	for name, tc := range map[string]struct {
		s    *Service
		want *VPCEndpoint
	}{
		"both":       {&Service{VpcEndpoint: snake, VpcEndpointDeprecated: camel}, snake},
		"twin only":  {&Service{VpcEndpointDeprecated: camel}, camel},
		"empty":      {&Service{VpcEndpoint: &VPCEndpoint{}}, nil},
		"absent":     {&Service{}, nil},
		"no service": {nil, nil},
	} {
		if got := VPCEndpointOf(tc.s); got != tc.want {
			t.Errorf("%s: VPCEndpointOf = %+v, want %+v", name, got, tc.want)
		}
	}
}
