# Connecting to a service: the connection strings of dbcloud_service and
# dbcloud_read_replica_set, the password added with provider::dbcloud::with_password,
# handed to the postgresql provider and to an application's secret.

terraform {
  required_version = ">= 1.11" # password_wo

  required_providers {
    dbcloud = {
      source = "dbcloud/dbcloud"
    }
  }
}

variable "db_password" {
  description = "The service's password (for example from your secret store); never stored in state."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "dbcloud_service" "app" {
  name                      = "app-db"
  connection_pooler_enabled = true
  password_wo               = var.db_password
  password_wo_version       = 1
}

resource "dbcloud_read_replica_set" "reporting" {
  service_id = dbcloud_service.app.id
  name       = "reporting"
  cpu_millis = 500
  memory_gbs = 2
}

# No password in these: safe to show, log and pass around.
output "primary_uri" {
  value = dbcloud_service.app.connection_uri
}

output "pooler_uri" {
  value = dbcloud_service.app.pooler_connection_uri
}

output "reporting_uri" {
  value = dbcloud_read_replica_set.reporting.connection_uri
}
