# The configuration that `terraform query` runs in: the provider (settings from
# the DBCLOUD_* environment variables) and, once generated, the resources.
# terraform query needs Terraform 1.14 or later.
terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

provider "dbcloud" {}
