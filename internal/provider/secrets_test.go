package provider

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// Secrets through whole runs: with TRACE logging on, no key, token or password is in the logs, and an
// API error that echoes a password reaches the diagnostic masked. The masking is the client's
// (internal/api: transport.go, its secrets_test.go and logging_test.go) and Configure's (provider.go);
// these tests hold it for every path a run takes.

// With TRACE logging on, a create with a password and an update of it log every API call, but neither
// the secret key, nor the Basic auth header value, nor the passwords, nor the initial password.
// Not parallel: it sets process-wide logging variables.
func TestAccLogging_secretsNeverLogged(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	srv := newTestEmulator(t)
	const pw1, pw2 = "first-Passw0rd-secret", "second-Passw0rd-secret"
	config := func(pw string) string {
		return providerBlock(srv) + `
resource "dbcloud_service" "logged" {
  name     = "logged"
  password = "` + pw + `"
}
`
	}
	var initialPassword string
	resource.Test(t, testCase(t, srv,
		resource.TestStep{
			Config: config(pw1),
			Check: func(s *terraform.State) error {
				// The create's answer carried it (the state does not keep it: the password is set).
				for _, p := range srv.Snapshot().Projects {
					for _, svc := range p.Services {
						initialPassword = svc.InitialPassword
					}
				}
				return nil
			},
		},
		resource.TestStep{Config: config(pw2)},
	))

	// The log holds the provider's entries (module "dbcloud", the framework's "sdk.framework" and
	// "sdk.proto") and the test harness's own, which providerLogs leaves out.
	text := providerLogs(t, dir)
	if !strings.Contains(text, "dbcloud API request") || !strings.Contains(text, "/updatePassword") {
		t.Fatalf("the provider's API calls were not logged (%d bytes): the test would prove nothing", len(text))
	}
	if initialPassword == "" {
		t.Fatal("the emulator made no initial_password: the test would prove nothing about it")
	}
	auth := base64.StdEncoding.EncodeToString([]byte(testAccessKey + ":" + testSecretKey))
	for name, secret := range map[string]string{
		"secret key": testSecretKey, "Basic auth value": auth, "password": pw1, "new password": pw2, "initial password": initialPassword,
	} {
		if strings.Contains(text, secret) {
			t.Errorf("the %s appears in the provider's logs", name)
		}
	}
}

// entryStart matches the first line of a log entry: "2026-01-02T15:04:05.000Z [DEBUG] module: ...".
var entryStart = regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+[-+Z0-9:]* \[[A-Z]+\] `)

// providerLogs is the text of the TF_LOG_PATH_MASK files in dir without the test harness's entries
// ("sdk.helper_resource", which echo the test's configuration, secrets included, as any test harness
// would): the provider's, the framework's and Terraform's.
func providerLogs(t *testing.T, dir string) string {
	t.Helper()
	var logs strings.Builder
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		harness := false
		for _, line := range strings.Split(string(b), "\n") {
			if entryStart.MatchString(line) {
				harness = strings.Contains(line, "] sdk.helper_resource:")
			}
			if !harness {
				logs.WriteString(line + "\n")
			}
		}
	}
	return logs.String()
}

// Issue 11, point 7: an API error that echoes the request body (here the new password) reaches the
// diagnostic masked; neither the password nor the provider's keys appear in it.
func TestAccSecretsInErrors_echoedPasswordIsMasked(t *testing.T) {
	srv := newTestEmulator(t)
	const (
		firstPassword  = "First-Echo-Passw0rd"
		secondPassword = "Second-Echo-Passw0rd"
	)
	config := func(password string) string {
		return providerBlock(srv) + fmt.Sprintf(`
resource "dbcloud_service" "db" {
  name     = "echo-db"
  password = %q
}
`, password)
	}
	var diagnostic string
	tc := testCase(t, srv,
		resource.TestStep{Config: config(firstPassword)},
		resource.TestStep{
			PreConfig: func() { srv.InjectFault("updatePassword", emulator.FaultEchoBody, 1) },
			Config:    config(secondPassword),
			// No ExpectError: the whole error goes through ErrorCheck below, which looks at all of it.
		},
	)
	tc.ErrorCheck = func(err error) error {
		diagnostic = err.Error()
		return nil
	}
	resource.Test(t, tc)

	if srv.Calls("updatePassword") < 2 {
		t.Fatalf("the echoing fault was not met (%d password updates)", srv.Calls("updatePassword"))
	}
	if diagnostic == "" {
		t.Fatal("the failed password update gave no error")
	}
	t.Logf("diagnostic: %s", diagnostic)
	for name, secret := range map[string]string{
		"the new password": secondPassword, "the old password": firstPassword,
		"the access key": testAccessKey, "the secret key": testSecretKey,
	} {
		if strings.Contains(diagnostic, secret) {
			t.Errorf("the diagnostic carries %s", name)
		}
	}
	if strings.Count(diagnostic, `{"password":"***"}`) < 2 {
		t.Errorf("the diagnostic does not show the echoed body (message and details) masked")
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
