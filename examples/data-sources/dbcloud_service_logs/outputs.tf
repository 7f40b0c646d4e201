# The service's last errors of the past hour, newest last, for a pipeline to print after an apply:
#   terraform output -json orders_recent_errors
data "dbcloud_service_logs" "orders_recent" {
  service_id  = dbcloud_service.orders.id
  since       = "1h"
  severities  = ["ERROR", "FATAL", "PANIC"]
  max_entries = 20
}

output "orders_recent_errors" {
  value = [for e in data.dbcloud_service_logs.orders_recent.entries : "${e.timestamp} ${e.severity}: ${e.message}"]
}
