# Every service of the project.
data "dbcloud_services" "all" {}

# Only the TimescaleDB services that are ready. Filters match exactly; leave one
# out to not filter on it.
data "dbcloud_services" "ready_timeseries" {
  service_type = "TIMESCALEDB"
  status       = "READY"
}

output "all_service_ids" {
  value = data.dbcloud_services.all.ids
}

output "ready_timeseries_endpoints" {
  value = {
    for s in data.dbcloud_services.ready_timeseries.services : s.name => "${s.hostname}:${s.port}"
  }
}
