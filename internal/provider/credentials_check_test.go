package provider

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// The plan-time check of the credentials (issue 37, credentials_check.go): a wrong key or token, or a
// project the credentials may not use, fails the plan of new resources after one request; where there
// is nothing to check, no request is sent.

// newResources is a configuration of resources only (no data source): a VPC and a service attached
// to it. Its first plan needs no request but the check of the credentials.
const newResources = `
resource "dbcloud_vpc" "net" {
  name        = "token-net"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_service" "db" {
  name        = "token-db"
  region_code = "us-east-1"
  vpc_id      = dbcloud_vpc.net.id
}
`

// A wrong token on a configuration of new resources fails at plan, with the token's message, after one
// request (GET /auth/info answered 401, not retried) and nothing created.
func TestAccToken_wrongFailsAtPlan(t *testing.T) {
	srv := newTokenEmulator(t)
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      tokenProviderBlock(srv, "not-a-token-the-api-knows", testProjectID) + newResources,
			PlanOnly:    true,
			ExpectError: words("The API refused the provider's credentials", "get auth info: HTTP 401", "refused the token", "expired", "DBCLOUD_TOKEN"),
		},
	))
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].OperationID != "getAuthInfo" || reqs[0].Status != http.StatusUnauthorized {
		t.Errorf("requests %s, want one getAuthInfo answered 401 (no retry, nothing else)", requestList(reqs))
	}
}

// Issue 37: a wrong key on a configuration with only new resources fails at plan (it used to pass the
// plan and fail at apply), with the message a refused create gives at apply, after one request.
func TestAccCredentials_wrongKeyFailsAtPlan(t *testing.T) {
	srv := newTestEmulator(t)
	cfg := providerBlockAt(srv.URL, "not-the-secret-key") + newResources
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      cfg,
			PlanOnly:    true,
			ExpectError: words("The API refused the provider's credentials", "get auth info: HTTP 401 Unauthorized [UNAUTHORIZED]", "Check access_key and secret_key (or DBCLOUD_ACCESS_KEY / DBCLOUD_SECRET_KEY)."),
		},
	))
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].OperationID != "getAuthInfo" {
		t.Errorf("requests %s, want one getAuthInfo (no retry, nothing created)", requestList(reqs))
	}
}

// The check of the credentials costs nothing where there is nothing to check: `terraform validate`
// (which does not configure the provider) passes with a wrong key and sends no request; the plan of the
// same configuration fails with one request; and a no-change plan of existing objects sends no request
// for the check either (its refresh shows wrong credentials anyway).
func TestAccCredentials_checkOnlyWhenPlanningCreates(t *testing.T) {
	testAccPreCheck(t)
	srv := newTestEmulator(t)
	tf := newTF(t, tfOptions{})
	write := func(secret string) {
		tf.writeFile("main.tf", `
terraform {
  required_providers {
    dbcloud = { source = "registry.terraform.io/dbcloud/dbcloud" }
  }
}
`+providerBlockAt(srv.URL, secret)+newResources)
	}
	write("not-the-secret-key")
	tf.must("init", "-input=false")
	tf.must("validate")
	if n := srv.Calls(""); n != 0 {
		t.Errorf("terraform validate sent %d requests: %s", n, requestList(srv.Requests()))
	}
	if out := tf.runWant(1, "plan", "-input=false"); !words("The API refused the provider's credentials", "Check access_key and secret_key").MatchString(out) {
		t.Errorf("the plan with a wrong key does not say so:\n%s", out)
	}
	if n := srv.Calls("getAuthInfo"); n != 1 || srv.Calls("") != 1 {
		t.Errorf("the plan with a wrong key sent %s, want one getAuthInfo", requestList(srv.Requests()))
	}

	write(testSecretKey)
	srv.ResetRequests()
	tf.must("apply", "-auto-approve", "-input=false")
	// One check in each of the apply's two runs of the provider (its plan, then its apply).
	if n := srv.Calls("getAuthInfo"); n != 2 {
		t.Errorf("the apply sent %d getAuthInfo, want 2 (one per provider run): %s", n, requestList(srv.Requests()))
	}
	srv.ResetRequests()
	tf.must("plan", "-detailed-exitcode", "-input=false")
	if n := srv.Calls("getAuthInfo"); n != 0 {
		t.Errorf("a no-change plan sent %d getAuthInfo, want none: %s", n, requestList(srv.Requests()))
	}
	tf.must("destroy", "-auto-approve", "-input=false")
	if n := srv.Calls("getAuthInfo"); n != 0 {
		t.Errorf("a destroy sent %d getAuthInfo, want none", n)
	}
}

// What a plan can see fails at plan: a base_url without /v1 (with the fix), a timeout that is not
// positive, a project the credentials may not use; and a plan that leaves allow_replacement on
// without a replacement warns.
func TestAccFirstContact_planTimeChecks(t *testing.T) {
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Projects = []string{testProjectID, "tp2project0"} })
	root := strings.TrimSuffix(srv.URL, "/v1")
	provider := func(baseURL, project string) string { return providerBlockOf(baseURL, testSecretKey, project) }
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:      provider(root, testProjectID) + firstContactService,
			PlanOnly:    true,
			ExpectError: words("base_url lacks the API version /v1", fmt.Sprintf("Did you mean %q", root+"/v1")),
		},
		resource.TestStep{
			Config: providerBlock(srv) + `
resource "dbcloud_service" "fc" {
  name = "first-contact"
  timeouts {
    create = "-5m"
  }
}
`,
			PlanOnly:    true,
			ExpectError: words("timeouts.create must be a positive duration", `got "-5m"`),
		},
		resource.TestStep{
			Config:      provider(srv.URL, "wrongproj1") + firstContactService,
			PlanOnly:    true,
			ExpectError: words("project_id wrongproj1 is not one the credentials may use (projects you may use: tp1project0, tp2project0)"),
		},
	))
	if n := srv.Calls("createService"); n != 0 {
		t.Errorf("%d services created", n)
	}
}
