package provider

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
)

// Bearer tokens (issue 36) and the plan-time check of the credentials (issue 37): acceptance tests
// against an emulator that accepts the tokens of Options.BearerTokens besides the tests' key pair.

const (
	testToken    = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.dGVzdC10b2tlbi1kby1ub3QtbG9n"
	testNewToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaTIifQ.bmV3LXRva2VuLWRvLW5vdC1sb2c"
)

// newTokenEmulator starts an emulator that accepts testToken and testNewToken (and the key pair).
func newTokenEmulator(t *testing.T, mods ...func(*emulator.Options)) *emulatortest.Server {
	t.Helper()
	return newTestEmulator(t, append([]func(*emulator.Options){func(o *emulator.Options) {
		o.BearerTokens = []string{testToken, testNewToken}
	}}, mods...)...)
}

// tokenProviderBlock is the provider configuration that authenticates to srv with token only.
func tokenProviderBlock(srv *emulatortest.Server, token, projectID string) string {
	return fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  token      = %q
  project_id = %q
}
`, srv.URL, token, projectID)
}

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

// tokenStack is the same with the projects the credentials may use.
const tokenStack = newResources + `
data "dbcloud_projects" "mine" {}
`

// A stack applied, re-planned empty and destroyed with a token, dbcloud_projects included. The
// provider block carries no key: the emulator accepts the requests only by the token.
func TestAccToken_stack(t *testing.T) {
	srv := newTokenEmulator(t)
	cfg := tokenProviderBlock(srv, testToken, testProjectID) + tokenStack
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				testAccCheckVPCExists(srv, "dbcloud_vpc.net"),
				testAccCheckServiceExists(srv, "dbcloud_service.db"),
				resource.TestCheckResourceAttrPair("dbcloud_service.db", "vpc_id", "dbcloud_vpc.net", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.#", "1"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.0.id", testProjectID),
				resource.TestCheckResourceAttr("data.dbcloud_projects.mine", "projects.0.current", "true"),
			),
		},
		resource.TestStep{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
	))
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

// Both ways to authenticate at once are refused at plan, before any request: in the provider block
// (the config validators), and in the environment.
func TestAccToken_bothSchemesRefused(t *testing.T) {
	srv := newTokenEmulator(t)
	const vpc = `
resource "dbcloud_vpc" "net" {
  name        = "both"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}
`
	t.Run("provider block", func(t *testing.T) {
		resource.Test(t, testCase(t, srv, resource.TestStep{
			Config: fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  token      = %q
  access_key = %q
  secret_key = %q
  project_id = %q
}
`, srv.URL, testToken, testAccessKey, testSecretKey, testProjectID) + vpc,
			PlanOnly:    true,
			ExpectError: words("cannot be configured together", "token", "access_key"),
		}))
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv(EnvToken, testToken)
		t.Setenv(EnvAccessKey, testAccessKey)
		t.Setenv(EnvSecretKey, testSecretKey)
		resource.Test(t, testCase(t, srv, resource.TestStep{
			Config: fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  project_id = %q
}
`, srv.URL, testProjectID) + vpc,
			PlanOnly:    true,
			ExpectError: words("Two ways to authenticate", "Both DBCLOUD_TOKEN and DBCLOUD_ACCESS_KEY/DBCLOUD_SECRET_KEY are set"),
		}))
	})
	if n := srv.Calls(""); n != 0 {
		t.Errorf("%d requests reached the API: %s", n, requestList(srv.Requests()))
	}
}

// With TRACE logging on, a create and an update with a token log every API call, but never the token.
// Not parallel: it sets process-wide logging variables.
func TestAccToken_neverLogged(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	srv := newTokenEmulator(t)
	config := func(name string) string {
		return tokenProviderBlock(srv, testToken, testProjectID) + `
resource "dbcloud_service" "logged" {
  name = "` + name + `"
}
`
	}
	resource.Test(t, testCase(t, srv,
		resource.TestStep{Config: config("logged")},
		resource.TestStep{Config: config("logged-renamed")},
	))
	text := providerLogs(t, dir)
	if !strings.Contains(text, "dbcloud API request") || !strings.Contains(text, "/rename") {
		t.Fatalf("the provider's API calls were not logged (%d bytes): the test would prove nothing", len(text))
	}
	if strings.Contains(text, testToken) {
		t.Error("the token appears in the provider's logs")
	}
	if !strings.Contains(text, "Bearer ***") {
		t.Error("the requests' Authorization header is not logged masked as \"Bearer ***\"")
	}
	// The JWT's parts are not logged either (a log line cut at a dot would still leak the signature).
	if sig := testToken[strings.LastIndex(testToken, ".")+1:]; strings.Contains(text, sig) {
		t.Error("the token's signature appears in the provider's logs")
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

// requestList is the emulator's request log, one "METHOD path -> status" per request, for messages.
func requestList(reqs []emulator.Request) string {
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, fmt.Sprintf("%s %s -> %d", r.Method, r.Path, r.Status))
	}
	return "[" + strings.Join(out, ", ") + "]"
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
