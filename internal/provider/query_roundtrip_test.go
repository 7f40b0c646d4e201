package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// The import round trip of a whole project, with the real terraform binary the acceptance tests use
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH), when it is 1.14 or later: `terraform query
// -generate-config-out` writes import blocks and configuration for everything the list resources find,
// that configuration imports with nothing to change, and a plan afterwards is empty.
func TestAccQuery_generateConfigRoundTrip(t *testing.T) {
	testAccPreCheck(t)
	tf := roundTripTerraform(t, "1.14.0")
	srv := newTestEmulator(t)
	o := listTestSetUp(t, srv)
	// A time-series+ai service: the API reports only its type, so the generated addons are
	// ["time-series"], which imports without a change (see the importing guide).
	ts, err := testClient(t, srv).CreateService(context.Background(), api.ServiceCreate{Name: "list-ts", Addons: &[]api.Addon{api.Addon(addonTimeSeries), api.Addon(addonAI)}})
	if err != nil {
		t.Fatalf("creating the time-series service: %v", err)
	}
	netTestWaitService(t, srv, deref(ts.ServiceID), api.READY)

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.tf"), providerBlock(srv))
	// The query of the importing guide: every VPC and service, the peerings of every VPC found and the
	// replica sets of every service found.
	query, err := os.ReadFile(filepath.Join("..", "..", "examples", "guides", "importing-query", "discover.tfquery.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "discover.tfquery.hcl"), string(query))

	var generated []byte
	tf.run(t, dir, "init", "-input=false")
	tf.run(t, dir, "query", "-generate-config-out=generated.tf")
	generated, err = os.ReadFile(filepath.Join(dir, "generated.tf"))
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
	tf.run(t, dir, "plan", "-input=false", "-out=import.tfplan")
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions   []string        `json:"actions"`
				Importing json.RawMessage `json:"importing"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(tf.run(t, dir, "show", "-json", "import.tfplan")), &plan); err != nil {
		t.Fatalf("reading the plan: %v", err)
	}
	if len(plan.ResourceChanges) != 6 {
		t.Errorf("the plan has %d resource changes, want 6 imports", len(plan.ResourceChanges))
	}
	for _, rc := range plan.ResourceChanges {
		if strings.Join(rc.Change.Actions, ",") != "no-op" || len(rc.Change.Importing) == 0 {
			t.Errorf("%s: actions %v, importing %s; want a no-op import", rc.Address, rc.Change.Actions, rc.Change.Importing)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	tf.run(t, dir, "apply", "-input=false", "import.tfplan")

	// Afterwards the state matches the configuration: an empty plan.
	if out, code := tf.runCode(t, dir, "plan", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	if got := strings.Fields(tf.run(t, dir, "state", "list")); len(got) != 6 {
		t.Errorf("state has %d objects, want 6: %v", len(got), got)
	}
}

// roundTripTF runs one terraform binary against the provider served in this process.
type roundTripTF struct {
	bin string
	env []string
}

// roundTripTerraform finds the acceptance tests' terraform binary, skips the test when it is older than
// minVersion, and serves the provider to it.
func roundTripTerraform(t *testing.T, minVersion string) roundTripTF {
	t.Helper()
	return roundTripTerraformWith(t, minVersion, testProviderServer)
}

// roundTripTerraformWith is roundTripTerraform serving the provider server newServer makes.
func roundTripTerraformWith(t *testing.T, minVersion string, newServer func() (tfprotov6.ProviderServer, error)) roundTripTF {
	t.Helper()
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("terraform"); err != nil {
			t.Skip("no terraform binary: set TF_ACC_TERRAFORM_PATH")
		}
	}
	out, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		t.Skipf("%s is not Terraform (version -json answered %q)", bin, out)
	}
	have, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatalf("terraform version %q: %v", v.Version, err)
	}
	if have.LessThan(version.Must(version.NewVersion(minVersion))) {
		t.Skipf("Terraform %s is older than %s", have, minVersion)
	}
	env := []string{"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_REATTACH_PROVIDERS=" + serveProviderServerForTerraform(t, "registry.terraform.io/hashicorp/dbcloud", newServer)}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TF_LOG") && !strings.HasPrefix(kv, "TF_REATTACH_PROVIDERS=") {
			env = append(env, kv)
		}
	}
	return roundTripTF{bin: bin, env: env}
}

func (tf roundTripTF) run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, code := tf.runCode(t, dir, args...)
	if code != 0 {
		t.Fatalf("terraform %s: exit code %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

func (tf roundTripTF) runCode(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tf.bin, append(args, "-no-color")...)
	if args[0] == "show" || args[0] == "state" {
		cmd = exec.CommandContext(ctx, tf.bin, args...)
	}
	cmd.Dir, cmd.Env = dir, tf.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), 0
	case errors.As(err, &exit):
		return stdout.String() + stderr.String(), exit.ExitCode()
	}
	t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	return "", -1
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
