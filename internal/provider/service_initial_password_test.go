package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// initial_password is kept only while it is the service's password: a service created with
// password_wo (or password) has none in state, and a service whose password the configuration
// sets later loses it in the same apply; the plans after that are empty.
func TestAccService_initialPasswordGoneOncePasswordSet(t *testing.T) {
	srv := newTestEmulator(t)
	base := providerBlock(srv) + `
variable "pw" {
  type      = string
  ephemeral = true
  default   = "chosen-Pw/1"
}
`
	withWO := `
resource "dbcloud_service" "wo" {
  name                = "wo"
  password_wo         = var.pw
  password_wo_version = 1
}
`
	initial := func(addr string, check knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(addr, svcAttr("initial_password"), check)
	}
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name = "later"
}
`,
			ConfigPlanChecks: svcEmptyPlan,
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.NotNull()),
			},
		},
		resource.TestStep{
			// The password of "later" is now Terraform's: its initial_password goes, with no other change.
			Config: base + withWO + `
resource "dbcloud_service" "later" {
  name     = "later"
  password = "chosen-Pw/2"
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("dbcloud_service.later", plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				initial("dbcloud_service.wo", knownvalue.Null()),
				initial("dbcloud_service.later", knownvalue.Null()),
			},
		},
	))
}
