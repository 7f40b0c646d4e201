# One read replica set of a service, by the service id and the set id.
data "dbcloud_read_replica_set" "example" {
  service_id = "rp1pz7uyae"
  id         = "rs7k2m9q4x"
}

output "replica_endpoint" {
  value = "${data.dbcloud_read_replica_set.example.hostname}:${data.dbcloud_read_replica_set.example.port}"
}
