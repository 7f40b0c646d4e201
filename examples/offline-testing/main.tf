# A small module to test offline: a database service for an application, and
# (optionally) a migration run against it once it is READY. Its tests are in
# tests/*.tftest.hcl; `terraform test` runs them against the dbcloud API
# emulator (see the "Testing your modules offline" guide).

terraform {
  required_version = ">= 1.8" # provider-defined functions

  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

variable "name" {
  description = "Name of the application; the service is named after it."
  type        = string
  default     = "app"

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{1,40}$", var.name))
    error_message = "name must be lower-case letters, digits and dashes, starting with a letter."
  }
}

variable "pooler" {
  description = "Turn the connection pooler on."
  type        = bool
  default     = false
}

variable "migration_command" {
  description = <<-EOT
    Command run in this module's directory once the service is READY, to create the
    application's schema. It gets the connection as the real service hands it out:
    DATABASE_URL (the service's connection_uri with the password, for applications),
    and PGHOST, PGPORT, PGUSER (tsdbadmin), PGDATABASE (tsdb), PGSSLMODE (require) and
    PGPASSWORD, so psql needs no arguments: for example
    "psql -v ON_ERROR_STOP=1 -f schema.sql". Empty: no migration.
  EOT
  type        = string
  default     = ""
}

resource "dbcloud_service" "db" {
  name                      = "${var.name}-db"
  cpu_millis                = 500
  memory_gbs                = 2
  connection_pooler_enabled = var.pooler
}

# Uses the service: runs the migration with the initial password, as tsdbadmin to
# database tsdb over TLS (what the real service and the emulator both accept).
resource "terraform_data" "migration" {
  count = var.migration_command == "" ? 0 : 1

  triggers_replace = [dbcloud_service.db.id]

  provisioner "local-exec" {
    command     = var.migration_command
    working_dir = path.module
    environment = {
      DATABASE_URL = provider::dbcloud::with_password(dbcloud_service.db.connection_uri, dbcloud_service.db.initial_password)
      PGHOST       = dbcloud_service.db.hostname
      PGPORT       = tostring(dbcloud_service.db.port)
      PGUSER       = "tsdbadmin"
      PGDATABASE   = "tsdb"
      PGSSLMODE    = "require"
      PGPASSWORD   = dbcloud_service.db.initial_password
    }
  }
}

output "service_id" {
  value = dbcloud_service.db.id
}

output "endpoint" {
  value = "${dbcloud_service.db.hostname}:${dbcloud_service.db.port}"
}

output "connection_uri" {
  description = "postgresql://tsdbadmin@host:port/tsdb?sslmode=require (no password)."
  value       = dbcloud_service.db.connection_uri
}

output "pooler_endpoint" {
  description = "Null while the pooler is off."
  value = (dbcloud_service.db.pooler_hostname == null ? null :
  "${dbcloud_service.db.pooler_hostname}:${dbcloud_service.db.pooler_port}")
}

output "migrated" {
  description = "Whether a migration ran."
  value       = length(terraform_data.migration) > 0
}
