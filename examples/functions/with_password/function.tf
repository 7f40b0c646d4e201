# Provider functions need the provider in required_providers (Terraform 1.8 or later).
terraform {
  required_providers {
    dbcloud = {
      source = "dbcloud/dbcloud"
    }
  }
}

variable "db_password" {
  type      = string
  sensitive = true
}

locals {
  base_uri = "postgresql://tsdbadmin@db.example.com:5432/tsdb?sslmode=require"
}

# postgresql://tsdbadmin:<the password, percent-encoded>@db.example.com:5432/tsdb?sslmode=require
output "database_url" {
  value     = provider::dbcloud::with_password(local.base_uri, var.db_password)
  sensitive = true
}
