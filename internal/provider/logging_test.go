package provider

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

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
