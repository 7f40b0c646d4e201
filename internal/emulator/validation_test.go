package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// TestRequestValidation sends raw requests that openapi.yaml or the handlers must refuse.
func TestRequestValidation(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	sid := *e.readyService(api.ServiceCreate{Name: "db", ReplicaCount: intp(1)}).ServiceID
	svc := "/projects/" + testProject + "/services"
	one := svc + "/" + sid
	vpcs := "/projects/" + testProject + "/vpcs"
	long := strings.Repeat("n", 129)

	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantCode, wantMsg        string
	}{
		{"bad addon", "POST", svc, `{"name":"x","addons":["gpu"]}`, 400, "BAD_REQUEST", "addons.0: value is not one of the allowed values"},
		{"name too long", "POST", svc, `{"name":"` + long + `"}`, 400, "BAD_REQUEST", "name: maximum string length is 128"},
		{"empty name", "POST", svc, `{"name":""}`, 400, "BAD_REQUEST", "name: minimum string length is 1"},
		{"missing name", "POST", svc, `{"addons":[]}`, 400, "BAD_REQUEST", `property "name" is missing`},
		{"bad size pair", "POST", svc, `{"name":"x","cpu_millis":"1000","memory_gbs":"8"}`, 400, "BAD_REQUEST", "unsupported size 1000/8 (cpu_millis/memory_gbs); accepted sizes: shared/shared, 500/2, 1000/4, 2000/8, 4000/16, 8000/32, 16000/64, 32000/128"},
		{"half shared", "POST", svc, `{"name":"x","cpu_millis":"shared","memory_gbs":"4"}`, 400, "BAD_REQUEST", "unsupported size shared/4"},
		{"cpu only", "POST", svc, `{"name":"x","cpu_millis":"1000"}`, 400, "BAD_REQUEST", "must be given together"},
		{"not a number", "POST", svc, `{"name":"x","cpu_millis":"lots","memory_gbs":"4"}`, 400, "BAD_REQUEST", "cpu_millis: string doesn't match the regular expression"},
		{"cpu as int", "POST", svc, `{"name":"x","cpu_millis":1000,"memory_gbs":"4"}`, 400, "BAD_REQUEST", "cpu_millis"},
		{"unknown region", "POST", svc, `{"name":"x","region_code":"mars-north-1"}`, 400, "BAD_REQUEST", `unknown region_code "mars-north-1"`},
		{"bad environment", "POST", svc, `{"name":"x","environment_tag":"STAGING"}`, 400, "BAD_REQUEST", "environment_tag"},
		{"negative replicas", "POST", svc, `{"name":"x","replica_count":-1}`, 400, "BAD_REQUEST", "replica_count"},
		{"malformed JSON", "POST", svc, `{"name":`, 400, "BAD_REQUEST", "malformed JSON"},
		{"not an object", "POST", svc, `[1,2]`, 400, "BAD_REQUEST", "invalid request body"},
		{"no body", "POST", svc, ``, 400, "BAD_REQUEST", "request body is required"},
		{"resize missing memory", "POST", one + "/resize", `{"cpu_millis":"1000"}`, 400, "BAD_REQUEST", `property "memory_gbs" is missing`},
		{"resize integers", "POST", one + "/resize", `{"cpu_millis":1000,"memory_gbs":4}`, 400, "BAD_REQUEST", "cpu_millis: value must be a string"},
		{"resize bad pair", "POST", one + "/resize", `{"cpu_millis":"1000","memory_gbs":"2"}`, 400, "BAD_REQUEST", "unsupported size 1000/2"},
		{"resize to shared", "POST", one + "/resize", `{"cpu_millis":"shared","memory_gbs":"shared"}`, 400, "BAD_REQUEST", "cpu_millis"},
		{"resize to zero", "POST", one + "/resize", `{"cpu_millis":"0","memory_gbs":"0"}`, 400, "BAD_REQUEST", "unsupported size 0/0"},
		{"resize huge", "POST", one + "/resize", `{"cpu_millis":"99999999999999999999","memory_gbs":"4"}`, 400, "BAD_REQUEST", "unsupported size"},
		{"resize negative", "POST", one + "/resize", `{"cpu_millis":"-1000","memory_gbs":"4"}`, 400, "BAD_REQUEST", "cpu_millis"},
		{"replica resize integers", "POST", one + "/replicaSets/nosuchrs00/resize", `{"cpu_millis":1000,"memory_gbs":4}`, 400, "BAD_REQUEST", "cpu_millis: value must be a string"},
		{"rename empty", "POST", one + "/rename", `{"name":""}`, 400, "BAD_REQUEST", "name"},
		{"rename missing name", "POST", one + "/rename", `{}`, 400, "BAD_REQUEST", "name"},
		{"logs bad since", "GET", one + "/logs?since=yesterday", ``, 400, "BAD_REQUEST", "since"},
		{"logs bad cursor", "GET", one + "/logs?cursor=nope", ``, 400, "BAD_REQUEST", "invalid cursor"},
		{"sync > replicas", "POST", one + "/setHA", `{"replica_count":1,"sync_replica_count":2}`, 400, "BAD_REQUEST", "sync_replica_count (2) must not exceed replica_count (1)"},
		{"empty setHA", "POST", one + "/setHA", `{}`, 400, "BAD_REQUEST", "at least 1 properties"},
		{"empty password", "POST", one + "/updatePassword", `{"password":""}`, 400, "BAD_REQUEST", "password"},
		{"bad environment value", "POST", one + "/setEnvironment", `{"environment":"prod"}`, 400, "BAD_REQUEST", "environment"},
		{"fork without strategy", "POST", one + "/forkService", `{}`, 400, "BAD_REQUEST", `property "fork_strategy" is missing`},
		{"fork bad time", "POST", one + "/forkService", `{"fork_strategy":"PITR","target_time":"yesterday"}`, 400, "BAD_REQUEST", "target_time: must be a date-time string"},
		{"attach without vpc", "POST", one + "/attachToVPC", `{}`, 400, "BAD_REQUEST", "vpc_id"},
		{"replica set missing nodes", "POST", one + "/replicaSets", `{"name":"r","cpu_millis":500,"memory_gbs":2}`, 400, "BAD_REQUEST", "nodes"},
		{"vpc bad cidr", "POST", vpcs, `{"name":"n","cidr":"10.0.0.0/33","region_code":"us-east-1"}`, 400, "BAD_REQUEST", "not an IPv4 CIDR block"},
		{"vpc missing cidr", "POST", vpcs, `{"name":"n","region_code":"us-east-1"}`, 400, "BAD_REQUEST", "cidr"},
		{"vpc rename empty", "POST", vpcs + "/1234567890/rename", `{"name":""}`, 400, "BAD_REQUEST", "name"},
		{"track missing event", "POST", "/analytics/track", `{"properties":{}}`, 400, "BAD_REQUEST", "event"},
		{"unknown path", "GET", "/projects/" + testProject + "/databases", ``, 404, "NOT_FOUND", "no such endpoint"},
		{"outside /v1", "GET", "/../v2/projects/" + testProject + "/services", ``, 404, "NOT_FOUND", "no such endpoint"},
		{"wrong method", "PUT", "/analytics/track", `{"event":"x"}`, 405, "METHOD_NOT_ALLOWED", "not allowed"},
		{"wrong method on a template", "PATCH", one, `{}`, 405, "METHOD_NOT_ALLOWED", "not allowed"},
		{"unknown service", "GET", svc + "/nosuchsvc0", ``, 404, "NOT_FOUND", "service nosuchsvc0 not found"},
		{"unknown vpc", "GET", vpcs + "/1234567890", ``, 404, "NOT_FOUND", "vpc 1234567890 not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := e.raw(tt.method, tt.path, tt.body)
			expectError(t, tt.name, code, body, tt.wantStatus, tt.wantCode, tt.wantMsg)
		})
	}
	// Nothing above changed the service.
	s := e.mustStatus(sid, api.READY)
	if serviceSize(*s) != defaultSize || *s.HaReplicas.ReplicaCount != 1 {
		t.Errorf("service changed by refused requests: %+v", s)
	}
	if n := len(e.srv.Services(testProject)); n != 1 {
		t.Errorf("%d services, want 1", n)
	}
}

func TestContentType(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	resp, err := e.c.CreateServiceWithBodyWithResponse(e.ctx, testProject, "text/plain", strings.NewReader(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "text/plain body", resp.StatusCode(), resp.Body, 400, "BAD_REQUEST", "application/json")
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Projects: []string{testProject, "proj000002"}})
	path := "/projects/" + testProject + "/services"
	tests := []struct {
		name, user, pass, path string
		wantStatus             int
		wantCode               string
	}{
		{"ok", testKey, testSecret, path, 200, ""},
		{"second project", testKey, testSecret, "/projects/proj000002/vpcs", 200, ""},
		{"no credentials", "", "", path, 401, "UNAUTHORIZED"},
		{"wrong secret", testKey, "nope", path, 401, "UNAUTHORIZED"},
		{"wrong key", "nope", testSecret, path, 401, "UNAUTHORIZED"},
		{"no credentials, unknown path", "", "", "/nothing", 401, "UNAUTHORIZED"},
		{"project not allowed", testKey, testSecret, "/projects/otherproj0/services", 403, "FORBIDDEN"},
		{"project not allowed, deep", testKey, testSecret, "/projects/otherproj0/vpcs/1234567890/peerings", 403, "FORBIDDEN"},
		{"analytics has no project", testKey, testSecret, "/analytics/identify", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, body := http.MethodGet, ""
			if strings.HasPrefix(tt.path, "/analytics") {
				method, body = http.MethodPost, `{}`
			}
			code, hdr, b := rawRequest(t, e.srv.URL, method, tt.path, body, tt.user, tt.pass)
			if tt.wantStatus == 200 {
				if code != 200 {
					t.Errorf("status %d: %s", code, b)
				}
				return
			}
			expectError(t, tt.name, code, b, tt.wantStatus, tt.wantCode, "")
			if code == 401 && hdr.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	// Through the generated client as well.
	bad := newClient(t, e.srv.URL, testKey, "wrong")
	r, err := bad.ListServicesWithResponse(e.ctx, testProject)
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "client with a wrong secret", r.StatusCode(), r.Body, 401, "UNAUTHORIZED", "credentials")
	r, err = e.c.ListServicesWithResponse(e.ctx, "otherproj0")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, "client on another project", r.StatusCode(), r.Body, 403, "FORBIDDEN", "otherproj0")
}

func TestAnyCredentialsWhenNoKeys(t *testing.T) {
	t.Parallel()
	srv := newValidatedServer(t, Options{})
	code, _, b := rawRequest(t, srv.URL, "GET", "/projects/p/services", "", "any", "thing")
	if code != 200 {
		t.Errorf("any credentials: %d %s", code, b)
	}
	if code, _, _ = rawRequest(t, srv.URL, "GET", "/projects/p/services", "", "", ""); code != 401 {
		t.Errorf("no credentials: %d, want 401", code)
	}
}
