# A copy of the metrics service with its data as of now, e.g. to rehearse a
# migration. Type, region and storage come from the source service; size and
# environment can differ. The fork starts without HA replicas.
resource "dbcloud_service" "metrics_copy" {
  name       = "metrics-copy"
  cpu_millis = 1000
  memory_gbs = 4

  fork {
    source_service_id = dbcloud_service.example.id
    strategy          = "NOW"

    # Or from the latest snapshot (the default), or as of a point in time
    # after the source was created:
    #   strategy    = "PITR"
    #   target_time = "2025-06-01T00:00:00Z"
  }
}
