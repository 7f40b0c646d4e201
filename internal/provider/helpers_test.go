package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/emulatortest"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/wait"
)

// Shared helpers of the acceptance tests: the emulator and provider set-up, the Exists / Destroyed /
// Disappears checks of every resource, and small checks used by several test files.

// Credentials of the in-process emulator used by the acceptance tests.
const (
	testAccessKey = "test-access-key"
	testSecretKey = "test-secret-key-do-not-log"
	testProjectID = "tp1project0"
)

// testBackoff makes waits fast against the emulator's FastTiming.
var testBackoff = wait.Backoff{First: 10 * time.Millisecond, Factor: 1.5, Max: 100 * time.Millisecond, Jitter: 0.1}

// testRetry keeps the client's retries fast in tests.
var testRetry = &api.RetryPolicy{MaxRetries: 4, WaitMin: 10 * time.Millisecond, WaitMax: 100 * time.Millisecond, MaxRetryAfter: 2 * time.Second}

// testProviderFactories serve the provider in-process to the real terraform binary.
func testProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"dbcloud": testProviderServer,
	}
}

// testProviderServer is the framework's protocol server for the provider, as main.go serves it,
// with the tests' fast backoff and retries.
func testProviderServer() (tfprotov6.ProviderServer, error) {
	return providerserver.NewProtocol6WithError(newWithOptions("test", options{backoff: testBackoff, apiRetry: testRetry})())()
}

// newTestEmulator starts an emulator with fast transitions for one test; mods can change its options.
func newTestEmulator(t *testing.T, mods ...func(*emulator.Options)) *emulatortest.Server {
	t.Helper()
	opts := emulator.Options{
		AccessKey: testAccessKey,
		SecretKey: testSecretKey,
		Projects:  []string{testProjectID},
		Timing:    emulator.FastTiming(),
	}
	for _, m := range mods {
		m(&opts)
	}
	srv := emulatortest.NewServer(opts)
	t.Cleanup(srv.Close)
	return srv
}

// providerBlock is the provider configuration that points at srv.
func providerBlock(srv *emulatortest.Server) string {
	return providerBlockAt(srv.URL, testSecretKey)
}

// providerBlockAt is the provider configuration of the tests' project and access key with the API at
// baseURL (a proxy in front of the emulator: its URL + emulator.BasePath) and the secret key secretKey.
func providerBlockAt(baseURL, secretKey string) string {
	return providerBlockOf(baseURL, secretKey, testProjectID)
}

// providerBlockOf is the provider configuration of the tests' access key with the API at baseURL, the
// secret key secretKey and the project project.
func providerBlockOf(baseURL, secretKey, project string) string {
	return fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  access_key = %q
  secret_key = %q
  project_id = %q
}
`, baseURL, testAccessKey, secretKey, project)
}

// testAccPreCheck skips an acceptance test when TF_ACC is not set (`make unit`).
func testAccPreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		// As resource.Test does: `make unit` runs go test without TF_ACC, and the tests that drive
		// terraform themselves call this first.
		t.Skip("acceptance test: set TF_ACC=1 to run it (make test sets it)")
	}
}

// testCase fills the common parts of an acceptance test case, CheckDestroy included: after the test,
// no object of the state exists in srv any more.
func testCase(t *testing.T, srv *emulatortest.Server, steps ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testProviderFactories(),
		CheckDestroy:             testAccCheckDestroyed(srv),
		Steps:                    steps,
	}
}

// testClient is an API client for checks that look at the emulator through the API.
func testClient(t *testing.T, srv *emulatortest.Server) *api.Client {
	t.Helper()
	c, err := api.New(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID, Retry: testRetry})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ---- Exists / Destroyed / Disappears checks ----

// testAccKind says how the checks find and remove the objects of one resource type in the emulator,
// from the object's state attributes.
type testAccKind struct {
	typ    string
	exists func(srv *emulatortest.Server, a map[string]string) bool
	remove func(srv *emulatortest.Server, a map[string]string) bool
}

var (
	testAccService = testAccKind{"dbcloud_service",
		func(srv *emulatortest.Server, a map[string]string) bool {
			svc, ok := srv.Service(testProjectID, a["id"])
			return ok && !serviceIsGone(&svc)
		},
		func(srv *emulatortest.Server, a map[string]string) bool {
			return srv.RemoveService(testProjectID, a["id"])
		}}
	testAccReadReplicaSet = testAccKind{"dbcloud_read_replica_set",
		func(srv *emulatortest.Server, a map[string]string) bool {
			_, ok := srv.ReplicaSet(testProjectID, a["service_id"], a["id"])
			return ok
		},
		func(srv *emulatortest.Server, a map[string]string) bool {
			return srv.RemoveReplicaSet(testProjectID, a["service_id"], a["id"])
		}}
	testAccVPC = testAccKind{"dbcloud_vpc",
		func(srv *emulatortest.Server, a map[string]string) bool {
			_, ok := srv.VPC(testProjectID, a["id"])
			return ok
		},
		func(srv *emulatortest.Server, a map[string]string) bool { return srv.RemoveVPC(testProjectID, a["id"]) }}
	testAccVPCPeering = testAccKind{"dbcloud_vpc_peering",
		func(srv *emulatortest.Server, a map[string]string) bool {
			_, ok := srv.Peering(testProjectID, a["vpc_id"], a["id"])
			return ok
		},
		func(srv *emulatortest.Server, a map[string]string) bool {
			return srv.RemovePeering(testProjectID, a["vpc_id"], a["id"])
		}}
)

// exists checks that the object addr names exists in the emulator.
func (k testAccKind) checkExists(srv *emulatortest.Server, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := testAccAttrs(s, addr)
		if err != nil {
			return err
		}
		if !k.exists(srv, a) {
			return fmt.Errorf("%s: %s %s does not exist in the emulator", addr, k.typ, a["id"])
		}
		return nil
	}
}

// destroyed checks that no object of this type in the state exists any more.
func (k testAccKind) checkDestroyed(srv *emulatortest.Server) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if s == nil || s.RootModule() == nil {
			return nil
		}
		for addr, rs := range s.RootModule().Resources {
			if rs.Type == k.typ && !strings.HasPrefix(addr, "data.") && rs.Primary != nil && k.exists(srv, rs.Primary.Attributes) {
				return fmt.Errorf("%s: %s %s still exists", addr, k.typ, rs.Primary.ID)
			}
		}
		return nil
	}
}

// disappears deletes the object addr names behind Terraform's back.
func (k testAccKind) checkDisappears(srv *emulatortest.Server, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a, err := testAccAttrs(s, addr)
		if err != nil {
			return err
		}
		if !k.remove(srv, a) {
			return fmt.Errorf("%s: %s %s was not in the emulator", addr, k.typ, a["id"])
		}
		return nil
	}
}

// The checks of each resource, by name.
var (
	testAccCheckServiceExists     = testAccService.checkExists
	testAccCheckServiceDestroyed  = testAccService.checkDestroyed
	testAccCheckServiceDisappears = testAccService.checkDisappears

	testAccCheckReadReplicaSetExists     = testAccReadReplicaSet.checkExists
	testAccCheckReadReplicaSetDestroyed  = testAccReadReplicaSet.checkDestroyed
	testAccCheckReadReplicaSetDisappears = testAccReadReplicaSet.checkDisappears

	testAccCheckVPCExists     = testAccVPC.checkExists
	testAccCheckVPCDestroyed  = testAccVPC.checkDestroyed
	testAccCheckVPCDisappears = testAccVPC.checkDisappears

	testAccCheckVPCPeeringExists     = testAccVPCPeering.checkExists
	testAccCheckVPCPeeringDestroyed  = testAccVPCPeering.checkDestroyed
	testAccCheckVPCPeeringDisappears = testAccVPCPeering.checkDisappears
)

// testAccCheckDestroyed is the CheckDestroy of every test case: no object of any dbcloud resource in
// the last state exists any more.
func testAccCheckDestroyed(srv *emulatortest.Server) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		testAccCheckServiceDestroyed(srv),
		testAccCheckReadReplicaSetDestroyed(srv),
		testAccCheckVPCDestroyed(srv),
		testAccCheckVPCPeeringDestroyed(srv),
	)
}

// testAccAttrs are the attributes of the resource addr in the state.
func testAccAttrs(s *terraform.State, addr string) (map[string]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok || rs.Primary == nil {
		return nil, fmt.Errorf("%s not in state", addr)
	}
	return rs.Primary.Attributes, nil
}

// ---- shared checks and plan checks ----

// svcErrRe matches text in a Terraform error whatever the line wrapping: every space matches any run of
// white space. The text is quoted, so it is literal otherwise.
func svcErrRe(text string) *regexp.Regexp {
	parts := strings.Fields(text)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\s+`))
}

// svcCaptureID stores the id of a resource in state.
func svcCaptureID(addr string, dst *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		*dst = rs.Primary.ID
		return nil
	}
}

// svcSameID asserts that a resource still has the id captured earlier (updated in place).
func svcSameID(addr string, want *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		if rs.Primary.ID != *want {
			return fmt.Errorf("%s: id changed from %s to %s: the service was replaced, not updated", addr, *want, rs.Primary.ID)
		}
		return nil
	}
}

// svcNewID asserts that a resource has a new id (replaced) and records it.
func svcNewID(addr string, prev *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		if rs.Primary.ID == *prev {
			return fmt.Errorf("%s: id is still %s: the service was not replaced", addr, *prev)
		}
		*prev = rs.Primary.ID
		return nil
	}
}

// svcInEmulator runs fn on the emulator's view of the service whose id is in *id.
func svcInEmulator(srv *emulatortest.Server, id *string, fn func(api.Service) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		svc, ok := srv.Service(testProjectID, *id)
		if !ok {
			return fmt.Errorf("service %s does not exist in the emulator", *id)
		}
		return fn(svc)
	}
}

// svcEmuSize is the size of an emulator service.
func svcEmuSize(svc api.Service) (int, int) {
	if svc.Resources == nil || len(*svc.Resources) == 0 || (*svc.Resources)[0].Spec == nil {
		return -1, -1
	}
	spec := (*svc.Resources)[0].Spec
	return deref(spec.CPUMillis), deref(spec.MemoryGbs)
}

// svcExpectPriorID is a plan check: the planned change of addr starts from the object with id *id.
type svcExpectPriorID struct {
	addr string
	id   *string
}

func (e svcExpectPriorID) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		if got, _ := before["id"].(string); got != *e.id {
			resp.Error = fmt.Errorf("%s: the plan starts from id %q, want %q", e.addr, got, *e.id)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", e.addr)
}

// svcTestVPC creates a VPC through the API (independent of the dbcloud_vpc resource).
func svcTestVPC(t *testing.T, srv *emulatortest.Server, name, cidr, region string) string {
	t.Helper()
	v, err := testClient(t, srv).CreateVPC(context.Background(), api.VPCCreate{Name: name, Cidr: cidr, RegionCode: region})
	if err != nil {
		t.Fatalf("creating VPC %s: %v", name, err)
	}
	return deref(v.ID)
}

// svcEmptyPlan asserts that a second plan is empty.
var svcEmptyPlan = resource.ConfigPlanChecks{
	PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
}

func svcPlanChecks(pre ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             pre,
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

func svcAttr(name string) tfjsonpath.Path { return tfjsonpath.New(name) }

// netTestService creates a service directly through the API and waits until it is READY, so that the
// replica set tests do not depend on dbcloud_service.
func netTestService(t *testing.T, srv *emulatortest.Server, name string) string {
	t.Helper()
	svc, err := testClient(t, srv).CreateService(context.Background(), api.ServiceCreate{Name: name})
	if err != nil {
		t.Fatalf("creating service %q: %v", name, err)
	}
	id := deref(svc.ServiceID)
	netTestWaitService(t, srv, id, api.READY)
	return id
}

// netTestWaitService waits until the emulator shows the service in status want.
func netTestWaitService(t *testing.T, srv *emulatortest.Server, id string, want api.ServiceStatus) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		svc, ok := srv.Service(testProjectID, id)
		if ok && deref(svc.Status) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("service %s did not become %s (found %v, status %s)", id, want, ok, deref(svc.Status))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveServices are the project's services in the emulator that are not DELETED. A destroy returns
// once the service reads DELETED, and the emulator keeps that record for Timing.ServiceDeleted more
// (so that clients can see the status): counting srv.Services right after a destroy counts it on a
// busy machine. "No service is left" means no live service.
func liveServices(srv *emulatortest.Server) []api.Service {
	return notDeleted(srv.Services(testProjectID))
}

// notDeleted drops the services whose status is DELETED (as the API's list shows them for a while).
func notDeleted(svcs []api.Service) []api.Service {
	var out []api.Service
	for _, s := range svcs {
		if s.Status == nil || *s.Status != api.DELETED {
			out = append(out, s)
		}
	}
	return out
}

// waitUntil polls cond every 10ms until it holds or d has passed, and reports whether it held: for
// tests that must wait for a state (a poll of the provider, a status) instead of sleeping a fixed
// time that a busy machine may overrun.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// netTestAttr reads an attribute of a resource from the state (in a Check).
func netTestAttr(s *terraform.State, addr, attr string) (string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return "", fmt.Errorf("%s is not in the state", addr)
	}
	v, ok := rs.Primary.Attributes[attr]
	if !ok {
		return "", fmt.Errorf("%s has no attribute %s", addr, attr)
	}
	return v, nil
}

// netTestCapture stores an attribute of a resource into *dst (in a Check).
func netTestCapture(addr, attr string, dst *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		v, err := netTestAttr(s, addr, attr)
		*dst = v
		return err
	}
}

// netTestImportID builds a two-part import id from two attributes of a resource.
func netTestImportID(addr, first, second string) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		a, err := netTestAttr(s, addr, first)
		if err != nil {
			return "", err
		}
		b, err := netTestAttr(s, addr, second)
		return a + "/" + b, err
	}
}

// netTestCalls checks how many requests of an operation the emulator received.
func netTestCalls(srv *emulatortest.Server, operationID string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := srv.Calls(operationID); got != want {
			return fmt.Errorf("%s was called %d times, want %d", operationID, got, want)
		}
		return nil
	}
}

// words matches the phrases in order, whatever whitespace (Terraform wraps diagnostics) lies between
// the words of a phrase, and anything between the phrases.
func words(phrases ...string) *regexp.Regexp {
	res := make([]string, 0, len(phrases))
	for _, phrase := range phrases {
		parts := strings.Fields(phrase)
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		res = append(res, strings.Join(parts, `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(res, `.*`))
}

// emptyPlanAfterApply is the check every apply step makes: a second plan shows nothing to do.
func emptyPlanAfterApply(pre ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             pre,
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// needsWriteOnly skips a test case that sets write-only arguments (password_wo) on a CLI that has none:
// Terraform and OpenTofu before 1.11 refuse any configuration that sets one.
func needsWriteOnly(tc resource.TestCase) resource.TestCase {
	tc.TerraformVersionChecks = append(tc.TerraformVersionChecks, tfversion.SkipBelow(tfversion.Version1_11_0))
	return tc
}

// proxyProviderBlock is the provider configuration with the API behind the proxy at url.
func proxyProviderBlock(url string) string {
	return providerBlockAt(url+emulator.BasePath, testSecretKey)
}

// svcCalls checks how often the emulator saw an operation.
func svcCalls(srv *emulatortest.Server, operationID string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := srv.Calls(operationID); got != want {
			return fmt.Errorf("emulator saw %d %s calls, want %d", got, operationID, want)
		}
		return nil
	}
}

// svcEmuStatus checks the service's status in the emulator.
func svcEmuStatus(srv *emulatortest.Server, id *string, want api.ServiceStatus) resource.TestCheckFunc {
	return svcInEmulator(srv, id, func(s api.Service) error {
		if deref(s.Status) != want {
			return fmt.Errorf("emulator status %s, want %s", deref(s.Status), want)
		}
		return nil
	})
}

// svcCompareSame is compare.ValuesSame without importing a second package name into the file.
type svcCompareSame struct{}

func (svcCompareSame) CompareValues(values ...any) error {
	for i := 1; i < len(values); i++ {
		if fmt.Sprint(values[i]) != fmt.Sprint(values[0]) {
			return fmt.Errorf("expected values to be the same: %v != %v", values[0], values[i])
		}
	}
	return nil
}

// Bearer tokens (issue 36): the tests of tokens run against an emulator that accepts the tokens of
// Options.BearerTokens besides the tests' key pair.
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

// requestList is the emulator's request log, one "METHOD path -> status" per request, for messages.
func requestList(reqs []emulator.Request) string {
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, fmt.Sprintf("%s %s -> %d", r.Method, r.Path, r.Status))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// newTFWorkdirOnAccCLI is newTFWorkdir on the acceptance tests' CLI (TF_ACC_TERRAFORM_PATH, else
// terraform on PATH), with the provider at the address that CLI gives dbcloud/dbcloud.
func newTFWorkdirOnAccCLI(t *testing.T, srv *emulatortest.Server, resources string) *tfWorkdir {
	t.Helper()
	opts := tfOptions{perCommand: true}
	if acceptanceCLIIsOpenTofu(t) {
		opts.addr = "registry.opentofu.org/dbcloud/dbcloud"
	}
	w := newTF(t, opts)
	w.srv = srv
	w.write(resources)
	w.must("init", "-input=false")
	return w
}
