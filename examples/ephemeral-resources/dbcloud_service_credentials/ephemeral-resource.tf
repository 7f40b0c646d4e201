variable "admin_password" {
  description = "The service's tsdbadmin password, from your secret store; never stored."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "dbcloud_service" "app" {
  name                = "app-db"
  password_wo         = var.admin_password
  password_wo_version = 1
}

# A login for this run's migration: a member of the application's role, valid for
# 15 minutes, dropped at the end of the run.
ephemeral "dbcloud_service_credentials" "migrate" {
  service_id     = dbcloud_service.app.id
  admin_password = var.admin_password
  member_of      = ["app"]
  ttl            = "15m"
}

resource "terraform_data" "migrate" {
  triggers_replace = [dbcloud_service.app.id]

  provisioner "local-exec" {
    command = "psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -f schema.sql"
    environment = {
      DATABASE_URL = ephemeral.dbcloud_service_credentials.migrate.connection_uri
    }
  }
}

# A read-only login, for a report or an analyst.
ephemeral "dbcloud_service_credentials" "reader" {
  service_id        = dbcloud_service.app.id
  admin_password    = var.admin_password
  member_of         = ["app"]
  read_only         = true
  statement_timeout = "30s"
}
