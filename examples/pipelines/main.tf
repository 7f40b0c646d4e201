# The configuration the example pipeline manages (examples/pipelines). Every
# provider setting comes from the environment (DBCLOUD_BASE_URL,
# DBCLOUD_ACCESS_KEY, DBCLOUD_SECRET_KEY, DBCLOUD_PROJECT_ID), so nothing
# secret is written here and the same files run in every pipeline stage.

terraform {
  required_version = ">= 1.5"
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

provider "dbcloud" {
  # Set in the pipeline's environment; `user_agent` tells its requests apart
  # in the API's logs (also DBCLOUD_USER_AGENT).
  user_agent = "orders-pipeline"
}

resource "dbcloud_service" "orders" {
  name                      = "orders"
  addons                    = ["time-series"]
  cpu_millis                = 1000
  memory_gbs                = 4
  environment               = "PROD"
  connection_pooler_enabled = true

  # A production database: any plan that would destroy or replace it fails.
  deletion_protection = true
}

output "orders_id" {
  value = dbcloud_service.orders.id
}

output "orders_connection_uri" {
  value = dbcloud_service.orders.connection_uri
}
