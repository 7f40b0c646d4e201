package emulator

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

func TestRequestLog(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lines []string
	clk := newFakeClock()
	e := newEnv(t, Options{Now: clk.Now, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}})
	e.createService(api.ServiceCreate{Name: "logged"})
	if _, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ListServicesWithResponse(e.ctx, testProject); err != nil {
		t.Fatal(err)
	}
	e.raw("GET", "/nowhere", "")

	if n := e.srv.Calls("listServices"); n != 2 {
		t.Errorf("Calls(listServices) = %d", n)
	}
	if n := e.srv.Calls("createService"); n != 1 {
		t.Errorf("Calls(createService) = %d", n)
	}
	if n := e.srv.Calls(""); n != 4 {
		t.Errorf("Calls(\"\") = %d", n)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests logged", len(reqs))
	}
	first := reqs[0]
	if first.OperationID != "createService" || first.Method != "POST" || first.Path != "/v1/projects/"+testProject+"/services" ||
		first.Status != 202 || !strings.Contains(string(first.Body), `"logged"`) || !first.Time.Equal(clk.Now()) {
		t.Errorf("first request = %+v", first)
	}
	if last := reqs[3]; last.OperationID != "" || last.Status != 404 {
		t.Errorf("last request = %+v", last)
	}
	reqs[0].Body[0] = 'X' // a copy
	if e.srv.Requests()[0].Body[0] == 'X' {
		t.Error("Requests returned shared bodies")
	}
	mu.Lock()
	if len(lines) != 4 || !strings.Contains(lines[0], "POST /v1/projects/"+testProject+"/services -> 202 (createService") {
		t.Errorf("log lines = %q", lines)
	}
	mu.Unlock()

	e.srv.ResetRequests()
	if n := e.srv.Calls(""); n != 0 {
		t.Errorf("after reset: %d", n)
	}
}
