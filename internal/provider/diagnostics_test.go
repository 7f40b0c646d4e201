package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

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
