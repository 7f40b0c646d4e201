terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

# Keep the credentials out of the configuration: the provider reads either
# the key pair (DBCLOUD_ACCESS_KEY and DBCLOUD_SECRET_KEY) or a token
# (DBCLOUD_TOKEN) from the environment. Set one of the two, not both.
provider "dbcloud" {
  base_url   = "https://api.example.com/v1"
  project_id = "rp1pz7uyae"
}

# A token can also come from a variable (sensitive, so that Terraform
# never shows it), e.g. one a pipeline mints for each job:
#
# variable "dbcloud_token" {
#   type      = string
#   sensitive = true
# }
#
# provider "dbcloud" {
#   base_url   = "https://api.example.com/v1"
#   project_id = "rp1pz7uyae"
#   token      = var.dbcloud_token
# }
