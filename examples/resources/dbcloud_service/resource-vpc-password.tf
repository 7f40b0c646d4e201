# A plain PostgreSQL service (no addons) in a VPC, with a password that
# Terraform sends to the API but never stores (write-only, Terraform >= 1.11).
variable "app_db_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "dbcloud_vpc" "app" {
  name        = "app"
  cidr        = "10.20.0.0/16"
  region_code = "eu-west-1"
}

resource "dbcloud_service" "app" {
  name        = "app-db"
  addons      = []
  region_code = dbcloud_vpc.app.region_code
  cpu_millis  = 1000
  memory_gbs  = 4

  # Attached (and detached) in place.
  vpc_id = dbcloud_vpc.app.id

  # Bump the version to send a new password.
  password_wo         = var.app_db_password
  password_wo_version = 1
}

output "app_db_private_endpoint" {
  # Null while the service is not attached to a VPC.
  value = (dbcloud_service.app.vpc_hostname == null ? null :
  "${dbcloud_service.app.vpc_hostname}:${dbcloud_service.app.vpc_port}")
}
