package provider

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// Errors as a user reads them (diagnostics.go): a 403 explained with the projects the credentials may
// use, with keys and with a token; a token the API refuses, at plan and in the middle of an apply,
// with its message and what to do.

// Issue 10 point 7: a project the credentials may not use is named, with the projects they may use,
// when an API call answers 403 (no extra request on every plan: the projects are listed only then).
func TestAccService_forbiddenProject(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Projects = []string{testProjectID, "tp2project0"} })
	cfg := fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  access_key = %q
  secret_key = %q
  project_id = "wrongproj1"
}
resource "dbcloud_service" "test" {
  name = "nope"
}
`, srv.URL, testAccessKey, testSecretKey)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      cfg,
			ExpectError: words("project_id wrongproj1 is not one the credentials may use (projects you may use: tp1project0, tp2project0)"),
		},
	))
	if n := srv.Calls("listProjects"); n != 1 {
		t.Errorf("listProjects called %d times, want 1 (only in the error path)", n)
	}
}

// A 403 with a token is explained as with the keys: the projects the token may use, listed with it.
func TestAccToken_forbiddenProject(t *testing.T) {
	srv := newTokenEmulator(t, func(o *emulator.Options) { o.Projects = []string{testProjectID, "tp2project0"} })
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: tokenProviderBlock(srv, testToken, "wrongproj1") + `
resource "dbcloud_vpc" "net" {
  name        = "nope"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}
`,
			ExpectError: words("project_id wrongproj1 is not one the credentials may use (projects you may use: tp1project0, tp2project0)",
				"token may not use project wrongproj1"),
		},
	))
	if n := srv.Calls("listProjects"); n != 1 {
		t.Errorf("listProjects called %d times, want 1 (only in the error path)", n)
	}
}

// A token that expires between runs: the next plan's refresh fails with the token's message, each
// request sent once (no retry); the run after it, with a new token, finds everything as it was and
// has nothing to do.
func TestAccToken_expired(t *testing.T) {
	srv := newTokenEmulator(t)
	const stack = `
resource "dbcloud_vpc" "net" {
  name        = "token-net"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}
resource "dbcloud_service" "db" {
  name = "token-db"
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{Config: tokenProviderBlock(srv, testToken, testProjectID) + stack},
		resource.TestStep{
			PreConfig: func() {
				srv.ExpireToken(testToken)
				srv.ResetRequests()
			},
			Config:      tokenProviderBlock(srv, testToken, testProjectID) + stack,
			ExpectError: words("HTTP 401", "refused the token", "expired", "set it in token (or DBCLOUD_TOKEN)"),
		},
		resource.TestStep{
			PreConfig: func() {
				reqs := srv.Requests()
				t.Logf("the plan with the expired token: %s", requestList(reqs))
				seen := map[string]bool{}
				for _, r := range reqs {
					key := r.Method + " " + r.Path
					if r.Status != http.StatusUnauthorized || seen[key] {
						t.Errorf("with the expired token: %s (each request once, each answered 401)", requestList(reqs))
						break
					}
					seen[key] = true
				}
				if len(reqs) == 0 {
					t.Error("no request with the expired token: the step proved nothing")
				}
			},
			Config: tokenProviderBlock(srv, testNewToken, testProjectID) + stack,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	))
}

// A token that expires in the middle of an apply (here: as the API accepts the create of a service,
// before the provider's first look at it): the apply fails at the next request with the token's
// message, that request sent once; the service is in state (tainted, as after any failure once it
// exists), and the next run with a new token replaces it and ends with nothing to do.
func TestAccToken_expiresDuringApply(t *testing.T) {
	srv := newTokenEmulator(t)
	srv.SetInterceptor(func(ri emulatortest.RequestInfo) emulatortest.Decision {
		if ri.OperationID == "createService" {
			srv.ExpireToken(testToken)
		}
		return emulatortest.Decision{}
	})
	const svc = `
resource "dbcloud_service" "db" {
  name = "token-expires"
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      tokenProviderBlock(srv, testToken, testProjectID) + svc,
			ExpectError: words("Service created but did not become READY", "HTTP 401", "refused the token", "expired", "DBCLOUD_TOKEN"),
		},
		resource.TestStep{
			PreConfig: func() {
				reqs := srv.Requests()
				t.Logf("the apply whose token expired: %s", requestList(reqs))
				refused := 0
				for _, r := range reqs {
					if r.Status == http.StatusUnauthorized {
						refused++
					}
				}
				// The wait's look answered 401, then the create's failure path reads the service once
				// more to save what it can (recordServiceProgress): two requests refused, neither retried.
				if refused != 2 || srv.Calls("createService") != 1 {
					t.Errorf("after the token expired: %s, want one create and two requests refused (no retry)", requestList(reqs))
				}
				if n := len(srv.Services(testProjectID)); n != 1 {
					t.Errorf("%d services, want the one created", n)
				}
			},
			Config: tokenProviderBlock(srv, testNewToken, testProjectID) + svc,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("dbcloud_service.db", plancheck.ResourceActionReplace)},
			},
		},
	))
}
