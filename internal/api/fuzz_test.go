package api

// Fuzz tests of issue 11 point 6: a malformed answer of the API (truncated JSON, wrong types,
// unknown statuses, huge strings, missing ids, nulls, camelCase twins) never panics the client; it
// decodes, or it becomes a clear error that names the operation.
//
// `go test` runs the seed corpus (testdata/fuzz/<FuzzName>/ and the f.Add seeds below) as ordinary
// tests; `make fuzz` runs each target for a few seconds.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzSeeds are answers shared by the targets of this file (the files in testdata/fuzz add more).
func fuzzSeeds() []string {
	huge := strings.Repeat("x", 1<<16)
	return []string{
		``,
		`null`,
		`{}`,
		`[]`,
		`[null]`,
		`{"service_id":"rp1pz7uyae","name":"db","status":"READY","resources":[{"id":"r","spec":{"cpu_millis":1000,"memory_gbs":4}}]}`,
		`{"service_id":"rp1pz7uyae","status":"SOMETHING_NEW","service_type":"TIMESERIESDB"}`,
		`{"service_id":12345}`,
		`{"service_id":"rp1pz7uyae","resources":[{"spec":{"cpu_millis":"1000","memory_gbs":"4"}}]}`,
		`{"service_id":"rp1pz7uyae","resources":[{"spec":null},null]}`,
		`{"service_id":"rp1pz7uyae","vpcEndpoint":{"host":"h","port":5432,"vpc_id":"1234567890"},"vpc_endpoint":null}`,
		`{"service_id":"rp1pz7uyae","endpoint":{"host":null,"port":1e300}}`,
		`{"service_id":"rp1pz7uyae","created":"not a time"}`,
		`{"service_id":"rp1pz7uyae","created":"10000-01-01T00:00:00Z"}`,
		`{"service_id":"rp1pz7uyae","read_replica_sets":[{"id":null,"status":"exploding","nodes":-1}]}`,
		`{"service_id":"rp1pz7uyae","name":"` + huge + `"}`,
		`{"id":"1234567890","name":"v","cidr":"10.0.0.0/16","region_code":"us-east-1"}`,
		`{"id":"1","status":"failed","error_message":"peer VPC not found","provisioned_id":""}`,
		`[{"id":"a","status":"active","nodes":2,"cpu_millis":1000,"memory_gbs":4}]`,
		`{"code":"NOT_FOUND","message":"no service with that id exists"}`,
		`{"code":"CONFLICT","message":"busy","details":{"nested":["a",1]}}`,
		`{"code":"","message":"","details":"only details"}`,
		`{"code":1,"message":["wrong"]}`,
		`<html><body>502 Bad Gateway</body></html>`,
		`{"service_id":"rp1pz7uyae"`,
		`{"service_id":"rp1pz7uyae","name":"\ud800"}`,
		"\xff\xfe\x00garbage",
		`{"code":"X","message":"` + huge + `"}`,
	}
}

// FuzzDecodeRecords decodes any body into every record type and list of the API and reads it the
// way the provider does (VPCEndpointOf, IsSharedSize): none of it may panic.
func FuzzDecodeRecords(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var svc Service
		if json.Unmarshal(body, &svc) == nil {
			readService(&svc)
		}
		var svcs []Service
		if json.Unmarshal(body, &svcs) == nil {
			for i := range svcs {
				readService(&svcs[i])
			}
		}
		for _, v := range []any{&ReadReplicaSet{}, &[]ReadReplicaSet{}, &VPC{}, &[]VPC{}, &Peering{}, &[]Peering{},
			&Project{}, &[]Project{}, &AuthInfo{}, &ServiceLogs{}, &Error{}} {
			_ = json.Unmarshal(body, v)
		}
		_ = MaskBody(body, "secret")
	})
}

func readService(s *Service) {
	_ = VPCEndpointOf(s)
	if s.Resources != nil {
		for _, r := range *s.Resources {
			_ = IsSharedSize(r.Spec)
		}
	}
}

// FuzzErrorBody decodes any body as the API's error answer: the error is never empty, always names
// the operation and the status, and stays short enough for a diagnostic when the body is not JSON.
func FuzzErrorBody(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add(uint16([]int{400, 401, 403, 404, 409, 429, 500, 502, 503, 504, 302, 418}[i%12]), []byte(s))
	}
	f.Fuzz(func(t *testing.T, status uint16, body []byte) {
		const op = "get service rp1pz7uyae"
		e := newAPIError(op, int(status), body)
		msg := e.Error()
		if !strings.HasPrefix(msg, op+": HTTP "+strconv.Itoa(int(status))) {
			t.Fatalf("error %q does not start with the operation and status", msg)
		}
		_ = e.Hint()
		if e.Code == "" && e.Message == "" && len(e.Body) > 512+len("...") {
			t.Fatalf("raw body kept in full (%d bytes): it must be truncated", len(e.Body))
		}
		if StatusCode(e) != int(status) {
			t.Fatalf("StatusCode = %d, want %d", StatusCode(e), status)
		}
	})
}

// fuzzTransport answers every request with one status and body, without a network.
type fuzzTransport struct {
	status int
	body   []byte
}

func (ft fuzzTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: ft.status,
		Status:     strconv.Itoa(ft.status) + " " + http.StatusText(ft.status),
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(bytes.NewReader(ft.body)),
		Request:    req,
	}, nil
}

// fuzzStatuses are the statuses an answer is given: the successes the client accepts, the errors
// it must type, and a few it never expects.
var fuzzStatuses = []int{200, 201, 202, 204, 400, 401, 403, 404, 409, 429, 500, 502, 503, 302, 418, 299}

// fuzzOp is one client call and the statuses it accepts as success.
type fuzzOp struct {
	name string
	ok   []int
	call func(context.Context, *Client) (record any, err error)
}

var fuzzOps = []fuzzOp{
	{"get service", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.GetService(ctx, "rp1pz7uyae") }},
	{"list services", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.ListServices(ctx) }},
	{"create service", []int{200, 201, 202}, func(ctx context.Context, c *Client) (any, error) {
		return c.CreateService(ctx, ServiceCreate{Name: "db"})
	}},
	{"list read replica sets", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.ListReplicaSets(ctx, "rp1pz7uyae") }},
	{"create read replica set", []int{200, 201, 202}, func(ctx context.Context, c *Client) (any, error) {
		return c.CreateReplicaSet(ctx, "rp1pz7uyae", ReadReplicaSetCreate{Name: "r", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
	}},
	{"get VPC", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.GetVPC(ctx, "1234567890") }},
	{"list VPCs", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.ListVPCs(ctx) }},
	{"get peering", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.GetPeering(ctx, "1234567890", "1") }},
	{"list peerings", []int{200}, func(ctx context.Context, c *Client) (any, error) { return c.ListPeerings(ctx, "1234567890") }},
	{"stop service", []int{200, 202, 204}, func(ctx context.Context, c *Client) (any, error) { return c.StopService(ctx, "rp1pz7uyae") }},
	{"delete service", []int{200, 202, 204}, func(ctx context.Context, c *Client) (any, error) {
		return struct{}{}, c.DeleteService(ctx, "rp1pz7uyae")
	}},
}

// FuzzClientAnswer sends one call of the client (op) through its whole answer path (logging with
// masking, retry rules, limiter, error masking, decoding) to a server that answers status and body.
// A success status with a body that is not the record's JSON must give a clear error, never a
// panic and never a record; an error status gives an *APIError with that status.
func FuzzClientAnswer(f *testing.F) {
	for i, s := range fuzzSeeds() {
		for _, st := range []int{0, 4, 8} { // 200, 400, 409... of fuzzStatuses
			f.Add(uint8(i), uint8(st+i%4), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, opIdx, statusIdx uint8, body []byte) {
		op := fuzzOps[int(opIdx)%len(fuzzOps)]
		status := fuzzStatuses[int(statusIdx)%len(fuzzStatuses)]
		c, err := New(Config{
			BaseURL: "https://api.example.test/v1", AccessKey: "AK-fuzz", SecretKey: "SK-fuzz-secret", ProjectID: "rp1pz7uyae",
			Timeout: 5 * time.Second, Retry: &RetryPolicy{MaxRetries: 0, MaxElapsed: time.Second},
			Transport: fuzzTransport{status: status, body: body},
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		rec, err := op.call(ctx, c)
		success := false
		for _, s := range op.ok {
			success = success || s == status
		}
		switch {
		case !success:
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("%s answered %d: want an *APIError with that status, got %v", op.name, status, err)
			}
			if !strings.Contains(err.Error(), op.name) {
				t.Fatalf("%s: error %q does not name the operation", op.name, err)
			}
		case err != nil:
			if !strings.Contains(err.Error(), "not the expected JSON") || !strings.Contains(err.Error(), op.name) {
				t.Fatalf("%s answered %d: unclear decoding error %q", op.name, status, err)
			}
			if rv := reflect.ValueOf(rec); rec != nil && (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Slice) && !rv.IsNil() {
				t.Fatalf("%s: a record came back with the error %v", op.name, err)
			}
		default:
			if isNilPointer(rec) {
				t.Fatalf("%s answered %d: no error and no record", op.name, status)
			}
		}
	})
}

// isNilPointer reports whether a call returned no record: a nil pointer (a list may be nil or empty
// after a success, so only pointers count).
func isNilPointer(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
