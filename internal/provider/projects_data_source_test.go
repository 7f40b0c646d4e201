package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
)

// dbcloud_projects lists the projects of the emulator's allow-list, in its order, and marks the
// provider's own; one GET /projects per read.
func TestAccDataSourceProjects(t *testing.T) {
	const other = "op2project"
	srv := newTestEmulator(t, func(o *emulator.Options) { o.Projects = []string{other, testProjectID} })
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: providerBlock(srv) + `
data "dbcloud_projects" "all" {}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "project_id", testProjectID),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.#", "2"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.0.id", other),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.0.name", "Project "+other),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.0.current", "false"),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.1.id", testProjectID),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.1.name", "Project "+testProjectID),
				resource.TestCheckResourceAttr("data.dbcloud_projects.all", "projects.1.current", "true"),
			),
		},
		resource.TestStep{
			// Credentials the API refuses: the error names the operation and the HTTP status.
			Config: strings.Replace(providerBlock(srv), testSecretKey, "wrong-secret", 1) + `
data "dbcloud_projects" "all" {}
`,
			ExpectError: regexp.MustCompile(`(?s)Could not list projects.*list projects.*401`),
		},
	))
}
