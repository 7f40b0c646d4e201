# terraform query: the services of the provider's project.
list "dbcloud_service" "all" {
  provider = dbcloud
}

# Only the paused services named "orders", with their full resource data
# (e.g. for terraform query -generate-config-out=generated.tf).
list "dbcloud_service" "paused_orders" {
  provider         = dbcloud
  include_resource = true
  config {
    name   = "orders"
    status = "PAUSED"
  }
}
