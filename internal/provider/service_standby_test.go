package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// Read replica set ids on the service path (service_standby.go): the API answers GET of the service
// path for a replica set's id with a record of its standby (forked_from.is_standby = true).

// standbyTestSetUp makes, through the API, a READY service and an active read replica set "reads" of
// it (1 node, 1000/4), and returns their ids.
func standbyTestSetUp(t *testing.T, srv *emulatortest.Server, name string) (primaryID, replicaSetID string) {
	t.Helper()
	primaryID = netTestService(t, srv, name)
	rs, err := testClient(t, srv).CreateReplicaSet(context.Background(), primaryID, api.ReadReplicaSetCreate{Name: "reads", Nodes: 1, CPUMillis: 1000, MemoryGbs: 4})
	if err != nil {
		t.Fatalf("creating replica set: %v", err)
	}
	replicaSetID = deref(rs.ID)
	if !waitUntil(20*time.Second, func() bool {
		got, ok := srv.ReplicaSet(testProjectID, primaryID, replicaSetID)
		return ok && deref(got.Status) == api.ReplicaSetStatusActive
	}) {
		t.Fatalf("replica set %s did not become active", replicaSetID)
	}
	return primaryID, replicaSetID
}

// standbyNoChangeSent fails if any request other than a GET was sent to the service path of id (the
// path itself or below it, e.g. DELETE, rename, stop, replicaSets).
func standbyNoChangeSent(srv *emulatortest.Server, id string) error {
	for _, r := range srv.Requests() {
		p := r.Path
		if r.Method != "GET" && (strings.HasSuffix(p, "/services/"+id) || strings.Contains(p, "/services/"+id+"/")) {
			return fmt.Errorf("a state-changing request was sent to the service path of read replica set %s: %s %s (%s)", id, r.Method, p, r.OperationID)
		}
	}
	return nil
}

// standbyRefused matches the error of a dbcloud_service given a replica set's id.
func standbyRefused(primaryID, replicaSetID string) *regexp.Regexp {
	return words(replicaSetID+" is the id of read replica set", "of service "+primaryID,
		"terraform import dbcloud_read_replica_set.<name> "+primaryID+"/"+replicaSetID)
}

// Importing a read replica set's id as a dbcloud_service fails, by `terraform import` and by an import
// block, with an error that gives the dbcloud_read_replica_set import id; importing it as the message
// says works; nothing is ever sent to the service path of the replica set's id.
func TestAccService_importReplicaSetIDRefused(t *testing.T) {
	srv := newTestEmulator(t)
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-primary")
	serviceCfg := providerBlock(srv) + `
resource "dbcloud_service" "x" {
  name   = "reads"
  addons = []
}
`
	replicaSetCfg := providerBlock(srv) + fmt.Sprintf(`
import {
  to = dbcloud_read_replica_set.reads
  id = "%[1]s/%[2]s"
}

resource "dbcloud_read_replica_set" "reads" {
  service_id = %[1]q
  name       = "reads"
  cpu_millis = 1000
  memory_gbs = 4
}
`, primaryID, rsID)
	resource.ParallelTest(t, testCase(t, srv,
		// terraform import dbcloud_service.x <replica set id>
		resource.TestStep{
			Config:        serviceCfg,
			ResourceName:  "dbcloud_service.x",
			ImportState:   true,
			ImportStateId: rsID,
			ExpectError:   standbyRefused(primaryID, rsID),
		},
		// An import block with the replica set's id.
		resource.TestStep{
			Config: serviceCfg + fmt.Sprintf(`
import {
  to = dbcloud_service.x
  id = %q
}
`, rsID),
			PlanOnly:    true,
			ExpectError: words(standbySummary, rsID),
		},
		// The import id the message gives works, and nothing changes.
		resource.TestStep{
			Config: replicaSetCfg,
			ConfigPlanChecks: emptyPlanAfterApply(
				plancheck.ExpectResourceAction("dbcloud_read_replica_set.reads", plancheck.ResourceActionNoop)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("dbcloud_read_replica_set.reads", tfjsonpath.New("id"), knownvalue.StringExact(rsID)),
				statecheck.ExpectKnownValue("dbcloud_read_replica_set.reads", tfjsonpath.New("service_id"), knownvalue.StringExact(primaryID)),
			},
			Check: func(*terraform.State) error { return standbyNoChangeSent(srv, rsID) },
		},
	))
}

// An import block by identity (Terraform >= 1.12) with a replica set's id fails the same way.
func TestAccService_importReplicaSetIDByIdentityRefused(t *testing.T) {
	srv := newTestEmulator(t)
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-ident")
	tc := testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
import {
  to       = dbcloud_service.x
  identity = { id = %q }
}

resource "dbcloud_service" "x" {
  name   = "reads"
  addons = []
}
`, rsID),
			PlanOnly:    true,
			ExpectError: standbyRefused(primaryID, rsID),
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)}
	resource.ParallelTest(t, tc)
	if err := standbyNoChangeSent(srv, rsID); err != nil {
		t.Error(err)
	}
}

// A dbcloud_service already in state whose id answers a standby record (imported by an older version)
// fails its refresh with the same error, keeps its state, and is never changed or deleted: an apply and
// a destroy without refresh fail before sending anything; `terraform state rm`, as the message says,
// lets it go.
func TestAccService_refreshOfReplicaSetIDRefused(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel()
	srv := newTestEmulator(t)
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-state")
	cfg := func(name string) string {
		return fmt.Sprintf(`
resource "dbcloud_service" "x" {
  name   = %q
  addons = []
}
`, name)
	}
	w := newTFWorkdir(t, srv, cfg("standby-state"))
	// A state as an older version left it: the primary's record under the replica set's id.
	if out, err := w.run("import", "-input=false", "dbcloud_service.x", primaryID); err != nil {
		t.Fatalf("terraform import: %v\n%s", err, out)
	}
	standbyRewriteStateID(t, w.dir, primaryID, rsID)
	refused := standbyRefused(primaryID, rsID)

	out, err := w.run("plan", "-input=false")
	if err == nil || !refused.MatchString(out) {
		t.Fatalf("plan: err %v, want the replica set error; output:\n%s", err, out)
	}
	w.write(cfg("renamed"))
	out, err = w.run("apply", "-refresh=false", "-auto-approve", "-input=false")
	if err == nil || !refused.MatchString(out) {
		t.Fatalf("apply -refresh=false of a rename: err %v, want the replica set error; output:\n%s", err, out)
	}
	out, err = w.run("destroy", "-refresh=false", "-auto-approve", "-input=false")
	if err == nil || !refused.MatchString(out) {
		t.Fatalf("destroy -refresh=false: err %v, want the replica set error; output:\n%s", err, out)
	}
	if ids := w.stateIDs()["dbcloud_service"]; len(ids) != 1 || ids[0] != rsID {
		t.Errorf("state ids after the refused operations = %v, want [%s] (kept)", ids, rsID)
	}
	if err := standbyNoChangeSent(srv, rsID); err != nil {
		t.Error(err)
	}
	if _, ok := srv.ReplicaSet(testProjectID, primaryID, rsID); !ok {
		t.Errorf("replica set %s is gone", rsID)
	}
	if out, err := w.run("state", "rm", "dbcloud_service.x"); err != nil {
		t.Fatalf("terraform state rm: %v\n%s", err, out)
	}
}

// standbyRewriteStateID replaces the id of the state's dbcloud_service (attributes and identity).
func standbyRewriteStateID(t *testing.T, dir, from, to string) {
	t.Helper()
	p := filepath.Join(dir, "terraform.tfstate")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range st["resources"].([]any) {
		for _, in := range r.(map[string]any)["instances"].([]any) {
			inst := in.(map[string]any)
			for _, key := range []string{"attributes", "identity"} {
				if m, ok := inst[key].(map[string]any); ok && m["id"] == from {
					m["id"] = to
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("no id %s in the state:\n%s", from, b)
	}
	out, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// With a list of services that holds standby records (Options.ListStandbys), dbcloud_services leaves
// them out and a managed service refreshes as usual; the dbcloud_service data source reads a replica
// set's id, showing forked_from.is_standby = true.
func TestAccServices_skipStandbyRecords(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.ListStandbys = true })
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-list")
	set, _ := srv.ReplicaSet(testProjectID, primaryID, rsID)
	if n := len(testClientList(t, srv)); n != 2 {
		t.Fatalf("the emulator lists %d records, want the service and the standby", n)
	}
	ds := "data.dbcloud_service.standby"
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
data "dbcloud_services" "all" {}

data "dbcloud_service" "standby" {
  id = %q
}

resource "dbcloud_service" "managed" {
  name   = "standby-managed"
  addons = []
}

resource "dbcloud_read_replica_set" "reads" {
  service_id = dbcloud_service.managed.id
  name       = "managed-reads"
  cpu_millis = 500
  memory_gbs = 2
}
`, rsID),
			ConfigPlanChecks: emptyPlanAfterApply(),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.dbcloud_services.all", tfjsonpath.New("ids"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact(primaryID)})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("forked_from"), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"project_id": knownvalue.StringExact(testProjectID),
					"service_id": knownvalue.StringExact(primaryID),
					"is_standby": knownvalue.Bool(true),
				})),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("name"), knownvalue.StringExact("reads")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("hostname"), knownvalue.StringExact(deref(set.Endpoint.Host))),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("cpu_millis"), knownvalue.Int64Exact(1000)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("memory_gbs"), knownvalue.Int64Exact(4)),
			},
		},
		// Now the list holds the managed service's standby too: the data source still lists services only.
		resource.TestStep{
			RefreshState: true,
			Check: func(s *terraform.State) error {
				managed, err := netTestAttr(s, "dbcloud_service.managed", "id")
				if err != nil {
					return err
				}
				ids, err := netTestAttr(s, "data.dbcloud_services.all", "ids.#")
				if err != nil {
					return err
				}
				if ids != "2" {
					return fmt.Errorf("dbcloud_services lists %s ids, want 2 (%s and %s)", ids, primaryID, managed)
				}
				if n := len(testClientList(t, srv)); n != 4 {
					return fmt.Errorf("the emulator lists %d records, want 4 (two services, two standbys)", n)
				}
				return standbyNoChangeSent(srv, rsID)
			},
		},
	))
}

// testClientList lists the project's services through the API.
func testClientList(t *testing.T, srv *emulatortest.Server) []api.Service {
	t.Helper()
	list, err := testClient(t, srv).ListServices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// `terraform query` (Terraform >= 1.14): the dbcloud_service list resource leaves standby records out.
func TestAccList_skipsStandbyRecords(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.ListStandbys = true })
	primaryID, _ := standbyTestSetUp(t, srv, "standby-query")
	tc := testCase(t, srv,
		resource.TestStep{Config: providerBlock(srv)},
		resource.TestStep{
			Query: true,
			Config: `
list "dbcloud_service" "all" {
  provider = dbcloud
}
`,
			QueryResultChecks: []querycheck.QueryResultCheck{
				querycheck.ExpectLength("dbcloud_service.all", 1),
				querycheck.ExpectIdentity("dbcloud_service.all", map[string]knownvalue.Check{
					"id": knownvalue.StringExact(primaryID), "project_id": knownvalue.StringExact(testProjectID)}),
			},
		},
	)
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}
	resource.ParallelTest(t, tc)
}

// A replica set's id where a service's is expected elsewhere (a replica set's service_id, a fork's
// source) fails before anything is sent to the service path of that id.
func TestAccService_replicaSetIDAsParentRefused(t *testing.T) {
	srv := newTestEmulator(t)
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-parent")
	before := map[string]int{"createReplicaSet": srv.Calls("createReplicaSet"), "forkService": srv.Calls("forkService")}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_read_replica_set" "nested" {
  service_id = %q
  name       = "nested"
  cpu_millis = 500
  memory_gbs = 2
}
`, rsID),
			ExpectError: words("service_id "+rsID+" is the id of a read replica set of service "+primaryID, `set service_id = "`+primaryID+`"`),
		},
		resource.TestStep{
			Config: providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "fork" {
  name   = "fork-of-a-replica"
  addons = []
  fork {
    source_service_id = %q
    strategy          = "NOW"
  }
}
`, rsID),
			ExpectError: words("Could not fork service", rsID+" is the id of read replica set", "of service "+primaryID),
			Check:       func(*terraform.State) error { return standbyNoChangeSent(srv, rsID) },
		},
	))
	if err := standbyNoChangeSent(srv, rsID); err != nil {
		t.Error(err)
	}
	for op, n := range before {
		if got := srv.Calls(op); got != n {
			t.Errorf("%s was called %d times during the test, want 0", op, got-n)
		}
	}
}

// The refresh cache leaves a listed standby record to the GET of its id (so a Read sees what GET
// answers, and refuses it), and serves the services from the list as before.
func TestServiceReadCacheLeavesStandbysToGet(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing = emulator.Timing{}; o.ListStandbys = true })
	ctx := context.Background()
	plain := testClient(t, srv)
	svc, err := plain.CreateService(ctx, api.ServiceCreate{Name: "cache-primary"})
	if err != nil {
		t.Fatal(err)
	}
	primaryID := deref(svc.ServiceID)
	rs, err := plain.CreateReplicaSet(ctx, primaryID, api.ReadReplicaSetCreate{Name: "reads", Nodes: 1, CPUMillis: 500, MemoryGbs: 2})
	if err != nil {
		t.Fatal(err)
	}
	rsID := deref(rs.ID)
	cache := newReadCache()
	c, err := api.New(cache.config(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID, Retry: testRetry}))
	if err != nil {
		t.Fatal(err)
	}
	cache.of(c)
	if n := len(testClientList(t, srv)); n != 2 {
		t.Fatalf("the emulator lists %d records, want 2", n)
	}
	srv.ResetRequests()
	got, err := cache.GetService(ctx, primaryID)
	if err != nil || deref(got.ServiceID) != primaryID {
		t.Fatalf("GetService(primary) = %v, %v", got, err)
	}
	got, err = cache.GetService(ctx, rsID)
	if err != nil || !isStandbyRecord(got) || deref(got.ForkedFrom.ServiceID) != primaryID {
		t.Fatalf("GetService(replica set id) = %+v, %v: want the standby record", got, err)
	}
	if l, g := srv.Calls("listServices"), srv.Calls("getService"); l != 1 || g != 1 {
		t.Errorf("list %d, get %d: want one list (the primary) and one GET (the standby)", l, g)
	}
	if err := notStandby(rsID, got); err == nil || !strings.Contains(err.Error(), primaryID+"/"+rsID) {
		t.Errorf("notStandby = %v, want the import id %s/%s", err, primaryID, rsID)
	}
}

// An action (Terraform >= 1.14) given a replica set's id reads it and sends nothing.
func TestAccServiceActions_replicaSetIDRefused(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	primaryID, rsID := standbyTestSetUp(t, srv, "standby-action")
	at := newActionWorkdir(t, tf, srv, providerBlock(srv)+fmt.Sprintf(`
action "dbcloud_service_pause" "reads" {
  config {
    service_id = %q
  }
}
`, rsID))
	out, code, _ := at.invoke(t, "dbcloud_service_pause.reads")
	if code == 0 || !words(standbySummary, rsID+" is the id of read replica set", "of service "+primaryID).MatchString(out) {
		t.Errorf("pause of a replica set id: exit code %d, want the replica set error:\n%s", code, out)
	}
	if err := standbyNoChangeSent(srv, rsID); err != nil {
		t.Error(err)
	}
}
