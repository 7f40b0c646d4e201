package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// dbcloud_vpc (by id and by name, with the not-found and ambiguous-name errors), dbcloud_vpcs,
// dbcloud_vpc_peering and dbcloud_vpc_peerings.
func TestAccDataSourceVPC_all(t *testing.T) {
	srv := newTestEmulator(t)
	c := testClient(t, srv)
	var dupIDs []string
	for _, cidr := range []string{"10.10.0.0/16", "10.11.0.0/16"} {
		v, err := c.CreateVPC(context.Background(), api.VPCCreate{Name: "twin", Cidr: cidr, RegionCode: "eu-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		dupIDs = append(dupIDs, deref(v.ID))
	}

	resources := providerBlock(srv) + `
resource "dbcloud_vpc" "a" {
  name        = "alpha"
  cidr        = "10.20.0.0/16"
  region_code = "us-east-1"
}

resource "dbcloud_vpc_peering" "a" {
  vpc_id           = dbcloud_vpc.a.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-data"
}
`
	withData := resources + `
data "dbcloud_vpc" "by_id" {
  id = dbcloud_vpc.a.id
}

data "dbcloud_vpc" "by_name" {
  name       = "alpha"
  depends_on = [dbcloud_vpc.a]
}

data "dbcloud_vpcs" "all" {
  depends_on = [dbcloud_vpc.a]
}

data "dbcloud_vpc_peering" "a" {
  vpc_id = dbcloud_vpc.a.id
  id     = dbcloud_vpc_peering.a.id
}

data "dbcloud_vpc_peerings" "a" {
  vpc_id     = dbcloud_vpc.a.id
  depends_on = [dbcloud_vpc_peering.a]
}
`
	resource.ParallelTest(t, testCase(t, srv,
		resource.TestStep{
			Config:           withData,
			ConfigPlanChecks: emptyPlanAfterApply(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPair("data.dbcloud_vpc.by_id", "id", "dbcloud_vpc.a", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc.by_id", "name", "alpha"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc.by_id", "cidr", "10.20.0.0/16"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc.by_id", "region_code", "us-east-1"),
				resource.TestCheckResourceAttrPair("data.dbcloud_vpc.by_name", "id", "dbcloud_vpc.a", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc.by_name", "cidr", "10.20.0.0/16"),

				resource.TestCheckResourceAttr("data.dbcloud_vpcs.all", "vpcs.#", "3"),
				resource.TestCheckTypeSetElemNestedAttrs("data.dbcloud_vpcs.all", "vpcs.*", map[string]string{
					"id": dupIDs[0], "name": "twin", "cidr": "10.10.0.0/16", "region_code": "eu-west-1",
				}),
				resource.TestCheckTypeSetElemNestedAttrs("data.dbcloud_vpcs.all", "vpcs.*", map[string]string{
					"name": "alpha", "cidr": "10.20.0.0/16", "region_code": "us-east-1",
				}),

				resource.TestCheckResourceAttrPair("data.dbcloud_vpc_peering.a", "id", "dbcloud_vpc_peering.a", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc_peering.a", "peer_account_id", "123456789012"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc_peering.a", "peer_region_code", "us-east-1"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc_peering.a", "peer_vpc_id", "vpc-data"),
				resource.TestMatchResourceAttr("data.dbcloud_vpc_peering.a", "provisioned_id", regexp.MustCompile(`^pcx-`)),
				resource.TestCheckResourceAttrSet("data.dbcloud_vpc_peering.a", "status"),

				resource.TestCheckResourceAttr("data.dbcloud_vpc_peerings.a", "peerings.#", "1"),
				resource.TestCheckResourceAttrPair("data.dbcloud_vpc_peerings.a", "peerings.0.id", "dbcloud_vpc_peering.a", "id"),
				resource.TestCheckResourceAttrPair("data.dbcloud_vpc_peerings.a", "peerings.0.vpc_id", "dbcloud_vpc.a", "id"),
				resource.TestCheckResourceAttr("data.dbcloud_vpc_peerings.a", "peerings.0.peer_vpc_id", "vpc-data"),
				resource.TestMatchResourceAttr("data.dbcloud_vpc_peerings.a", "peerings.0.provisioned_id", regexp.MustCompile(`^pcx-`)),
			),
		},
		// A name that matches no VPC.
		resource.TestStep{
			Config:      resources + `data "dbcloud_vpc" "x" { name = "nope" }`,
			ExpectError: words(`no VPC named "nope"`),
		},
		// A name that matches several VPCs: the error lists their ids.
		resource.TestStep{
			Config:      resources + `data "dbcloud_vpc" "x" { name = "twin" }`,
			ExpectError: words(`Several VPCs have this name`, `2 VPCs are named "twin": `+dupIDs[0]+`, `+dupIDs[1], `by id`),
		},
		// An id that matches no VPC.
		resource.TestStep{
			Config:      resources + `data "dbcloud_vpc" "x" { id = "1" }`,
			ExpectError: words(`VPC not found`, `no VPC with id 1`),
		},
		// Exactly one of id and name.
		resource.TestStep{
			Config:      resources + `data "dbcloud_vpc" "x" {}`,
			ExpectError: words(`Exactly one of these attributes must be configured: [id,name]`),
		},
		resource.TestStep{
			Config:      resources + "data \"dbcloud_vpc\" \"x\" {\n  id   = \"1\"\n  name = \"alpha\"\n}\n",
			ExpectError: words(`Invalid Attribute Combination`, `[id,name]`),
		},
		// A peering that does not exist; a VPC whose peerings cannot be listed because it does not exist.
		resource.TestStep{
			Config:      resources + fmt.Sprintf("data \"dbcloud_vpc_peering\" \"x\" {\n  vpc_id = %q\n  id     = \"1\"\n}\n", dupIDs[0]),
			ExpectError: words(`VPC peering not found`, `no peering 1 of VPC `+dupIDs[0]),
		},
		resource.TestStep{
			Config:      resources + `data "dbcloud_vpc_peerings" "x" { vpc_id = "1" }`,
			ExpectError: words(`VPC not found`, `no VPC 1`),
		},
		// Back to a configuration without errors, so that the final destroy can plan.
		resource.TestStep{
			Config:   resources,
			PlanOnly: true,
		},
	))
}
