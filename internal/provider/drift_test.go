package provider

// Plans that hold when the world moves: the real terraform binary (the provider served in-process by
// reattach, interrupt_harness_test.go) against the emulator, with objects changed or deleted through
// the API between the steps, as another tool (the console, the vendor's CLI) would.
//
//   - a saved plan (`plan -out`) applied after an unrelated out-of-band change exits 0, writes what
//     was planned (planned.go), and the next plan reverts the change in place;
//   - an object deleted out of band between the plan and the apply: the apply fails naming the id and
//     saying to plan again, and the next plan creates it;
//   - the drift test: every in-place attribute of every resource changed out of band is shown by
//     `plan -refresh-only -detailed-exitcode` (exit 2, resource_drift), and the plan puts every one
//     back with in-place updates only, which reach the API, after which the plan is empty.

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// driftRig is a working directory applied against an emulator, with an API client that changes
// things out of band.
type driftRig struct {
	t   *testing.T
	srv *emulatortest.Server
	w   *tfWorkdir
	c   *api.Client
	ctx context.Context
}

// newDriftRig starts an emulator, writes resources and applies them.
func newDriftRig(t *testing.T, resources string) *driftRig {
	t.Helper()
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	r := &driftRig{t: t, srv: srv, c: testClient(t, srv), ctx: context.Background()}
	r.w = newTFWorkdir(t, srv, resources)
	r.tf("apply", "-input=false", "-auto-approve")
	return r
}

// tfCode runs terraform and returns its output and exit code.
func (r *driftRig) tfCode(args ...string) (string, int) {
	r.t.Helper()
	return r.w.runCode(args...)
}

// tf runs terraform and fails the test unless it exits 0.
func (r *driftRig) tf(args ...string) string {
	r.t.Helper()
	out, code := r.tfCode(args...)
	if code != 0 {
		r.t.Fatalf("terraform %s: exit code %d\n%s", strings.Join(args, " "), code, diagnostics(out))
	}
	return out
}

// savedPlan runs `terraform plan -detailed-exitcode -out=file` with extra flags, checks the exit
// code and returns the plan as `terraform show -json` shows it.
func (r *driftRig) savedPlan(file string, wantCode int, flags ...string) tfPlanJSON {
	r.t.Helper()
	args := append([]string{"plan", "-input=false", "-detailed-exitcode", "-out=" + file}, flags...)
	out, code := r.tfCode(args...)
	if code != wantCode {
		r.t.Fatalf("terraform %s: exit code %d, want %d\n%s", strings.Join(args, " "), code, wantCode, tail(out, 60))
	}
	return r.w.plan(file)
}

// stateAttr is an attribute of a resource (type.name) in the state file.
func (r *driftRig) stateAttr(addr, name string) string {
	r.t.Helper()
	return jsonString(r.w.instance(addr)[name])
}

// find returns the change of addr in list.
func findChange(t *testing.T, list []tfResourceChange, addr string) tfResourceChange {
	t.Helper()
	for _, c := range list {
		if c.Address == addr {
			return c
		}
	}
	t.Fatalf("no change of %s in the plan", addr)
	return tfResourceChange{}
}

// jsonString renders a JSON value of a plan or state as a test compares it: numbers without a
// fraction, null as "null".
func jsonString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case float64:
		return fmt.Sprintf("%g", v)
	}
	return fmt.Sprint(v)
}

// expectActions checks that every resource change of p has the action of its address in want
// ("update", "create"), and any other address "no-op".
func expectActions(t *testing.T, p tfPlanJSON, want map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range p.ResourceChanges {
		w := want[c.Address]
		if w == "" {
			w = "no-op"
		}
		if got := strings.Join(c.Change.Actions, ","); got != w {
			t.Errorf("%s: plan action %s, want %s", c.Address, got, w)
		}
		seen[c.Address] = true
	}
	for addr := range want {
		if !seen[addr] {
			t.Errorf("%s: not in the plan (want %s)", addr, want[addr])
		}
	}
}

// attrChange is one attribute that moves: from (before) and to (after).
type attrChange struct {
	addr, attr string
	from, to   string
}

// expectMoves checks the before and after of every attrChange in list (resource_drift or
// resource_changes).
func expectMoves(t *testing.T, what string, list []tfResourceChange, moves []attrChange) {
	t.Helper()
	for _, m := range moves {
		c := findChange(t, list, m.addr)
		if got := jsonString(c.Change.Before[m.attr]); got != m.from {
			t.Errorf("%s: %s.%s was %s, want %s", what, m.addr, m.attr, got, m.from)
		}
		if got := jsonString(c.Change.After[m.attr]); got != m.to {
			t.Errorf("%s: %s.%s becomes %s, want %s", what, m.addr, m.attr, got, m.to)
		}
	}
}

// reversed is moves the other way round.
func reversed(moves []attrChange) []attrChange {
	out := make([]attrChange, len(moves))
	for i, m := range moves {
		out[i] = attrChange{m.addr, m.attr, m.to, m.from}
	}
	return out
}

// ---- out-of-band changes through the API, each waited for ----

// await waits until cond holds (the emulator's fast timing: seconds at most), or fails the test.
func (r *driftRig) await(what string, cond func() bool) {
	r.t.Helper()
	if !waitUntil(30*time.Second, cond) {
		r.t.Fatalf("out of band: %s did not happen", what)
	}
}

// must fails the test on an error of an out-of-band call.
func (r *driftRig) must(what string, err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatalf("out of band: %s: %v", what, err)
	}
}

// service is the emulator's record of service id, mapped as the resource maps it.
func (r *driftRig) service(id string) (serviceFields, bool) {
	svc, ok := r.srv.Service(testProjectID, id)
	if !ok {
		return serviceFields{}, false
	}
	return flattenService(&svc), true
}

// serviceChange makes an out-of-band call on a service and waits until the record shows it and the
// service is READY again (or PAUSED, when the call stops it).
func (r *driftRig) serviceChange(id, what string, call func() error, shows func(serviceFields) bool) {
	r.t.Helper()
	r.must(what, call())
	r.await(what, func() bool {
		f, ok := r.service(id)
		st := f.Status.ValueString()
		return ok && shows(f) && (st == string(api.READY) || st == string(api.PAUSED))
	})
}

// serviceEntriesDrift changes service id out of band to console through the calls of every entry of
// serviceChanges whose attributes a record shows (all of them fields of serviceFields: the password
// is not drift), and returns the moves a refresh shows. An entry that console does not change fails
// the test: a new in-place attribute gets its case here by a value in console.
func (r *driftRig) serviceEntriesDrift(addr, id string, console serviceFields) []attrChange {
	r.t.Helper()
	pd := &providerData{client: r.c, backoff: testBackoff}
	want := serviceResourceModel{serviceFields: console}
	var moves []attrChange
	for _, c := range serviceChanges {
		if !recordShows(c.attrs) {
			continue
		}
		f, _ := r.service(id)
		cur := serviceResourceModel{serviceFields: f}
		if !c.changed(want, cur) {
			r.t.Errorf("the drift test does not change %s: give it another value in console", strings.Join(c.attrs, "/"))
			continue
		}
		for _, name := range c.attrs {
			moves = append(moves, attrChange{addr, name, fieldString(f, name), fieldString(console, name)})
		}
		for _, a := range c.calls(want, cur) {
			r.must(a.String(), a.run(r.ctx, pd, id))
		}
		r.await(strings.Join(c.attrs, "/"), func() bool {
			f, ok := r.service(id)
			return ok && !c.changed(want, serviceResourceModel{serviceFields: f}) && f.Status.ValueString() == string(api.READY)
		})
	}
	return moves
}

// recordShows reports whether every attribute is a field of serviceFields (what a record shows).
func recordShows(attrs []string) bool {
	for _, a := range attrs {
		if _, ok := serviceFieldValue(serviceFields{}, a); !ok {
			return false
		}
	}
	return true
}

// serviceFieldValue is the value of the field of f tagged tfsdk:name.
func serviceFieldValue(f serviceFields, name string) (attr.Value, bool) {
	v := reflect.ValueOf(f)
	for i := range v.NumField() {
		if v.Type().Field(i).Tag.Get("tfsdk") == name {
			av, ok := v.Field(i).Interface().(attr.Value)
			return av, ok
		}
	}
	return nil, false
}

// fieldString is a field's value as the plan's JSON shows it (jsonString): null, a number, a bool or
// the string.
func fieldString(f serviceFields, name string) string {
	v, _ := serviceFieldValue(f, name)
	switch v := v.(type) {
	case nil:
		return "null"
	case types.String:
		if v.IsNull() {
			return "null"
		}
		return v.ValueString()
	}
	if v.IsNull() {
		return "null"
	}
	return v.String()
}

// replicaSet is the API's record of a replica set (nil when it is gone).
func (r *driftRig) replicaSet(serviceID, id string) *api.ReadReplicaSet {
	rs, err := r.c.GetReplicaSet(r.ctx, serviceID, id)
	if err != nil {
		return nil
	}
	return rs
}

// replicaSetChange makes an out-of-band call on a replica set and waits until it shows it, active.
func (r *driftRig) replicaSetChange(serviceID, id, what string, call func() error, shows func(*api.ReadReplicaSet) bool) {
	r.t.Helper()
	r.must(what, call())
	r.await(what, func() bool {
		rs := r.replicaSet(serviceID, id)
		return rs != nil && deref(rs.Status) == api.ReplicaSetStatusActive && shows(rs)
	})
}

// ---- a saved plan applied after an unrelated out-of-band change ----

// A resize planned with `plan -out`, the service renamed in the console, then the saved plan applied:
// it exits 0 with the resize made and the planned name in state; the next plan reverts the rename
// in place. Before planned.go, the apply failed: "Provider produced inconsistent result after
// apply ... .name".
func TestAccSavedPlan_serviceRenamedAfterPlan(t *testing.T) {
	config := sizedService("db", "saved-plan-db", "")
	r := newDriftRig(t, config(1000, 4))
	const addr = "dbcloud_service.db"
	id := r.stateAttr(addr, "id")

	r.w.write(config(2000, 8))
	r.savedPlan("resize.tfplan", 2)
	r.serviceChange(id, "rename", func() error { _, err := r.c.RenameService(r.ctx, id, "renamed-in-console"); return err },
		func(f serviceFields) bool { return f.Name.ValueString() == "renamed-in-console" })
	r.tf("apply", "-input=false", "resize.tfplan")

	if f, _ := r.service(id); f.CPUMillis.ValueInt64() != 2000 || f.MemoryGbs.ValueInt64() != 8 || f.Name.ValueString() != "renamed-in-console" {
		t.Fatalf("after the saved plan: the API shows %s %d/%d, want renamed-in-console 2000/8", f.Name, f.CPUMillis.ValueInt64(), f.MemoryGbs.ValueInt64())
	}
	if got := r.stateAttr(addr, "name"); got != "saved-plan-db" {
		t.Errorf("state name %q after the saved plan, want the planned %q", got, "saved-plan-db")
	}

	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{addr: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, []attrChange{{addr, "name", "renamed-in-console", "saved-plan-db"}})
	r.tf("apply", "-input=false", "fix.tfplan")
	if f, _ := r.service(id); f.Name.ValueString() != "saved-plan-db" {
		t.Errorf("after the apply the API shows name %s, want saved-plan-db", f.Name)
	}
	r.savedPlan("empty.tfplan", 0)
}

// The same, on the paths of an in-place call that is retried: the service is renamed in the console
// while the provider sends the saved plan's resize, which meets a busy service (409: waited out and
// sent again) and then loses its answer (the resize was made: the provider looks instead of sending
// it a third time). The apply exits 0 with the planned name in state.
func TestAccSavedPlan_serviceResizeRetriedAfterOutOfBandRename(t *testing.T) {
	config := sizedService("db", "retried-db", "")
	r := newDriftRig(t, config(1000, 4))
	const addr = "dbcloud_service.db"
	id := r.stateAttr(addr, "id")
	r.w.write(config(2000, 8))
	r.savedPlan("resize.tfplan", 2)

	var (
		mu      sync.Mutex
		resizes int
	)
	r.srv.SetInterceptor(func(ri emulatortest.RequestInfo) emulatortest.Decision {
		if ri.OperationID != "resizeService" {
			return emulatortest.Decision{}
		}
		mu.Lock()
		resizes++
		n := resizes
		mu.Unlock()
		switch n {
		case 1: // renamed in the console just now, and busy: this resize answers 409
			if _, err := r.c.RenameService(context.Background(), id, "renamed-while-busy"); err != nil {
				t.Errorf("out of band: rename: %v", err)
			}
			r.srv.SetServiceStatusFor(testProjectID, id, api.CONFIGURING, 300*time.Millisecond, api.READY)
		case 2: // made, and its answer lost
			return emulatortest.Decision{Inject: true, Fault: emulator.FaultCommitThenFail}
		}
		return emulatortest.Decision{}
	})
	r.tf("apply", "-input=false", "resize.tfplan")
	r.srv.SetInterceptor(nil)

	mu.Lock()
	if resizes != 2 {
		t.Errorf("the provider sent %d resize calls, want 2 (one 409, one whose answer was lost)", resizes)
	}
	mu.Unlock()
	if f, _ := r.service(id); f.CPUMillis.ValueInt64() != 2000 || f.MemoryGbs.ValueInt64() != 8 || f.Name.ValueString() != "renamed-while-busy" {
		t.Fatalf("after the saved plan: the API shows %s %d/%d, want renamed-while-busy 2000/8", f.Name, f.CPUMillis.ValueInt64(), f.MemoryGbs.ValueInt64())
	}
	if got := r.stateAttr(addr, "name"); got != "retried-db" {
		t.Errorf("state name %q after the saved plan, want the planned %q", got, "retried-db")
	}
	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{addr: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, []attrChange{{addr, "name", "renamed-while-busy", "retried-db"}})
}

// An environment change planned with `plan -out`, the set resized in the console, then the saved plan
// applied: it exits 0; the next plan reverts the size in place. Before planned.go, the apply failed:
// "Provider produced inconsistent result after apply ... .cpu_millis".
func TestAccSavedPlan_replicaSetResizedAfterPlan(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	serviceID := netTestService(t, srv, "saved-plan-primary")
	config := func(env string) string {
		return fmt.Sprintf(`
resource "dbcloud_read_replica_set" "reader" {
  service_id  = %q
  name        = "saved-plan-reader"
  cpu_millis  = 1000
  memory_gbs  = 4
  environment = %q
}
`, serviceID, env)
	}
	r := &driftRig{t: t, srv: srv, c: testClient(t, srv), ctx: context.Background()}
	r.w = newTFWorkdir(t, srv, config("DEV"))
	r.tf("apply", "-input=false", "-auto-approve")
	const addr = "dbcloud_read_replica_set.reader"
	id := r.stateAttr(addr, "id")

	r.w.write(config("PROD"))
	r.savedPlan("env.tfplan", 2)
	r.replicaSetChange(serviceID, id, "resize", func() error { return r.c.ResizeReplicaSet(r.ctx, serviceID, id, 2000, 8) },
		func(rs *api.ReadReplicaSet) bool { return deref(rs.CPUMillis) == 2000 && deref(rs.MemoryGbs) == 8 })
	r.tf("apply", "-input=false", "env.tfplan")
	if rs := r.replicaSet(serviceID, id); rs == nil || replicaSetEnvironment(rs) != "PROD" {
		t.Fatalf("after the saved plan the API shows %+v, want environment PROD", rs)
	}

	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{addr: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, []attrChange{{addr, "cpu_millis", "2000", "1000"}, {addr, "memory_gbs", "8", "4"}})
	r.tf("apply", "-input=false", "fix.tfplan")
	if rs := r.replicaSet(serviceID, id); rs == nil || deref(rs.CPUMillis) != 1000 || deref(rs.MemoryGbs) != 4 {
		t.Errorf("after the apply the API shows %+v, want 1000/4", rs)
	}
	r.savedPlan("empty.tfplan", 0)
}

// The resume of an interrupted create, from a saved plan: a replica set's create is interrupted
// (Ctrl-C) while the set is creating; the plan of the next apply (an update that waits and applies
// the environment) is saved; the set is resized in the console; the saved plan applies with exit 0,
// and the next plan reverts the size in place.
func TestAccSavedPlan_replicaSetResumeAfterOutOfBandResize(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ReplicaCreating = time.Hour })
	serviceID := netTestService(t, srv, "resume-primary")
	r := &driftRig{t: t, srv: srv, c: testClient(t, srv), ctx: context.Background()}
	r.w = newTFWorkdir(t, srv, fmt.Sprintf(`
resource "dbcloud_read_replica_set" "reader" {
  service_id  = %q
  name        = "resume-reader"
  cpu_millis  = 1000
  memory_gbs  = 4
  environment = "PROD"
}
`, serviceID))
	const addr = "dbcloud_read_replica_set.reader"

	// 1. The create, interrupted while it waits for the set to be active.
	p := r.w.start("apply", "-auto-approve", "-input=false")
	waitFor := func(what string, cond func() bool) {
		if !waitUntil(2*time.Minute, cond) {
			p.interrupt(t)
			t.Fatalf("%s did not happen:\n%s", what, tail(p.out.String(), 40))
		}
	}
	waitFor("the create", func() bool { return srv.Calls("createReplicaSet") == 1 })
	n := srv.Calls("listReplicaSets") // a replica set is read by listing
	waitFor("the wait for the set", func() bool { return srv.Calls("listReplicaSets") >= n+2 })
	p.interrupt(t)
	id := r.stateAttr(addr, "id")
	if st := r.stateAttr(addr, "status"); st != string(api.ReplicaSetStatusCreating) {
		t.Fatalf("after the interrupt the state says status %s, want creating:\n%s", st, diagnostics(p.out.String()))
	}

	// 2. The resume, planned and saved; the set becomes active and is resized in the console.
	plan := r.savedPlan("resume.tfplan", 2)
	expectActions(t, plan, map[string]string{addr: "update"})
	if t.Failed() {
		t.FailNow() // a replacement would wait an hour for the new set
	}
	srv.SetReplicaSetStatus(testProjectID, serviceID, id, api.ReplicaSetStatusActive)
	r.replicaSetChange(serviceID, id, "resize", func() error { return r.c.ResizeReplicaSet(r.ctx, serviceID, id, 2000, 8) },
		func(rs *api.ReadReplicaSet) bool { return deref(rs.CPUMillis) == 2000 })
	r.tf("apply", "-input=false", "resume.tfplan")
	if rs := r.replicaSet(serviceID, id); rs == nil || replicaSetEnvironment(rs) != "PROD" {
		t.Fatalf("after the resumed apply the API shows %+v, want environment PROD", rs)
	}

	// 3. The next plan reverts the size in place.
	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{addr: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, []attrChange{{addr, "cpu_millis", "2000", "1000"}, {addr, "memory_gbs", "8", "4"}})
}

// A VPC and a peering: a saved plan (a timeouts change of each, which no API call makes) applied after
// the VPC was renamed in the console exits 0, and the next plan reverts the rename in place.
func TestAccSavedPlan_vpcAndPeeringAfterOutOfBandRename(t *testing.T) {
	config := func(timeout string) string {
		return fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = "saved-plan-net"
  cidr        = "10.70.0.0/16"
  region_code = "us-east-1"
  timeouts {
    delete = %[1]q
  }
}

resource "dbcloud_vpc_peering" "peer" {
  vpc_id           = dbcloud_vpc.net.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-0savedplan"
  timeouts {
    delete = %[1]q
  }
}
`, timeout)
	}
	r := newDriftRig(t, config("10m"))
	const vpcAddr, peerAddr = "dbcloud_vpc.net", "dbcloud_vpc_peering.peer"
	vpcID := r.stateAttr(vpcAddr, "id")

	r.w.write(config("11m"))
	p := r.savedPlan("timeouts.tfplan", 2)
	expectActions(t, p, map[string]string{vpcAddr: "update", peerAddr: "update"})
	_, err := r.c.RenameVPC(r.ctx, vpcID, "renamed-in-console")
	r.must("rename VPC", err)
	r.tf("apply", "-input=false", "timeouts.tfplan")

	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{vpcAddr: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, []attrChange{{vpcAddr, "name", "renamed-in-console", "saved-plan-net"}})
	r.tf("apply", "-input=false", "fix.tfplan")
	if v, err := r.c.GetVPC(r.ctx, vpcID); err != nil || deref(v.Name) != "saved-plan-net" {
		t.Errorf("after the apply the API shows VPC %+v (%v), want name saved-plan-net", v, err)
	}
	r.savedPlan("empty.tfplan", 0)
}

// ---- an object deleted out of band between the plan and the apply ----

// A saved plan updates a service, a replica set and a VPC in place; all three are deleted in the
// console before the apply. The apply fails, naming each id and saying to plan again; the next plan
// creates all three, and its apply converges.
func TestAccSavedPlan_deletedAfterPlan(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	primary := netTestService(t, srv, "gone-primary")
	config := func(suffix, env string) string {
		return fmt.Sprintf(`
resource "dbcloud_vpc" "net" {
  name        = "gone-net%[1]s"
  cidr        = "10.80.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name = "gone-db%[1]s"
}

resource "dbcloud_read_replica_set" "reader" {
  service_id  = %[2]q
  name        = "gone-reader"
  cpu_millis  = 1000
  memory_gbs  = 4
  environment = %[3]q
}
`, suffix, primary, env)
	}
	r := &driftRig{t: t, srv: srv, c: testClient(t, srv), ctx: context.Background()}
	r.w = newTFWorkdir(t, srv, config("", "DEV"))
	r.tf("apply", "-input=false", "-auto-approve")
	const vpcAddr, svcAddr, rsAddr = "dbcloud_vpc.net", "dbcloud_service.db", "dbcloud_read_replica_set.reader"
	vpcID, svcID, rsID := r.stateAttr(vpcAddr, "id"), r.stateAttr(svcAddr, "id"), r.stateAttr(rsAddr, "id")

	r.w.write(config("-renamed", "PROD"))
	p := r.savedPlan("change.tfplan", 2)
	expectActions(t, p, map[string]string{vpcAddr: "update", svcAddr: "update", rsAddr: "update"})

	r.must("delete VPC", r.c.DeleteVPC(r.ctx, vpcID))
	r.must("delete service", r.c.DeleteService(r.ctx, svcID))
	r.must("delete replica set", r.c.DeleteReplicaSet(r.ctx, primary, rsID))
	r.await("the deletes", func() bool {
		_, e1 := r.c.GetVPC(r.ctx, vpcID)
		_, e2 := r.c.GetService(r.ctx, svcID)
		_, e3 := r.c.GetReplicaSet(r.ctx, primary, rsID)
		return api.IsNotFound(e1) && api.IsNotFound(e2) && api.IsNotFound(e3)
	})

	out, code := r.tfCode("apply", "-input=false", "change.tfplan")
	if code == 0 {
		t.Fatalf("the saved plan applied to deleted objects exited 0:\n%s", tail(out, 40))
	}
	flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
	for _, want := range []string{"VPC " + vpcID + " no longer exists", "Service " + svcID + " no longer exists",
		"Read replica set " + rsID + " of service " + primary + " no longer exists"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the failed apply does not say %q:\n%s", want, diagnostics(out))
		}
	}
	if n := strings.Count(flat, "Run terraform plan again"); n != 3 {
		t.Errorf("the failed apply says to plan again %d times, want 3:\n%s", n, diagnostics(out))
	}

	again := r.savedPlan("again.tfplan", 2)
	expectActions(t, again, map[string]string{vpcAddr: "create", svcAddr: "create", rsAddr: "create"})
	r.tf("apply", "-input=false", "again.tfplan")
	r.savedPlan("empty.tfplan", 0)
	if ids := r.w.stateIDs(); slices.Contains(ids["dbcloud_service"], svcID) || slices.Contains(ids["dbcloud_vpc"], vpcID) {
		t.Errorf("the state still holds a deleted object: %v", ids)
	}
}

// ---- the drift test ----

// driftConfig: a VPC; service a, attached to it, with every in-place input set; service b, detached
// and running (paused = false); a replica set on a.
const driftConfig = `
resource "dbcloud_vpc" "net" {
  name        = "drift-net"
  cidr        = "10.60.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "a" {
  name                      = "drift-a"
  region_code               = "us-east-1"
  cpu_millis                = 1000
  memory_gbs                = 4
  environment               = "DEV"
  ha_replicas               = 2
  sync_replicas             = 1
  connection_pooler_enabled = true
  vpc_id                    = dbcloud_vpc.net.id
}

resource "dbcloud_service" "b" {
  name        = "drift-b"
  region_code = "us-east-1"
  paused      = false
}

resource "dbcloud_read_replica_set" "r" {
  service_id                = dbcloud_service.a.id
  name                      = "drift-r"
  cpu_millis                = 1000
  memory_gbs                = 4
  connection_pooler_enabled = false
  environment               = "DEV"
}
`

// Every in-place attribute of every resource is changed out of band through the API (in one round);
// `plan -refresh-only -detailed-exitcode` exits 2 and its resource_drift shows each changed value; the
// plan puts every one back with in-place updates only; the apply reaches the API (the emulator's
// records are checked) and the next plan is empty.
func TestAccDrift_everyInPlaceAttribute(t *testing.T) {
	r := newDriftRig(t, driftConfig)
	const vpc, a, b, rs = "dbcloud_vpc.net", "dbcloud_service.a", "dbcloud_service.b", "dbcloud_read_replica_set.r"
	vpcID, aID, bID, rsID := r.stateAttr(vpc, "id"), r.stateAttr(a, "id"), r.stateAttr(b, "id"), r.stateAttr(rs, "id")

	// Out of band, as the console or the vendor's CLI would.
	_, err := r.c.RenameVPC(r.ctx, vpcID, "drift-net-console")
	r.must("rename VPC", err)
	r.replicaSetChange(aID, rsID, "resize replica set", func() error { return r.c.ResizeReplicaSet(r.ctx, aID, rsID, 2000, 8) },
		func(s *api.ReadReplicaSet) bool { return deref(s.CPUMillis) == 2000 })
	r.replicaSetChange(aID, rsID, "enable the replica set's pooler", func() error { return r.c.EnableReplicaSetPooler(r.ctx, aID, rsID) },
		(*api.ReadReplicaSet).PoolerEnabled)
	r.replicaSetChange(aID, rsID, "replica set environment", func() error { return r.c.SetReplicaSetEnvironment(r.ctx, aID, rsID, api.PROD) },
		func(s *api.ReadReplicaSet) bool { return replicaSetEnvironment(s) == "PROD" })
	// Service a: every entry of serviceChanges that a record shows, made through the entry's own calls
	// (the client's methods, as another tool would call them) from the configuration to console.
	aMoves := r.serviceEntriesDrift(a, aID, serviceFields{
		Name: types.StringValue("drift-a-console"), CPUMillis: types.Int64Value(2000), MemoryGbs: types.Int64Value(8),
		HAReplicas: types.Int64Value(1), SyncReplicas: types.Int64Value(0), Environment: types.StringValue("PROD"),
		ConnectionPoolerEnabled: types.BoolValue(false), VpcID: types.StringNull(),
	})
	r.serviceChange(bID, "attach b", func() error { return r.c.AttachToVPC(r.ctx, bID, vpcID) },
		func(f serviceFields) bool { return f.VpcID.ValueString() == vpcID })
	r.serviceChange(bID, "pause b", func() error { _, err := r.c.StopService(r.ctx, bID); return err },
		func(f serviceFields) bool { return f.Status.ValueString() == string(api.PAUSED) })

	// What the configuration says (from) and what the API shows now (to).
	moves := []attrChange{
		{vpc, "name", "drift-net", "drift-net-console"},
		{b, "vpc_id", "null", vpcID},
		{b, "paused", "false", "true"},
		{rs, "cpu_millis", "1000", "2000"},
		{rs, "memory_gbs", "4", "8"},
		{rs, "connection_pooler_enabled", "false", "true"},
		{rs, "environment", "DEV", "PROD"},
	}
	moves = append(moves, aMoves...)

	drift := r.savedPlan("drift.tfplan", 2, "-refresh-only")
	expectMoves(t, "resource_drift", drift.ResourceDrift, moves)
	for _, m := range moves {
		t.Logf("drift shown: %s.%s %s -> %s", m.addr, m.attr, m.from, m.to)
	}

	fix := r.savedPlan("fix.tfplan", 2)
	expectActions(t, fix, map[string]string{vpc: "update", a: "update", b: "update", rs: "update"})
	expectMoves(t, "plan", fix.ResourceChanges, reversed(moves))
	r.tf("apply", "-input=false", "fix.tfplan")

	// The apply reached the API.
	if v, err := r.c.GetVPC(r.ctx, vpcID); err != nil || deref(v.Name) != "drift-net" {
		t.Errorf("VPC after the apply: %+v (%v), want name drift-net", v, err)
	}
	fa, _ := r.service(aID)
	if got, want := fmt.Sprintf("%s %d/%d %s ha=%d sync=%d pooler=%t vpc=%s", fa.Name.ValueString(), fa.CPUMillis.ValueInt64(), fa.MemoryGbs.ValueInt64(),
		fa.Environment.ValueString(), fa.HAReplicas.ValueInt64(), fa.SyncReplicas.ValueInt64(), fa.ConnectionPoolerEnabled.ValueBool(), fa.VpcID.ValueString()),
		fmt.Sprintf("drift-a 1000/4 DEV ha=2 sync=1 pooler=true vpc=%s", vpcID); got != want {
		t.Errorf("service a after the apply: %s, want %s", got, want)
	}
	if fb, _ := r.service(bID); fb.Status.ValueString() != string(api.READY) || !fb.VpcID.IsNull() {
		t.Errorf("service b after the apply: %s, vpc %s; want READY, no VPC", fb.Status, fb.VpcID)
	}
	if s := r.replicaSet(aID, rsID); s == nil || deref(s.CPUMillis) != 1000 || deref(s.MemoryGbs) != 4 || s.PoolerEnabled() || replicaSetEnvironment(s) != "DEV" {
		t.Errorf("replica set after the apply: %+v, want 1000/4, no pooler, DEV", s)
	}
	r.savedPlan("empty.tfplan", 0)
}
