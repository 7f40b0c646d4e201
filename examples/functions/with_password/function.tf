# Provider functions need the provider in required_providers (Terraform 1.8 or later).
terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

variable "db_password" {
  type      = string
  sensitive = true
}

resource "dbcloud_service" "app" {
  name = "app-db"
}

# postgresql://tsdbadmin:<the password, percent-encoded>@<hostname>:<port>/tsdb?sslmode=require
output "database_url" {
  value     = provider::dbcloud::with_password(dbcloud_service.app.connection_uri, var.db_password)
  sensitive = true
}
