package provider

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// The import round trip of a whole project, with the real terraform binary the acceptance tests use
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH), when it is 1.14 or later: `terraform query
// -generate-config-out` writes import blocks and configuration for everything the list resources find,
// that configuration imports with nothing to change, and a plan afterwards is empty.
func TestAccQuery_generateConfigRoundTrip(t *testing.T) {
	testAccPreCheck(t)
	tf := newTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	o := listTestSetUp(t, srv)
	// A time-series+ai service: the API reports only its type, so the generated addons are
	// ["time-series"], which imports without a change (see the importing guide).
	ts, err := testClient(t, srv).CreateService(context.Background(), api.ServiceCreate{Name: "list-ts", Addons: &[]api.Addon{api.Addon(addonTimeSeries), api.Addon(addonAI)}})
	if err != nil {
		t.Fatalf("creating the time-series service: %v", err)
	}
	netTestWaitService(t, srv, deref(ts.ServiceID), api.READY)

	tf.writeFile("main.tf", providerBlock(srv))
	// The query of the importing guide: every VPC and service, the peerings of every VPC found and the
	// replica sets of every service found.
	query, err := os.ReadFile(filepath.Join("..", "..", "examples", "guides", "importing-query", "discover.tfquery.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	tf.writeFile("discover.tfquery.hcl", string(query))

	var generated []byte
	tf.must("init", "-input=false")
	tf.must("query", "-generate-config-out=generated.tf")
	generated, err = os.ReadFile(filepath.Join(tf.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.tf:\n%s", generated)
	for _, want := range []string{o.vpcID, o.peeringID, o.serviceID, o.otherServiceID, o.replicaSetID, deref(ts.ServiceID)} {
		if !bytes.Contains(generated, []byte(want)) {
			t.Errorf("generated.tf does not name %s", want)
		}
	}
	if n := bytes.Count(generated, []byte("import {")); n != 6 {
		t.Errorf("generated.tf has %d import blocks, want 6", n)
	}

	// The generated configuration imports everything and changes nothing.
	tf.must("plan", "-input=false", "-out=import.tfplan")
	changes := tf.plan("import.tfplan").ResourceChanges
	if len(changes) != 6 {
		t.Errorf("the plan has %d resource changes, want 6 imports", len(changes))
	}
	for _, rc := range changes {
		if strings.Join(rc.Change.Actions, ",") != "no-op" || len(rc.Change.Importing) == 0 {
			t.Errorf("%s: actions %v, importing %s; want a no-op import", rc.Address, rc.Change.Actions, rc.Change.Importing)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	tf.must("apply", "-input=false", "import.tfplan")

	// Afterwards the state matches the configuration: an empty plan.
	if out, code := tf.runCode("plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	if got := strings.Fields(tf.must("state", "list")); len(got) != 6 {
		t.Errorf("state has %d objects, want 6: %v", len(got), got)
	}
}
