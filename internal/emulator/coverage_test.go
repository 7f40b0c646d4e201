package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// specOperations lists the operationIds of openapi.yaml with a sample path (parameters filled in with
// placeholder ids) and method.
type specOp struct {
	id, method, path string
	hasBody          bool
}

var pathParam = regexp.MustCompile(`\{[a-z_]+\}`)

func specOperations(t *testing.T) []specOp {
	t.Helper()
	sp, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	placeholders := map[string]string{
		"{project_id}": testProject, "{service_id}": "nosuchsvc0", "{replica_set_id}": "nosuchrs00",
		"{vpc_id}": "1000000001", "{peering_id}": "1000000002",
	}
	var out []specOp
	for _, path := range sp.doc.Paths.InMatchingOrder() {
		item := sp.doc.Paths.Value(path)
		for method, op := range item.Operations() {
			p := pathParam.ReplaceAllStringFunc(path, func(s string) string {
				v, ok := placeholders[s]
				if !ok {
					t.Fatalf("no placeholder for path parameter %s of %s", s, path)
				}
				return v
			})
			out = append(out, specOp{id: op.OperationID, method: method, path: p, hasBody: op.RequestBody != nil})
		}
	}
	slices.SortFunc(out, func(a, b specOp) int { return strings.Compare(a.id, b.id) })
	return out
}

// TestEveryOperationHasAHandler fails when openapi.yaml has an operation that the emulator does not
// route to a handler: the spec router must name the operation, and the generated router in front of
// the handlers must answer it with the API's JSON (not Go's "404 page not found" or a 405).
func TestEveryOperationHasAHandler(t *testing.T) {
	t.Parallel()
	e := New(Options{Timing: FastTiming()})
	ops := specOperations(t)
	if len(ops) < 38 {
		t.Fatalf("only %d operations in openapi.yaml", len(ops))
	}
	for _, op := range ops {
		t.Run(op.id, func(t *testing.T) {
			body := ""
			if op.hasBody {
				body = "{}"
			}
			req := httptest.NewRequest(op.method, BasePath+op.path, strings.NewReader(body))
			if rt := e.spec.find(req); rt.route == nil || rt.operationID != op.id {
				t.Fatalf("%s %s: the spec router finds %q, want %q", op.method, op.path, rt.operationID, op.id)
			}
			// Straight to the generated router and the handlers, past validation.
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, req)
			if rec.Code == http.StatusMethodNotAllowed || rec.Code == http.StatusNotImplemented ||
				!strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Code >= 400 {
				t.Fatalf("%s %s: no handler: %d %s", op.method, op.path, rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), "no such endpoint") {
				t.Fatalf("%s %s: no handler: %s", op.method, op.path, rec.Body)
			}
		})
	}
}

// TestEveryOperation calls every operation of openapi.yaml with success and with errors (domain
// errors, 401, 429 with Retry-After, 500, 503) against an emulator whose every answer is checked
// against the spec by the validating middleware, and then requires that each operation was answered
// at least once with a 2XX and once with an error.
func TestEveryOperation(t *testing.T) {
	t.Parallel()
	e := newFakeEnv(t)
	settle := func() { e.clk.Advance(time.Hour) }
	P := "/projects/" + testProject
	samples := map[string]specOp{} // a request per operation, for the fault round
	call := func(op, method, path, body string, want int) []byte {
		t.Helper()
		code, _, b := e.raw(method, path, body)
		if code != want {
			t.Fatalf("%s %s %s: %d, want %d: %s", op, method, path, code, want, b)
		}
		reqs := e.srv.Requests()
		if got := reqs[len(reqs)-1].OperationID; got != op {
			t.Fatalf("%s %s was logged as %q, want %q", method, path, got, op)
		}
		if code < 300 {
			if _, ok := samples[op]; !ok {
				samples[op] = specOp{id: op, method: method, path: path, hasBody: body != ""}
			}
		}
		return b
	}
	idOf := func(b []byte, field string) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("not an object: %s", b)
		}
		s, _ := m[field].(string)
		if s == "" {
			t.Fatalf("no %s in %s", field, b)
		}
		return s
	}
	bodies := map[string]string{}

	call("listProjects", "GET", "/projects", "", 200)
	call("getAuthInfo", "GET", "/auth/info", "", 200)
	call("logout", "POST", "/auth/logout", "", 204)

	bodies["createService"] = `{"name":"db","addons":["time-series"]}`
	sid := idOf(call("createService", "POST", P+"/services", bodies["createService"], 202), "service_id")
	S := P + "/services/" + sid
	call("renameService", "POST", S+"/rename", `{"name":"db2"}`, 409) // QUEUED
	settle()
	call("listServices", "GET", P+"/services", "", 200)
	call("getService", "GET", P+"/services/nosuchsvc0", "", 404)
	call("getService", "GET", S, "", 200)
	call("renameService", "POST", S+"/rename", `{"name":"db2"}`, 200)
	call("renameService", "POST", S+"/rename", `{"name":""}`, 400)
	call("getServiceLogs", "GET", S+"/logs", "", 200)
	call("getServiceLogs", "GET", S+"/logs?cursor=c10&severities=LOG,ERROR&search=a&node=0&since=2025-01-01T00:00:00Z&until=2030-01-01T00:00:00Z", "", 200)
	call("getServiceLogs", "GET", S+"/logs?cursor=x", "", 400)
	call("getServiceLogs", "GET", P+"/services/nosuchsvc0/logs", "", 404)
	call("resizeService", "POST", S+"/resize", `{"cpu_millis":2000,"memory_gbs":8}`, 400)
	call("resizeService", "POST", S+"/resize", `{"cpu_millis":"2000","memory_gbs":"8"}`, 202)
	call("resizeService", "POST", S+"/resize", `{"cpu_millis":"2000","memory_gbs":"8"}`, 409)
	settle()
	call("updatePassword", "POST", S+"/updatePassword", `{"password":"n3w-Pass"}`, 204)
	call("updatePassword", "POST", S+"/updatePassword", `{}`, 400)
	call("setEnvironment", "POST", S+"/setEnvironment", `{"environment":"PROD"}`, 200)
	call("setEnvironment", "POST", S+"/setEnvironment", `{"environment":"QA"}`, 400)
	call("enablePooler", "POST", S+"/enablePooler", "", 200)
	call("enablePooler", "POST", P+"/services/nosuchsvc0/enablePooler", "", 404)
	call("disablePooler", "POST", S+"/disablePooler", "", 200)
	call("disablePooler", "POST", P+"/services/nosuchsvc0/disablePooler", "", 404)
	call("setHA", "POST", S+"/setHA", `{"replica_count":1}`, 202)
	call("setHA", "POST", S+"/setHA", `{"replica_count":1}`, 409)
	settle()

	bodies["createVPC"] = `{"name":"net","cidr":"10.0.0.0/16","region_code":"us-east-1"}`
	vid := idOf(call("createVPC", "POST", P+"/vpcs", bodies["createVPC"], 201), "id")
	call("createVPC", "POST", P+"/vpcs", `{"name":"net","cidr":"10.0.0.1/16","region_code":"us-east-1"}`, 400)
	V := P + "/vpcs/" + vid
	call("attachServiceToVPC", "POST", S+"/attachToVPC", `{"vpc_id":"`+vid+`"}`, 202)
	call("attachServiceToVPC", "POST", S+"/attachToVPC", `{"vpc_id":"`+vid+`"}`, 409)
	settle()
	if b := call("getService", "GET", S, "", 200); !strings.Contains(string(b), `"vpc_endpoint":{`) || !strings.Contains(string(b), `"vpcEndpoint":{`) {
		t.Errorf("an attached service carries vpc_endpoint and its twin vpcEndpoint: %s", b)
	}
	call("deleteVPC", "DELETE", V, "", 409)
	call("detachServiceFromVPC", "POST", S+"/detachFromVPC", `{"vpc_id":"1000000009"}`, 409)
	call("detachServiceFromVPC", "POST", S+"/detachFromVPC", `{"vpc_id":"`+vid+`"}`, 202)
	settle()

	bodies["createReplicaSet"] = `{"name":"r","nodes":2,"cpu_millis":500,"memory_gbs":2}`
	rid := idOf(call("createReplicaSet", "POST", S+"/replicaSets", bodies["createReplicaSet"], 202), "id")
	call("createReplicaSet", "POST", S+"/replicaSets", `{"name":"r","nodes":2,"cpu_millis":"500","memory_gbs":2}`, 400)
	R := S + "/replicaSets/" + rid
	call("resizeReplicaSet", "POST", R+"/resize", `{"cpu_millis":"1000","memory_gbs":"4"}`, 409) // creating
	settle()
	call("listReplicaSets", "GET", S+"/replicaSets", "", 200)
	call("listReplicaSets", "GET", P+"/services/nosuchsvc0/replicaSets", "", 404)
	call("resizeReplicaSet", "POST", R+"/resize", `{"cpu_millis":1000,"memory_gbs":4}`, 400)
	call("resizeReplicaSet", "POST", R+"/resize", `{"cpu_millis":"1000","memory_gbs":"4"}`, 202)
	settle()
	if rs, _ := e.srv.ReplicaSet(testProject, sid, rid); deref(rs.Nodes) != 2 || deref(rs.CPUMillis) != 1000 {
		t.Errorf("after resize: %+v", rs)
	}
	call("enableReplicaSetPooler", "POST", R+"/enablePooler", "", 200)
	call("enableReplicaSetPooler", "POST", S+"/replicaSets/nosuchrs00/enablePooler", "", 404)
	call("disableReplicaSetPooler", "POST", R+"/disablePooler", "", 200)
	call("disableReplicaSetPooler", "POST", S+"/replicaSets/nosuchrs00/disablePooler", "", 404)
	call("setReplicaSetEnvironment", "POST", R+"/setEnvironment", `{"environment":"PROD"}`, 200)
	call("setReplicaSetEnvironment", "POST", R+"/setEnvironment", `{}`, 400)
	call("deleteReplicaSet", "DELETE", R, "", 202)
	call("deleteReplicaSet", "DELETE", S+"/replicaSets/nosuchrs00", "", 404)
	settle()

	bodies["forkService"] = `{"fork_strategy":"NOW"}`
	fid := idOf(call("forkService", "POST", S+"/forkService", bodies["forkService"], 202), "service_id")
	call("forkService", "POST", S+"/forkService", `{"fork_strategy":"PITR"}`, 400)

	call("stopService", "POST", S+"/stop", "", 202)
	e.mustStatus(sid, api.PAUSING)
	call("stopService", "POST", S+"/stop", "", 409)
	call("startService", "POST", S+"/start", "", 409) // PAUSING, not PAUSED
	settle()
	e.mustStatus(sid, api.PAUSED)
	call("enablePooler", "POST", S+"/enablePooler", "", 409)
	call("startService", "POST", S+"/start", "", 202)
	e.mustStatus(sid, api.RESUMING)
	settle()
	e.mustStatus(sid, api.READY)

	call("listVPCs", "GET", P+"/vpcs", "", 200)
	call("listVPCs", "GET", "/projects/-/vpcs", "", 200)
	call("getVPC", "GET", V, "", 200)
	call("getVPC", "GET", P+"/vpcs/1000000009", "", 404)
	call("renameVPC", "POST", V+"/rename", `{"name":"net2"}`, 200)
	call("renameVPC", "POST", P+"/vpcs/1000000009/rename", `{"name":"net2"}`, 404)
	bodies["createPeering"] = `{"peer_account_id":"123456789012","peer_region_code":"us-east-1","peer_vpc_id":"vpc-1"}`
	pid := idOf(call("createPeering", "POST", V+"/peerings", bodies["createPeering"], 201), "id")
	call("createPeering", "POST", V+"/peerings", `{"peer_account_id":"1"}`, 400)
	call("listPeerings", "GET", V+"/peerings", "", 200)
	call("listPeerings", "GET", P+"/vpcs/1000000009/peerings", "", 404)
	call("getPeering", "GET", V+"/peerings/"+pid, "", 200)
	call("getPeering", "GET", V+"/peerings/1000000009", "", 404)
	call("deleteVPC", "DELETE", V, "", 409)
	call("deletePeering", "DELETE", V+"/peerings/"+pid, "", 204)
	call("deletePeering", "DELETE", V+"/peerings/"+pid, "", 404)
	call("deleteVPC", "DELETE", V, "", 204)

	call("identify", "POST", "/analytics/identify", `{"properties":{"os":"linux"}}`, 200)
	call("identify", "POST", "/analytics/identify", `[]`, 400)
	call("track", "POST", "/analytics/track", `{"event":"create"}`, 200)
	call("track", "POST", "/analytics/track", `{}`, 400)

	settle()
	call("deleteService", "DELETE", P+"/services/"+fid, "", 202)
	call("deleteService", "DELETE", P+"/services/nosuchsvc0", "", 404)
	e.clk.Advance(FastTiming().ServiceDeleting)
	if b := call("getService", "GET", P+"/services/"+fid, "", 200); !strings.Contains(string(b), `"DELETED"`) {
		t.Errorf("a DELETED record is seen briefly: %s", b)
	}
	settle()
	call("getService", "GET", P+"/services/"+fid, "", 404)

	// Every operation also answers 401, 429 (with Retry-After) and 5XX in the spec's shape.
	e.srv.SetFaults(Faults{RetryAfter: 2 * time.Second})
	for _, op := range specOperations(t) {
		s, ok := samples[op.id]
		if !ok {
			t.Errorf("operation %s was never answered with success", op.id)
			continue
		}
		body := ""
		if s.hasBody {
			body = bodies[op.id]
			if body == "" {
				body = "{}"
			}
			// Bodies that the spec's validation accepts, so that the fault is what answers.
			for _, r := range e.srv.Requests() {
				if r.OperationID == op.id && r.Status < 300 {
					body = string(r.Body)
					break
				}
			}
		}
		code, _, b := rawRequest(t, e.srv.URL, s.method, s.path, body, testKey, "wrong")
		if code != http.StatusUnauthorized {
			t.Errorf("%s with a wrong secret: %d %s", op.id, code, b)
		}
		for _, f := range []struct {
			kind FaultKind
			want int
		}{{FaultRateLimit, 429}, {FaultServerError, 500}, {FaultUnavailable, 503}} {
			e.srv.InjectFault(op.id, f.kind, 1)
			code, hdr, b := e.raw(s.method, s.path, body)
			if code != f.want {
				t.Errorf("%s with %s: %d %s", op.id, f.kind, code, b)
			}
			if f.kind == FaultRateLimit && hdr.Get("Retry-After") != "2" {
				t.Errorf("%s: 429 with Retry-After %q, want 2", op.id, hdr.Get("Retry-After"))
			}
		}
	}

	// Each operation: at least one success and one error, all checked against the spec.
	type seen struct{ ok, failed bool }
	byOp := map[string]*seen{}
	for _, r := range e.srv.Requests() {
		s := byOp[r.OperationID]
		if s == nil {
			s = &seen{}
			byOp[r.OperationID] = s
		}
		s.ok = s.ok || r.Status >= 200 && r.Status < 300
		s.failed = s.failed || r.Status >= 400
	}
	var missing []string
	for _, op := range specOperations(t) {
		if s := byOp[op.id]; s == nil || !s.ok || !s.failed {
			missing = append(missing, fmt.Sprintf("%s %+v", op.id, s))
		}
	}
	if len(missing) > 0 {
		t.Errorf("operations not exercised with both a success and an error: %v", missing)
	}
}
