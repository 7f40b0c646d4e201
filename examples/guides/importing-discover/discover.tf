# A throw-away configuration that lists the project's services and prints one
# `import {}` block per service. Narrow it down with the data source's filters
# (name, service_type, status).
terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

data "dbcloud_services" "existing" {}

locals {
  # Terraform names must start with a letter or an underscore and may hold
  # letters, digits, underscores and dashes.
  import_names = {
    for s in data.dbcloud_services.existing.services :
    s.id => "svc_${replace(s.name, "/[^0-9A-Za-z_-]/", "_")}"
  }
}

output "import_blocks" {
  value = join("\n", [
    for id, name in local.import_names : <<-EOT
    import {
      to = dbcloud_service.${name}
      id = "${id}"
    }
    EOT
  ])
}
