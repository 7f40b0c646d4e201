resource "dbcloud_service" "example" {
  name = "orders"
}

# terraform apply -invoke=action.dbcloud_service_restart.orders
action "dbcloud_service_restart" "orders" {
  config {
    service_id = dbcloud_service.example.id

    timeouts {
      invoke = "20m"
    }
  }
}
