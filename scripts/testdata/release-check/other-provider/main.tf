# Needs a second provider that the check cannot install (no network): it is left out.
terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
    postgresql = {
      source  = "cyrilgdn/postgresql"
      version = "~> 1.25"
    }
  }
}

variable "admin_password" {
  type      = string
  sensitive = true
}

resource "dbcloud_service" "app" {
  name = "other-provider"
}

provider "postgresql" {
  host     = dbcloud_service.app.hostname
  port     = dbcloud_service.app.port
  username = "tsdbadmin"
  password = var.admin_password
  sslmode  = "require"
}

resource "postgresql_role" "app" {
  name  = "app"
  login = false
}
