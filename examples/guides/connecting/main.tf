# Connecting to a service with no password in the state: the admin password is
# write-only and comes from your secret store; the application's role is made as
# tsdbadmin (app_role.tf); jobs and analysts log in with short-lived logins made for
# the run (logins.tf). The guide shows the same with the PostgreSQL provider.

terraform {
  required_version = ">= 1.11" # password_wo; ephemeral resources need 1.10

  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

variable "admin_password" {
  description = "The service's tsdbadmin password, from your secret store (TF_VAR_admin_password); never stored."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "dbcloud_service" "app" {
  name                = "app-db"
  password_wo         = var.admin_password
  password_wo_version = 1 # increase to send a new var.admin_password
}

# No password in these: safe to show, log and pass around.
output "connection_uri" {
  value = dbcloud_service.app.connection_uri
}

output "read_only_connection_uri" {
  value = dbcloud_service.app.read_only_connection_uri
}
