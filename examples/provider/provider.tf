terraform {
  required_providers {
    dbcloud = {
      source  = "dbcloud/dbcloud"
      version = "~> 0.2"
    }
  }
}

# Keep the keys out of the configuration: the provider reads
# DBCLOUD_ACCESS_KEY and DBCLOUD_SECRET_KEY from the environment.
provider "dbcloud" {
  base_url   = "https://api.example.com/v1"
  project_id = "rp1pz7uyae"
}
