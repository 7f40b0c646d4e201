resource "dbcloud_service" "dev" {
  name = "dev-database"
  # paused is left unset: the pause and resume actions decide, and the next
  # plan keeps whatever they did.
}

# terraform apply -invoke=action.dbcloud_service_resume.dev
action "dbcloud_service_resume" "dev" {
  config {
    service_id = dbcloud_service.dev.id
    # Return once the API accepted the start, without waiting for READY.
    wait = false
  }
}
