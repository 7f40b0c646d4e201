# The read replica sets of one service.
data "dbcloud_read_replica_sets" "example" {
  service_id = "rp1pz7uyae"
}

output "replica_endpoints" {
  value = {
    for rs in data.dbcloud_read_replica_sets.example.read_replica_sets : rs.name => "${rs.hostname}:${rs.port}"
  }
}
