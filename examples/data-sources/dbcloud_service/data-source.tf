# Look up a service that is managed elsewhere, by its ID.
data "dbcloud_service" "example" {
  id = "rp1pz7uyae"
}

output "service_endpoint" {
  value = "${data.dbcloud_service.example.hostname}:${data.dbcloud_service.example.port}"
}

output "service_status" {
  value = data.dbcloud_service.example.status
}
