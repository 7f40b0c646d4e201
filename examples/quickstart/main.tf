# Quick start: a VPC, a time-series + ai service attached to it with the
# connection pooler on, a read replica set, and a peering to a VPC in your own
# cloud account. `make demo` applies it against the local emulator.
#
# The provider reads its settings from the environment:
#   DBCLOUD_BASE_URL, DBCLOUD_ACCESS_KEY, DBCLOUD_SECRET_KEY, DBCLOUD_PROJECT_ID

terraform {
  required_version = ">= 1.5"

  required_providers {
    dbcloud = {
      source = "dbcloud/dbcloud"
    }
  }
}

provider "dbcloud" {}

resource "dbcloud_vpc" "main" {
  name        = "${var.name}-vpc"
  cidr        = var.vpc_cidr
  region_code = var.region
}

resource "dbcloud_service" "main" {
  name        = var.name
  addons      = ["time-series", "ai"]
  region_code = var.region

  # Change these (e.g. -var cpu_millis=2000 -var memory_gbs=8) to resize the
  # service in place.
  cpu_millis = var.cpu_millis
  memory_gbs = var.memory_gbs

  vpc_id                    = dbcloud_vpc.main.id
  connection_pooler_enabled = true
}

resource "dbcloud_read_replica_set" "reporting" {
  service_id = dbcloud_service.main.id
  name       = "${var.name}-reporting"
  nodes      = 1
  cpu_millis = 500
  memory_gbs = 2
}

resource "dbcloud_vpc_peering" "app" {
  vpc_id           = dbcloud_vpc.main.id
  peer_account_id  = var.peer_account_id
  peer_region_code = var.region
  peer_vpc_id      = var.peer_vpc_id
}
