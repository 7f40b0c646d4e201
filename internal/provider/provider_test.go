package provider

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Credentials of the in-process emulator used by the acceptance tests.
const (
	testAccessKey = "test-access-key"
	testSecretKey = "test-secret-key-do-not-log"
	testProjectID = "tp1project0"
)

// testBackoff makes waits fast against the emulator's FastTiming.
var testBackoff = Backoff{First: 10 * time.Millisecond, Factor: 1.5, Max: 100 * time.Millisecond, Jitter: 0.1}

// testRetry keeps the client's retries fast in tests.
var testRetry = &api.RetryPolicy{MaxRetries: 4, WaitMin: 10 * time.Millisecond, WaitMax: 100 * time.Millisecond, MaxRetryAfter: 2 * time.Second}

// testProviderFactories serve the provider in-process to the real terraform binary.
func testProviderFactories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"dbcloud": providerserver.NewProtocol6WithError(newWithOptions("test", options{backoff: testBackoff, apiRetry: testRetry})()),
	}
}

// newTestEmulator starts an emulator with fast transitions for one test; mods can change its options.
func newTestEmulator(t *testing.T, mods ...func(*emulator.Options)) *emulator.Server {
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
	srv := emulator.NewServer(opts)
	t.Cleanup(srv.Close)
	return srv
}

// providerBlock is the provider configuration that points at srv.
func providerBlock(srv *emulator.Server) string {
	return fmt.Sprintf(`
provider "dbcloud" {
  base_url   = %q
  access_key = %q
  secret_key = %q
  project_id = %q
}
`, srv.URL, testAccessKey, testSecretKey, testProjectID)
}

// testAccPreCheck fails fast when the acceptance environment is incomplete.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Fatal("acceptance tests need TF_ACC=1 (make test sets it)")
	}
}

// testCase fills the common parts of an acceptance test case.
func testCase(t *testing.T, steps ...resource.TestStep) resource.TestCase {
	t.Helper()
	return resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps:                    steps,
	}
}

// testClient is an API client for checks that look at the emulator through the API.
func testClient(t *testing.T, srv *emulator.Server) *api.Client {
	t.Helper()
	c, err := api.New(api.Config{BaseURL: srv.URL, AccessKey: testAccessKey, SecretKey: testSecretKey, ProjectID: testProjectID, Retry: testRetry})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var _ = context.Background
