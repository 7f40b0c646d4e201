# A production service that cannot be destroyed by accident, and that leaves a
# paused copy of itself when it is destroyed on purpose (Terraform 1.16 or later).

resource "dbcloud_service" "orders" {
  name        = "orders"
  environment = "PROD"

  # Any plan that destroys or replaces the service fails while this is true.
  # To destroy it: set it to false, apply, then destroy.
  deletion_protection = true

  lifecycle {
    action_trigger {
      events     = [before_destroy]
      actions    = [action.dbcloud_service_fork.final_copy]
      on_failure = halt
    }
  }
}

# caller is the service being destroyed. The copy is named after it with the
# UTC time, e.g. orders-20261125T172442Z, and stopped once READY.
action "dbcloud_service_fork" "final_copy" {
  config {
    service_id = caller.id
    pause      = true
  }
}
