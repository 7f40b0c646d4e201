package provider

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// Issue 42: first contact. An API never reached in a run fails within seconds naming base_url; an
// outage after the first answer is still ridden out, and the run ends with a warning saying so;
// outage_timeout bounds a plan's refresh. The mistakes that a plan can see fail at plan beside
// the code that sees them: TestAccFirstContact_planTimeChecks (credentials_check_test.go), the
// replica sets of a paused service (read_replica_set_resource_test.go) and allow_replacement left on
// (service_plan_test.go).

// firstContactWorkdir is a terraform working directory (initialised) whose provider block is
// settings (the credentials are added; base_url only when settings sets it, else the environment's
// DBCLOUD_BASE_URL, which the in-process provider reads) and whose resources are resources.
func firstContactWorkdir(t *testing.T, srv *emulatortest.Server, settings, resources string) *tfWorkdir {
	t.Helper()
	// A fresh provider for each command: each is a run of its own, with its own first contact.
	w := newTF(t, tfOptions{onPath: true, perCommand: true})
	w.srv = srv
	w.writeMain(settings, resources)
	w.must("init", "-input=false")
	return w
}

func (w *tfWorkdir) writeMain(settings, resources string) {
	w.t.Helper()
	main := fmt.Sprintf(`
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
provider "dbcloud" {
  access_key = %q
  secret_key = %q
  project_id = %q
  %s
}
%s`, testAccessKey, testSecretKey, testProjectID, settings, resources)
	w.writeFile("main.tf", main)
}

// timed runs a terraform command and says how long it took.
func (w *tfWorkdir) timed(args ...string) (string, time.Duration, error) {
	w.t.Helper()
	start := time.Now()
	out, err := w.run(args...)
	return out, time.Since(start), err
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

const firstContactService = `
resource "dbcloud_service" "fc" {
  name = "first-contact"
}
`

// A wrong port and an unknown host fail the plan, and the apply of a saved plan, within 30 s (the
// first-contact budget, 10 s, and terraform's own start), naming base_url and the URL tried; nothing
// is created. Before: the plan passed after 22 s and the apply waited 30 minutes.
func TestAccFirstContact_unreachableAPIFailsFast(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel()
	srv := newTestEmulator(t)
	t.Run("cases", func(t *testing.T) {
		for name, bad := range map[string]string{
			"wrong port":   "http://" + closedPort(t) + "/v1",
			"unknown host": "https://dbcloud-emulator.invalid/v1",
		} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// The provider's binary, as terraform runs it: it reads DBCLOUD_BASE_URL from the
				// environment of each command (a saved plan keeps the configuration, not the variable).
				w := newTF(t, tfOptions{onPath: true, binary: true})
				w.srv = srv
				w.writeMain("", firstContactService) // no init: dev_overrides
				at := func(url string) { w.env = []string{EnvBaseURL + "=" + url} }

				at(bad)
				out, took, err := w.timed("plan", "-input=false")
				checkUnreachableRun(t, "plan", bad, out, err, took)

				// A plan saved while the API answered, applied when it cannot be reached.
				at(srv.URL)
				w.must("plan", "-input=false", "-out=tfplan")
				at(bad)
				out, took, err = w.timed("apply", "-input=false", "tfplan")
				checkUnreachableRun(t, "apply", bad, out, err, took)
			})
		}
	})
	if n := srv.Calls("createService"); n != 0 {
		t.Errorf("%d services created", n)
	}
}

func checkUnreachableRun(t *testing.T, cmd, url, out string, err error, took time.Duration) {
	t.Helper()
	t.Logf("%s against %s failed after %s", cmd, url, took.Round(100*time.Millisecond))
	flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
	switch {
	case err == nil:
		t.Fatalf("%s against %s succeeded:\n%s", cmd, url, tail(out, 30))
	case took > 30*time.Second:
		t.Errorf("%s against %s took %s, want under 30s", cmd, url, took)
	}
	for _, want := range []string{"could not reach the API at " + url, "base_url", EnvBaseURL, "running"} {
		if !strings.Contains(flat, want) {
			t.Errorf("%s: the error does not say %q:\n%s", cmd, want, diagnostics(out))
		}
	}
}

// An outage that starts after the API first answered in the run is ridden out as before, and the run
// ends 0 with a warning, visible without TF_LOG, saying for how long the API was away and that
// nothing was lost.
func TestAccFirstContact_outageRiddenOutEndsWithWarning(t *testing.T) {
	skipUnlessAcc(t)
	srv := newTestEmulator(t)
	w := firstContactWorkdir(t, srv, fmt.Sprintf("base_url = %q", srv.URL), firstContactService)
	if out, err := w.run("apply", "-input=false", "-no-color", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(out, 30))
	}
	// The refresh answers; the first write meets an outage of 3 s.
	w.writeMain(fmt.Sprintf("base_url = %q", srv.URL), firstContactService+`
resource "dbcloud_vpc" "fc" {
  name        = "first-contact"
  cidr        = "10.42.0.0/16"
  region_code = "us-east-1"
}
`)
	srv.SetOutage(emulator.Outage{Kind: emulator.OutageUnavailable, Duration: 3 * time.Second, StartOn: "write"})
	out, err := w.run("apply", "-input=false", "-no-color", "-auto-approve")
	if err != nil {
		t.Fatalf("the apply did not ride out the outage: %v\n%s", err, tail(out, 40))
	}
	if o := srv.LastOutage(); o.Refused == 0 {
		t.Fatalf("the outage met no request: %+v", o)
	}
	warn := regexp.MustCompile(`Warning: The dbcloud API was unavailable for (\d+)s`).FindStringSubmatch(out)
	if warn == nil {
		t.Fatalf("no warning of the outage:\n%s", tail(out, 40))
	}
	if secs, _ := strconv.Atoi(warn[1]); secs < 2 || secs > 5 {
		t.Errorf("the warning says %ss, the outage lasted 3s", warn[1])
	}
	if flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " "); !strings.Contains(flat, "nothing was lost") {
		t.Errorf("the warning does not say that nothing was lost:\n%s", diagnostics(out))
	}
	if n := strings.Count(out, "Warning: The dbcloud API was unavailable"); n != 1 {
		t.Errorf("%d warnings of the one outage, want 1", n)
	}
	t.Cleanup(func() { _, _ = w.run("destroy", "-input=false", "-no-color", "-auto-approve") })
}

// outage_timeout bounds every wait of a plan's refresh, the shared list read included: a plan met by
// an outage longer than it fails within outage_timeout and one backoff (plus terraform's own start),
// and the error gives the outage's real length. Before: the list read had a fixed 2-minute bound.
func TestAccFirstContact_outageTimeoutBoundsPlan(t *testing.T) {
	skipUnlessAcc(t)
	t.Parallel() // its own emulator and its own outage
	srv := newTestEmulator(t)
	const budget = 15 * time.Second
	settings := fmt.Sprintf("base_url = %q\n  outage_timeout = %q", srv.URL, budget.String())
	resources := firstContactService + `
resource "dbcloud_service" "fc2" {
  name = "first-contact-2"
}
`
	w := firstContactWorkdir(t, srv, settings, resources)
	if out, err := w.run("apply", "-input=false", "-no-color", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, tail(out, 30))
	}
	t.Cleanup(func() {
		srv.SetOutage(emulator.Outage{})
		_, _ = w.run("destroy", "-input=false", "-no-color", "-auto-approve")
	})
	srv.SetOutage(emulator.Outage{Kind: emulator.OutageUnavailable, Duration: time.Minute, StartOn: "listServices"})
	out, took, err := w.timed("plan", "-input=false", "-no-color")
	srv.SetOutage(emulator.Outage{})
	t.Logf("plan met by a 1-minute outage with outage_timeout = %s failed after %s", budget, took.Round(100*time.Millisecond))
	if err == nil {
		t.Fatalf("the plan passed through the outage:\n%s", tail(out, 30))
	}
	// outage_timeout + one backoff (the tests' is 100 ms) + terraform's start and refresh walk (a few
	// seconds on a loaded machine); the fixed bound this replaces was 2 minutes.
	if limit := budget + 10*time.Second; took > limit {
		t.Errorf("the plan took %s, want under %s", took, limit)
	}
	m := regexp.MustCompile(`the API was unavailable for (\d+)s`).FindStringSubmatch(strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " "))
	if m == nil {
		t.Fatalf("the error does not give the outage's length:\n%s", diagnostics(out))
	}
	if secs, _ := strconv.Atoi(m[1]); time.Duration(secs)*time.Second < budget-time.Second || time.Duration(secs)*time.Second > took+time.Second {
		t.Errorf("the error says the API was unavailable for %ss; the plan waited %s with outage_timeout %s", m[1], took, budget)
	}
}
