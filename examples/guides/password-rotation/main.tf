# The password never lands in the plan or the state: `password_wo` is
# write-only (Terraform >= 1.11) and the variable is ephemeral.
variable "db_password" {
  description = "Password of the service. Set it with TF_VAR_db_password."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "dbcloud_service" "app" {
  name       = "app-db"
  addons     = []
  cpu_millis = 1000
  memory_gbs = 4

  password_wo         = var.db_password
  password_wo_version = 1 # increase to send a new var.db_password
}
