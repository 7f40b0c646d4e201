# Quick start: a VPC, a time-series + ai service attached to it with the
# connection pooler on, a read replica set, and a peering to a VPC in your own
# cloud account. `make demo` applies it against the local emulator (and, with
# -var fork=true, a fork of the service).
#
# Every optional part can be switched off (the outputs are null then):
#   -var in_vpc=false -var pooler=false -var read_replica=false -var fork=true
#
# The provider reads its settings from the environment:
#   DBCLOUD_BASE_URL, DBCLOUD_ACCESS_KEY, DBCLOUD_SECRET_KEY, DBCLOUD_PROJECT_ID

terraform {
  required_version = ">= 1.5"

  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

provider "dbcloud" {}

resource "dbcloud_vpc" "main" {
  count = var.in_vpc ? 1 : 0

  name        = "${var.name}-vpc"
  cidr        = var.vpc_cidr
  region_code = var.region

  # When the VPC goes away (in_vpc = false), Terraform first detaches the service
  # (an in-place update) and only then deletes the VPC, which the API refuses
  # while a service is attached.
  lifecycle {
    create_before_destroy = true
  }
}

resource "dbcloud_service" "main" {
  name        = var.name
  addons      = ["time-series", "ai"]
  region_code = var.region

  # Change these (e.g. -var cpu_millis=2000 -var memory_gbs=8) to resize the
  # service in place.
  cpu_millis = var.cpu_millis
  memory_gbs = var.memory_gbs

  vpc_id                    = var.in_vpc ? dbcloud_vpc.main[0].id : null
  connection_pooler_enabled = var.pooler
}

resource "dbcloud_read_replica_set" "reporting" {
  count = var.read_replica ? 1 : 0

  service_id = dbcloud_service.main.id
  name       = "${var.name}-reporting"
  nodes      = 1
  cpu_millis = 500
  memory_gbs = 2
}

resource "dbcloud_vpc_peering" "app" {
  count = var.in_vpc ? 1 : 0

  vpc_id           = dbcloud_vpc.main[0].id
  peer_account_id  = var.peer_account_id
  peer_region_code = var.region
  peer_vpc_id      = var.peer_vpc_id
}

# A copy of the service's data as it is now, as a service of its own.
resource "dbcloud_service" "fork" {
  count = var.fork ? 1 : 0

  name = "${var.name}-fork"

  fork {
    source_service_id = dbcloud_service.main.id
    strategy          = "NOW"
  }
}
