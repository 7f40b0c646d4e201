resource "dbcloud_service" "orders" {
  name = "orders"

  lifecycle {
    # Terraform 1.16 or later: before Terraform destroys the service, keep a
    # paused copy of it; if the copy cannot be made, the service is kept.
    action_trigger {
      events     = [before_destroy]
      actions    = [action.dbcloud_service_fork.final_copy]
      on_failure = halt
    }
  }
}

action "dbcloud_service_fork" "final_copy" {
  config {
    service_id = caller.id
    pause      = true
  }
}

# A copy on demand (Terraform 1.14 or later):
# terraform apply -invoke=action.dbcloud_service_fork.before_migration
action "dbcloud_service_fork" "before_migration" {
  config {
    service_id = dbcloud_service.orders.id
    name       = "orders-before-migration"
    strategy   = "NOW"
    pause      = true
    timeouts {
      invoke = "1h"
    }
  }
}
