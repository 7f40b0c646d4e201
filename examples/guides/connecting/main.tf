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

variable "previous_admin_password" {
  description = "Only for the apply that rotates the admin password: the password the service has until then (TF_VAR_previous_admin_password). Unset it afterwards."
  type        = string
  sensitive   = true
  ephemeral   = true
  default     = null
}

locals {
  # The admin password that logs in now. While planning a rotation the service still has the
  # previous one; the apply sends the new one first, then logs in with it.
  admin_password_now = terraform.applying ? var.admin_password : coalesce(var.previous_admin_password, var.admin_password)
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
