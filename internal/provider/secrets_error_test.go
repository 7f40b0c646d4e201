package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

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
