# A TimescaleDB service with the vector addon, a connection pooler and one
# high-availability replica.
resource "dbcloud_service" "example" {
  name        = "metrics"
  addons      = ["time-series", "ai"]
  region_code = "us-east-1"
  environment = "PROD"

  # Resized in place.
  cpu_millis = 2000
  memory_gbs = 8

  # Changed in place.
  ha_replicas               = 1
  sync_replicas             = 0
  connection_pooler_enabled = true

  # Refuse `terraform destroy` (and replacements) until this is set to false.
  deletion_protection = true

  timeouts {
    create = "45m"
    update = "30m"
  }
}

output "metrics_endpoint" {
  value = "${dbcloud_service.example.hostname}:${dbcloud_service.example.port}"
}

output "metrics_pooler_endpoint" {
  # Null while the pooler is off.
  value = (dbcloud_service.example.pooler_hostname == null ? null :
  "${dbcloud_service.example.pooler_hostname}:${dbcloud_service.example.pooler_port}")
}
