# The configuration that `terraform query` runs in: the provider (settings from
# the DBCLOUD_* environment variables) and, once generated, the resources.
terraform {
  required_version = ">= 1.14.0"
  required_providers {
    dbcloud = {
      source = "dbcloud/dbcloud"
    }
  }
}

provider "dbcloud" {}
