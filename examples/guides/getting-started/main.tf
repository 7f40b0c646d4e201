terraform {
  required_version = ">= 1.5"

  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

# Settings come from DBCLOUD_BASE_URL, DBCLOUD_PROJECT_ID, DBCLOUD_ACCESS_KEY
# and DBCLOUD_SECRET_KEY.
provider "dbcloud" {}

resource "dbcloud_service" "first" {
  name        = "my-first-service"
  addons      = ["time-series"]
  region_code = "us-east-1"
  cpu_millis  = 1000
  memory_gbs  = 4
}

# postgresql://tsdbadmin@<host>:<port>/tsdb?sslmode=require: user and database
# are the same on every service; the password is not in it.
output "connection_uri" {
  value = dbcloud_service.first.connection_uri
}

output "host" {
  value = dbcloud_service.first.hostname
}

output "port" {
  value = dbcloud_service.first.port
}

output "status" {
  value = dbcloud_service.first.status
}

output "password" {
  value     = dbcloud_service.first.initial_password
  sensitive = true
}
