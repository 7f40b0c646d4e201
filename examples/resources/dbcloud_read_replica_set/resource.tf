resource "dbcloud_service" "primary" {
  name       = "orders"
  cpu_millis = 2000
  memory_gbs = 8
}

# Two read-only nodes for reporting queries, behind their own pooler.
resource "dbcloud_read_replica_set" "example" {
  service_id = dbcloud_service.primary.id
  name       = "reporting"
  nodes      = 2
  cpu_millis = 1000
  memory_gbs = 4

  environment               = "PROD"
  connection_pooler_enabled = true

  timeouts {
    create = "30m"
  }
}

output "reporting_endpoint" {
  value = "${dbcloud_read_replica_set.example.hostname}:${dbcloud_read_replica_set.example.port}"
}
