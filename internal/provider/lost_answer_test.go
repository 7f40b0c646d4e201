package provider

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// Issue 22, the two defects, each driven through the real terraform binary (provider served in this
// process by reattach) and interrupted with SIGINT at a moment the emulator announces, never after a
// sleep:
//
//  1. A create is committed by the API and its answer lost; Ctrl-C comes while the answer is
//     outstanding (the emulator withholds it until the client gives up). The next apply must end with
//     exactly one object, the one in state, an empty plan after it, and a destroy that leaves nothing.
//     Service (the control: it resolves a lost create already), replica set, VPC, peering.
//  2. Ctrl-C during a create's VPC attach (attachToVPC answered 202, the provider polling the
//     service): the next apply must converge on its first try, without "busy ... apply again".

// lostAnswerCase is one create whose answer is lost.
type lostAnswerCase struct {
	name      string
	operation string // the create's operationId
	typ       string // the resource type that must exist exactly once
	config    string
}

var lostAnswerCases = []lostAnswerCase{
	{"service", "createService", "dbcloud_service", `
resource "dbcloud_service" "db" {
  name = "lost-service"
}
`},
	{"read_replica_set", "createReplicaSet", "dbcloud_read_replica_set", `
resource "dbcloud_service" "db" {
  name = "lost-parent"
}

resource "dbcloud_read_replica_set" "reader" {
  service_id = dbcloud_service.db.id
  name       = "lost-reader"
  nodes      = 1
  cpu_millis = 500
  memory_gbs = 2
}
`},
	{"vpc", "createVPC", "dbcloud_vpc", `
resource "dbcloud_vpc" "net" {
  name        = "lost-net"
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}
`},
	{"vpc_peering", "createPeering", "dbcloud_vpc_peering", `
resource "dbcloud_vpc" "net" {
  name        = "lost-peer-net"
  cidr        = "10.61.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_vpc_peering" "peer" {
  vpc_id           = dbcloud_vpc.net.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-0lostanswer"
}
`},
}

func TestAccLostAnswer_createCommittedThenInterrupted(t *testing.T) {
	skipUnlessAcc(t)
	for _, tc := range lostAnswerCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestEmulator(t)
			w := newTFWorkdir(t, srv, tc.config)

			// 1. apply; the create is committed, its answer withheld; SIGINT while it is outstanding.
			committed := srv.HoldAnswer(tc.operation, 2*time.Minute)
			p := w.start("apply", "-auto-approve", "-input=false")
			select {
			case <-committed:
				p.interrupt(t)
			case err := <-p.done:
				t.Fatalf("apply ended (%v) before the %s was sent:\n%s", err, tc.operation, p.out)
			case <-time.After(3 * time.Minute):
				p.interrupt(t)
				t.Fatalf("no %s within three minutes:\n%s", tc.operation, p.out)
			}
			a := auditObjects(t, srv, w)
			t.Logf("interrupted apply (%v); %s in the emulator: %d, in state: %d; its diagnostics:\n%s",
				p.err, tc.typ, a.byType[tc.typ], len(w.stateIDs()[tc.typ]), diagnostics(p.out.String()))
			if a.byType[tc.typ] != 1 {
				t.Fatalf("after the committed create, %d %s in the emulator, want 1", a.byType[tc.typ], tc.typ)
			}

			// 2. apply again: one object, the one in state.
			out, err := w.run("apply", "-auto-approve", "-input=false")
			if err != nil {
				t.Errorf("the apply after the interrupt failed: %v\n%s", err, diagnostics(out))
			}
			a = auditObjects(t, srv, w)
			if n := a.byType[tc.typ]; n != 1 {
				t.Errorf("after the re-apply, %d %s in the emulator, want exactly 1 (a duplicate create): %v", n, tc.typ, a.objects)
			}
			if len(a.orphans) > 0 {
				t.Errorf("after the re-apply, objects in the emulator that the state does not hold (orphans): %v", a.orphans)
			}
			if n := srv.Calls(tc.operation); n != 1 {
				t.Errorf("%s sent %d times, want 1", tc.operation, n)
			}

			// 3. nothing left to do; 4. destroy leaves nothing.
			emptyPlanThenCleanDestroy(t, srv, w, "the re-apply")
		})
	}
}

// attachInterruptConfig is a VPC and a service attached to it at create.
const attachInterruptConfig = `
resource "dbcloud_vpc" "net" {
  name        = "attach-net"
  cidr        = "10.62.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name        = "attach-db"
  region_code = "us-east-1"
  vpc_id      = dbcloud_vpc.net.id
}
`

// The create of a service attached to a VPC is interrupted once attachToVPC was answered 202 and the
// provider polls the service. On the live API the attach takes minutes: the service is CONFIGURING
// and shows no vpc_endpoint until it is attached (as the emulator does: api-facts, "present when
// attached"). The refresh of the next apply sees it still CONFIGURING; it turns READY,
// attached, two seconds later. That apply must succeed on its first try and leave an empty plan.
func TestAccLostAnswer_interruptedVPCAttachConvergesAtOnce(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	w := newTFWorkdir(t, srv, attachInterruptConfig)

	var (
		mu          sync.Mutex
		phase       = 1
		attachSeen  bool
		serviceID   string
		interrupted = make(chan struct{})
		once        sync.Once
	)
	isServiceRead := func(op string) bool { return op == "getService" || op == "listServices" }
	srv.SetInterceptor(func(ri emulatortest.RequestInfo) emulatortest.Decision {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case phase == 1 && ri.OperationID == "attachServiceToVPC":
			// The attach takes long: the service stays CONFIGURING for as long as the test needs.
			slow := emulator.FastTiming()
			slow.ServiceConfiguring = time.Hour
			srv.SetTiming(slow)
			attachSeen = true
		case phase == 1 && attachSeen && isServiceRead(ri.OperationID):
			once.Do(func() { close(interrupted) }) // the provider got the 202 and polls: Ctrl-C now
		case phase == 2 && isServiceRead(ri.OperationID):
			// The refresh of the next apply: still CONFIGURING; READY, attached, two seconds later.
			srv.FinishServiceIn(testProjectID, serviceID, 2*time.Second)
			phase = 3
		}
		return emulatortest.Decision{}
	})

	// 1. apply, interrupted while the create waits for the attach.
	p := w.start("apply", "-auto-approve", "-input=false")
	select {
	case <-interrupted:
		p.interrupt(t)
	case err := <-p.done:
		t.Fatalf("apply ended (%v) before the attach was polled:\n%s", err, p.out)
	case <-time.After(3 * time.Minute):
		p.interrupt(t)
		t.Fatalf("no attach within three minutes:\n%s", p.out)
	}
	t.Logf("interrupted apply (%v); its diagnostics:\n%s", p.err, diagnostics(p.out.String()))
	svcs := srv.Services(testProjectID)
	if len(svcs) != 1 || srv.Calls("attachServiceToVPC") != 1 {
		t.Fatalf("after the interrupt: %d services, %d attach calls; want 1 and 1", len(svcs), srv.Calls("attachServiceToVPC"))
	}

	// The attach is still under way: CONFIGURING, and (as on the live API) no vpc_endpoint yet.
	mu.Lock()
	serviceID = deref(svcs[0].ServiceID)
	if st := deref(svcs[0].Status); st != api.CONFIGURING || api.VPCEndpointOf(&svcs[0]) != nil {
		mu.Unlock()
		t.Fatalf("while the attach is under way: status %s, vpc_endpoint %v; want CONFIGURING and none", st, api.VPCEndpointOf(&svcs[0]))
	}
	srv.SetTiming(emulator.FastTiming())
	phase = 2
	mu.Unlock()
	vpcID := attachedVPCID(t, srv)

	// 2. apply again: it must converge on its first try.
	before := srv.Calls("attachServiceToVPC")
	out, err := w.run("apply", "-auto-approve", "-input=false")
	if err != nil {
		t.Errorf("the apply after the interrupted attach failed on its first try: %v\n%s", err, diagnostics(out))
	}
	if strings.Contains(out, "apply again") {
		t.Errorf("the apply after the interrupted attach asks to apply again:\n%s", diagnostics(out))
	}
	t.Logf("the re-apply sent %d more attach calls (%d requests answered 409 in all)", srv.Calls("attachServiceToVPC")-before, count409(srv))
	if svc, ok := srv.Service(testProjectID, serviceID); !ok || api.VPCEndpointOf(&svc) == nil || deref(api.VPCEndpointOf(&svc).VpcID) != vpcID {
		t.Errorf("after the re-apply the service is not attached to %s", vpcID)
	}
	a := auditObjects(t, srv, w)
	if len(a.orphans) > 0 || len(a.duplicates) > 0 || len(a.objects) != 2 {
		t.Errorf("after the re-apply: objects %v, orphans %v, duplicates %v", a.objects, a.orphans, a.duplicates)
	}

	// 3. nothing left to do, then destroy.
	emptyPlanThenCleanDestroy(t, srv, w, "the re-apply")
}

// attachedVPCID is the id of the one VPC of the test's project.
func attachedVPCID(t *testing.T, srv *emulatortest.Server) string {
	t.Helper()
	vpcs, err := testClient(t, srv).ListVPCs(context.Background())
	if err != nil || len(vpcs) != 1 {
		t.Fatalf("want the one VPC of the configuration: %v, %v", vpcs, err)
	}
	return deref(vpcs[0].ID)
}

// count409 counts the requests answered 409.
func count409(srv *emulatortest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == 409 {
			n++
		}
	}
	return n
}
