package emulatortest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// HoldAnswer: the create is carried out, the test is told, and the answer is withheld until the
// client gives up (here: its context is cancelled on the notification, as Ctrl-C would); the client
// gets no answer, the VPC exists, and the request is logged as dropped.
func TestHoldAnswerCommitsThenWaitsForTheClientToLeave(t *testing.T) {
	t.Parallel()
	e := newEnv(t, emulator.Options{})
	committed := e.srv.HoldAnswer("createVPC", time.Minute)
	ctx, cancel := context.WithCancel(e.ctx)
	go func() {
		info := <-committed
		if info.OperationID != "createVPC" || info.Method != http.MethodPost {
			t.Errorf("held %+v", info)
		}
		if n := len(e.srv.Snapshot().Projects[testProject].VPCs); n != 1 {
			t.Errorf("when the hold is announced, %d VPCs exist, want 1 (committed)", n)
		}
		cancel()
	}()
	start := time.Now()
	_, err := e.c.CreateVPCWithResponse(ctx, testProject, api.VPCCreate{Name: "held", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v, want context.Canceled (no answer before the client left)", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Fatal("the hold did not end when the client left")
	}
	// The request is logged once the handler has seen the client leave.
	deadline := time.Now().Add(10 * time.Second)
	for e.srv.Calls("createVPC") == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || reqs[0].Status != 0 {
		t.Fatalf("request log %+v, want one dropped createVPC", reqs)
	}
	l, err := e.c.ListVPCsWithResponse(e.ctx, testProject)
	if err != nil || l.JSON200 == nil || len(*l.JSON200) != 1 || str((*l.JSON200)[0].Name) != "held" {
		t.Fatalf("list after the lost answer: %v %s; want the one VPC", err, l.Body)
	}
	// One-shot: the next create is answered.
	if r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, api.VPCCreate{Name: "next", Cidr: "10.1.0.0/16", RegionCode: "us-east-1"}); err != nil || r.StatusCode() != 201 {
		t.Fatalf("second create: %v", err)
	}
}

// A held answer whose client never leaves is dropped after its maximum.
func TestHoldAnswerDropsAfterItsMaximum(t *testing.T) {
	t.Parallel()
	e := newEnv(t, emulator.Options{})
	committed := e.srv.HoldAnswer("createService", 200*time.Millisecond)
	_, err := e.c.CreateServiceWithResponse(e.ctx, testProject, api.ServiceCreate{Name: "held"})
	if err == nil {
		t.Fatal("the held create was answered")
	}
	select {
	case <-committed:
	default:
		t.Fatal("the hold was not announced")
	}
	if n := len(e.srv.Snapshot().Projects[testProject].Services); n != 1 {
		t.Fatalf("%d services, want 1 (committed)", n)
	}
}

// The interceptor numbers the requests that reach the fault stage, its faults come first, and a
// commit fault's Committed callback runs after the commit; without a decision the other faults apply.
func TestInterceptorNumbersAndInjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t, emulator.Options{})
	e.srv.InjectFault("listVPCs", emulator.FaultUnavailable, 1)
	var seen []RequestInfo
	var vpcsAtCommit = -1
	e.srv.SetInterceptor(func(ri RequestInfo) Decision {
		seen = append(seen, ri)
		switch ri.Seq {
		case 2:
			return Decision{Fault: emulator.FaultRateLimit, Inject: true}
		case 3:
			return Decision{Fault: emulator.FaultCommitThenFail, Inject: true, Committed: func(RequestInfo) {
				vpcsAtCommit = len(e.srv.Snapshot().Projects[testProject].VPCs)
			}}
		}
		return Decision{}
	})
	body := api.VPCCreate{Name: "v", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"}
	var statuses []int
	for range 3 {
		r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, body)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, r.StatusCode())
	}
	l, err := e.c.ListVPCsWithResponse(e.ctx, testProject) // seq 4: the scripted 503 applies
	if err != nil {
		t.Fatal(err)
	}
	statuses = append(statuses, l.StatusCode())
	if want := []int{201, 429, 500, 503}; !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if vpcsAtCommit != 2 {
		t.Errorf("at the commit callback %d VPCs existed, want 2", vpcsAtCommit)
	}
	if len(seen) != 4 || seen[3].Seq != 4 || seen[3].OperationID != "listVPCs" || seen[0].Method != http.MethodPost ||
		!strings.Contains(string(seen[0].Body), `"name":"v"`) || seen[3].Body != nil {
		t.Errorf("interceptor saw %+v", seen)
	}
	e.srv.ResetInterceptCount()
	e.srv.SetInterceptor(func(ri RequestInfo) Decision {
		if ri.Seq != 1 {
			t.Errorf("after ResetInterceptCount, seq %d", ri.Seq)
		}
		return Decision{}
	})
	if r, err := e.c.ListVPCsWithResponse(e.ctx, testProject); err != nil || r.StatusCode() != 200 || len(*r.JSON200) != 2 {
		t.Fatalf("list: %v", err)
	}
}

// Answered is called once the answer is written, with its status (0 when dropped).
func TestInterceptorAnsweredCallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t, emulator.Options{})
	got := make(chan int, 3)
	e.srv.SetInterceptor(func(ri RequestInfo) Decision {
		d := Decision{Answered: func(_ RequestInfo, status int) { got <- status }}
		if ri.Seq == 2 {
			d.Fault, d.Inject = emulator.FaultCommitThenDrop, true
		}
		return d
	})
	body := api.VPCCreate{Name: "v", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"}
	if r, err := e.c.CreateVPCWithResponse(e.ctx, testProject, body); err != nil || r.StatusCode() != 201 {
		t.Fatalf("create: %v", err)
	}
	if s := <-got; s != 201 {
		t.Errorf("answered %d, want 201", s)
	}
	if _, err := e.c.CreateVPCWithResponse(e.ctx, testProject, body); err == nil {
		t.Fatal("the dropped create was answered")
	}
	if s := <-got; s != 0 {
		t.Errorf("answered %d for a dropped answer, want 0", s)
	}
	if r, err := e.c.ListVPCsWithResponse(e.ctx, testProject); err != nil || r.StatusCode() != 200 || len(*r.JSON200) != 2 {
		t.Fatalf("list: %v", err)
	}
	if s := <-got; s != 200 {
		t.Errorf("answered %d, want 200", s)
	}
}

// A held FaultDrop is not carried out: the client gives up, nothing was created.
func TestInterceptorHeldDropIsNotCarriedOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, emulator.Options{})
	ctx, cancel := context.WithCancel(e.ctx)
	e.srv.SetInterceptor(func(RequestInfo) Decision {
		return Decision{Fault: emulator.FaultDrop, Inject: true, Hold: true, Committed: func(RequestInfo) { cancel() }}
	})
	_, err := e.c.CreateVPCWithResponse(ctx, testProject, api.VPCCreate{Name: "v", Cidr: "10.0.0.0/16", RegionCode: "us-east-1"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v, want context.Canceled", err)
	}
	e.srv.SetInterceptor(nil)
	if r, err := e.c.ListVPCsWithResponse(e.ctx, testProject); err != nil || r.StatusCode() != 200 || len(*r.JSON200) != 0 {
		t.Fatalf("list: %v; the held create must not have been carried out", err)
	}
}
