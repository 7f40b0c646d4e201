# The mistake: no `source`, so Terraform and OpenTofu look for hashicorp/dbcloud.
terraform {
  required_providers {
    dbcloud = {
      version = "~> 0.2"
    }
  }
}

resource "dbcloud_vpc" "main" {
  name        = "missing-source"
  cidr        = "10.10.0.0/16"
  region_code = "us-east-1"
}
