resource "dbcloud_service" "orders" {
  name       = "orders"
  cpu_millis = 1000
  memory_gbs = 4
}

# The time of the last apply that changed the service: replaced, with the new plan's time, whenever
# its size changes or it is paused or resumed (and kept by every other plan).
resource "terraform_data" "orders_changed" {
  triggers_replace = [dbcloud_service.orders.cpu_millis, dbcloud_service.orders.memory_gbs, dbcloud_service.orders.paused]
  input            = plantimestamp()

  lifecycle {
    ignore_changes = [input]
  }
}

# Warns, at the end of the apply and in every plan after it, when the service has logged an ERROR
# or a FATAL since that apply.
check "orders_logs_clean" {
  data "dbcloud_service_logs" "orders" {
    service_id = dbcloud_service.orders.id
    since      = terraform_data.orders_changed.output
    severities = ["ERROR", "FATAL"]
  }

  assert {
    condition = data.dbcloud_service_logs.orders.error_count + data.dbcloud_service_logs.orders.fatal_count == 0
    error_message = format(
      "Service orders logged %d ERROR and %d FATAL entries since %s; the newest: %s",
      data.dbcloud_service_logs.orders.error_count,
      data.dbcloud_service_logs.orders.fatal_count,
      terraform_data.orders_changed.output,
      try(reverse(data.dbcloud_service_logs.orders.entries)[0].message, ""),
    )
  }
}
