package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Issue 11 point 1: Ctrl-C while create waits. A real `terraform apply` talks to the provider served in
// this process (TF_REATTACH_PROVIDERS, as terraform-plugin-testing does), against a slow emulator; the
// test sends SIGINT to terraform while the new service is still QUEUED, then applies again. Exactly
// one create reaches the API, nothing is deleted, the interrupted apply left the service in state
// untainted, and the second apply waited for it and applied the remaining settings.

const interruptProviderAddr = "registry.terraform.io/dbcloud/dbcloud"

// terraformCmd is a terraform command in dir using the in-process provider.
func terraformCmd(t *testing.T, dir, reattach string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("terraform is not on PATH: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_CLI_CONFIG_FILE=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// terraformRun runs a terraform command to the end with a fresh in-process provider.
func terraformRun(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd, out := terraformCmd(t, dir, serveProviderForTerraform(t, interruptProviderAddr), args...)
	err := cmd.Run()
	return out.String(), err
}

type tfStateFile struct {
	Resources []struct {
		Type      string `json:"type"`
		Instances []struct {
			Status     string         `json:"status"`
			Attributes map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

func readServiceState(t *testing.T, dir string) (attrs map[string]any, tainted bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatalf("reading the state: %v", err)
	}
	var st tfStateFile
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		if r.Type == "dbcloud_service" && len(r.Instances) == 1 {
			return r.Instances[0].Attributes, r.Instances[0].Status == "tainted"
		}
	}
	t.Fatalf("no dbcloud_service in the state:\n%s", b)
	return nil, false
}

func TestAccService_interruptedCreateResumes(t *testing.T) {
	testAccPreCheck(t)
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Timing.ServiceQueued = 10 * time.Minute })
	dir := t.TempDir()
	main := `
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
` + providerBlock(srv) + `
resource "dbcloud_service" "test" {
  name                      = "interrupted"
  connection_pooler_enabled = true
  password                  = "a-Passw0rd-1"
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := terraformRun(t, dir, "init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}

	// 1. apply, interrupted while the create waits for READY.
	cmd, out := terraformCmd(t, dir, serveProviderForTerraform(t, interruptProviderAddr), "apply", "-auto-approve", "-input=false", "-no-color")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	if !waitUntil(2*time.Minute, func() bool {
		if svcs := srv.Services(testProjectID); len(svcs) > 0 {
			id = deref(svcs[0].ServiceID)
		}
		return id != ""
	}) {
		_ = cmd.Process.Kill()
		t.Fatalf("no service was created:\n%s", out)
	}
	// Let the provider settle into its wait (a few polls), then Ctrl-C.
	waitUntil(2*time.Minute, func() bool { return srv.Calls("getService") >= 3 })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("the interrupted terraform apply exited: %v", err)
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("terraform did not stop after the interrupt:\n%s", out)
	}
	first := out.String()
	attrs, tainted := readServiceState(t, dir)
	if attrs["id"] != id || tainted {
		t.Fatalf("after the interrupt: id %v tainted %v, want %s untainted\n%s", attrs["id"], tainted, id, first)
	}
	if !strings.Contains(first, "the next apply resumes the wait") {
		t.Errorf("the interrupted apply did not say that the next apply resumes:\n%s", first)
	}

	// 2. The service becomes READY soon; the next apply waits for it and applies the rest.
	srv.SetServiceStatusFor(testProjectID, id, api.CONFIGURING, time.Second, api.READY)
	second, err := terraformRun(t, dir, "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("second apply: %v\n%s", err, second)
	}
	if !strings.Contains(second, "0 added, 1 changed, 0 destroyed") {
		t.Errorf("second apply: want one in-place update:\n%s", second)
	}
	attrs, tainted = readServiceState(t, dir)
	if attrs["id"] != id || tainted || attrs["status"] != "READY" || attrs["connection_pooler_enabled"] != true {
		t.Errorf("after the second apply: id %v tainted %v status %v pooler %v; want %s, untainted, READY, pooler on",
			attrs["id"], tainted, attrs["status"], attrs["connection_pooler_enabled"], id)
	}
	for op, want := range map[string]int{"createService": 1, "deleteService": 0, "enablePooler": 1, "updatePassword": 1} {
		if got := srv.Calls(op); got != want {
			t.Errorf("emulator saw %d %s calls, want %d", got, op, want)
		}
	}
	if n := len(srv.Services(testProjectID)); n != 1 {
		t.Errorf("%d services in the emulator, want 1", n)
	}

	// 3. A third plan is empty; then clean up.
	if out, err := terraformRun(t, dir, "plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Errorf("plan after the resumed apply is not empty (%v):\n%s", err, out)
	}
	if out, err := terraformRun(t, dir, "destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	// The destroy returned once the service read DELETED; the emulator keeps that record a while.
	if live := liveServices(srv); len(live) != 0 {
		t.Errorf("%d services left after destroy (not DELETED)", len(live))
	}
}
