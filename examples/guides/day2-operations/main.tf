# Day-2 operations on a service (Terraform 1.14 or later; `caller` needs 1.16).

resource "dbcloud_service" "dev" {
  name       = "dev-database"
  cpu_millis = 1000
  memory_gbs = 4

  # paused is left unset: a scheduled pipeline pauses and resumes the service
  # with the actions below, and the next plan keeps what they did.

  lifecycle {
    # After every in-place update (a resize, say), restart the service.
    action_trigger {
      events  = [after_update]
      actions = [action.dbcloud_service_restart.after_change]
    }
  }
}

# Triggered by the resource above: `caller` is the triggering resource.
action "dbcloud_service_restart" "after_change" {
  config {
    service_id = caller.id
  }
}

# Invoked from a pipeline:
#   terraform apply -auto-approve -invoke=action.dbcloud_service_pause.nightly
#   terraform apply -auto-approve -invoke=action.dbcloud_service_resume.morning
action "dbcloud_service_pause" "nightly" {
  config {
    service_id = dbcloud_service.dev.id
  }
}

action "dbcloud_service_resume" "morning" {
  config {
    service_id = dbcloud_service.dev.id
    timeouts {
      invoke = "15m"
    }
  }
}
