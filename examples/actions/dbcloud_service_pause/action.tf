resource "dbcloud_service" "dev" {
  name = "dev-database"
  # paused is left unset: the pause and resume actions decide, and the next
  # plan keeps whatever they did.
}

# terraform apply -invoke=action.dbcloud_service_pause.dev
action "dbcloud_service_pause" "dev" {
  config {
    service_id = dbcloud_service.dev.id
  }
}
