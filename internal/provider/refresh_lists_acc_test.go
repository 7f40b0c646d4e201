package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// mixedStackConfig is the stack of issue 27 at a size: vpcs VPCs with one peering each, services
// services with one read replica set each.
func mixedStackConfig(srv *emulator.Server, vpcs, services int) string {
	return `
terraform {
  required_providers {
    dbcloud = { source = "registry.terraform.io/dbcloud/dbcloud" }
  }
}
` + providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_vpc" "v" {
  count       = %d
  name        = "mixed-vpc-${count.index}"
  cidr        = "10.${count.index}.0.0/16"
  region_code = "us-east-1"
}
resource "dbcloud_vpc_peering" "p" {
  count            = %d
  vpc_id           = dbcloud_vpc.v[count.index].id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-mixed${count.index}"
}
resource "dbcloud_service" "s" {
  count = %d
  name  = "mixed-${count.index}"
}
resource "dbcloud_read_replica_set" "r" {
  count      = %d
  service_id = dbcloud_service.s[count.index].id
  name       = "mixed-rs-${count.index}"
  cpu_millis = 500
  memory_gbs = 2
}
`, vpcs, vpcs, services, services)
}

// tfRunner runs the real terraform in dir against the provider served in-process.
type tfRunner struct {
	t        *testing.T
	bin, dir string
	env      []string
}

// run runs terraform and returns its output and exit code; codes other than those allowed fail the test.
func (r tfRunner) run(allowed []int, args ...string) (string, int) {
	r.t.Helper()
	cmd := exec.Command(r.bin, append(args, "-no-color")...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		r.t.Fatalf("terraform %v: %v", args, err)
	}
	if !slices.Contains(allowed, code) {
		r.t.Fatalf("terraform %v exited %d:\n%s", args, code, out)
	}
	return string(out), code
}

// stateIDs returns the id of every resource instance in the state, by address.
func (r tfRunner) stateIDs() map[string]string {
	r.t.Helper()
	out, _ := r.run([]int{0}, "show", "-json")
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		r.t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	ids := map[string]string{}
	for _, res := range st.Values.RootModule.Resources {
		ids[res.Address], _ = res.Values["id"].(string)
	}
	return ids
}

// plannedCreates returns the addresses a saved plan creates.
func (r tfRunner) plannedCreates(planFile string) []string {
	r.t.Helper()
	out, _ := r.run([]int{0}, "show", "-json", planFile)
	var p struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		r.t.Fatalf("terraform show -json %s: %v", planFile, err)
	}
	var creates []string
	for _, rc := range p.ResourceChanges {
		switch strings.Join(rc.Change.Actions, ",") {
		case "create":
			creates = append(creates, rc.Address)
		case "no-op", "read":
		default:
			r.t.Errorf("the plan %s %s; only creates were expected", strings.Join(rc.Change.Actions, ","), rc.Address)
		}
	}
	slices.Sort(creates)
	return creates
}

// The stack of issue 27 (10 VPCs with one peering each, 40 services with one read replica set
// each: 100 objects) refreshed from lists, with the real terraform against the provider served
// in-process:
//   - a no-change plan sends 12 requests (1 list of services, 1 of VPCs, 1 of peerings per VPC) and
//     plans nothing;
//   - objects of each record type deleted out of band are seen as gone: removed from state by a
//     refresh, and the next plan creates them;
//   - while every list fails, a refresh removes nothing (each object is read on its own) and the
//     plan is empty.
func TestAccRefresh_mixedStackFromLists(t *testing.T) {
	testAccPreCheck(t)
	tfBin, err := exec.LookPath("terraform")
	if env := os.Getenv("TF_ACC_TERRAFORM_PATH"); env != "" {
		tfBin, err = env, nil
	}
	if err != nil {
		t.Skip("terraform is not on PATH")
	}
	const vpcs, services = 10, 40
	srv := newTestEmulator(t)
	reattach := serveProviderForTerraform(t, "registry.terraform.io/dbcloud/dbcloud")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(mixedStackConfig(srv, vpcs, services)), 0o600); err != nil {
		t.Fatal(err)
	}
	tf := tfRunner{t: t, bin: tfBin, dir: dir,
		env: append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach, "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1")}
	tf.run([]int{0}, "init", "-input=false")
	tf.run([]int{0}, "apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids := tf.stateIDs()
	if len(ids) != 2*vpcs+2*services {
		t.Fatalf("%d objects in state after apply, want %d", len(ids), 2*vpcs+2*services)
	}

	// 1. A no-change plan: one list per list, nothing else, and nothing to do.
	srv.ResetRequests()
	tf.run([]int{0}, "plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
	want := map[string]int{"listServices": 1, "listVPCs": 1, "listPeerings": vpcs}
	got := map[string]int{}
	for _, r := range srv.Requests() {
		got[r.OperationID]++
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a no-change plan of %d objects sent %v, want %v (%d requests)", len(ids), got, want, 2+vpcs)
	}

	// 2. Deleted out of band, one or two of each record type: a replica set alone, a service with
	// its replica set, a peering alone, a VPC with its peering.
	srv.RemoveReplicaSet(testProjectID, ids["dbcloud_service.s[0]"], ids["dbcloud_read_replica_set.r[0]"])
	srv.RemoveService(testProjectID, ids["dbcloud_service.s[1]"])
	srv.RemovePeering(testProjectID, ids["dbcloud_vpc.v[0]"], ids["dbcloud_vpc_peering.p[0]"])
	srv.RemoveVPC(testProjectID, ids["dbcloud_vpc.v[1]"])
	gone := []string{"dbcloud_read_replica_set.r[0]", "dbcloud_read_replica_set.r[1]", "dbcloud_service.s[1]",
		"dbcloud_vpc.v[1]", "dbcloud_vpc_peering.p[0]", "dbcloud_vpc_peering.p[1]"}
	tf.run([]int{2}, "plan", "-detailed-exitcode", "-input=false", "-out=gone.tfplan")
	if creates := tf.plannedCreates("gone.tfplan"); !slices.Equal(creates, gone) {
		t.Errorf("after the out-of-band deletes the plan creates %v, want %v", creates, gone)
	}
	tf.run([]int{0}, "apply", "-refresh-only", "-auto-approve", "-input=false")
	left := tf.stateIDs()
	for _, addr := range gone {
		if _, ok := left[addr]; ok {
			t.Errorf("%s is still in state after a refresh, but it was deleted out of band", addr)
		}
	}
	if len(left) != len(ids)-len(gone) {
		t.Errorf("%d objects in state after the refresh, want %d", len(left), len(ids)-len(gone))
	}
	tf.run([]int{0}, "apply", "-auto-approve", "-input=false", "-parallelism=10")
	ids = tf.stateIDs()

	// 3. Every list fails: a refresh removes nothing and the plan is empty.
	for _, op := range []string{"listServices", "listVPCs", "listPeerings"} {
		srv.InjectFault(op, emulator.FaultServerError, 1_000_000)
	}
	srv.ResetRequests()
	tf.run([]int{0}, "apply", "-refresh-only", "-auto-approve", "-input=false", "-parallelism=10")
	if after := tf.stateIDs(); fmt.Sprint(after) != fmt.Sprint(ids) {
		t.Errorf("a refresh with failing lists changed the state:\n before %v\n after  %v", ids, after)
	}
	if n := srv.Calls("getVPC"); n != vpcs {
		t.Errorf("with failing lists, %d VPCs were read on their own, want %d", n, vpcs)
	}
	tf.run([]int{0}, "plan", "-detailed-exitcode", "-input=false", "-parallelism=10")
}
