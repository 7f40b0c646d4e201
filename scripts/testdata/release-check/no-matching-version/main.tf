# The mistake: a constraint that no 0.x release satisfies.
terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 1.0"
    }
  }
}

resource "dbcloud_vpc" "main" {
  name        = "no-matching-version"
  cidr        = "10.10.0.0/16"
  region_code = "us-east-1"
}
