# Short-lived logins, made for this run and dropped at its end (they expire after
# ttl anyway). Their passwords exist only while Terraform runs.

variable "migration_command" {
  description = "Run with the migration login's connection string in DATABASE_URL."
  type        = string
  default     = "psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -q -f schema.sql"
}

variable "report_command" {
  description = "Run with the read-only login's connection string in DATABASE_URL."
  type        = string
  default     = "psql \"$DATABASE_URL\" -tAc 'SELECT count(*) FROM items'"
}

# The migration: a member of app, for 15 minutes.
ephemeral "dbcloud_service_credentials" "migrate" {
  service_id     = dbcloud_service.app.id
  admin_password = local.admin_password_now
  member_of      = ["app"]
  ttl            = "15m"

  depends_on = [terraform_data.app_role]
}

resource "terraform_data" "migrate" {
  triggers_replace = [dbcloud_service.app.id, filesha256("${path.module}/schema.sql")]

  provisioner "local-exec" {
    working_dir = path.module
    command     = var.migration_command
    environment = {
      DATABASE_URL = ephemeral.dbcloud_service_credentials.migrate.connection_uri
    }
  }
}

# An analyst's or a report's login: reads what app may read, cannot write.
ephemeral "dbcloud_service_credentials" "report" {
  service_id        = dbcloud_service.app.id
  admin_password    = local.admin_password_now
  member_of         = ["app"]
  read_only         = true
  statement_timeout = "30s"

  depends_on = [terraform_data.app_role]
}

resource "terraform_data" "report" {
  triggers_replace = [terraform_data.migrate.id]

  provisioner "local-exec" {
    working_dir = path.module
    command     = var.report_command
    environment = {
      DATABASE_URL = ephemeral.dbcloud_service_credentials.report.connection_uri
    }
  }
}
