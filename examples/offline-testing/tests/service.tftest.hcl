# terraform test: run against the dbcloud API emulator (scripts/terraform-test.sh
# starts one and sets DBCLOUD_BASE_URL and the keys). Each run applies the module
# for real against the emulator, and everything is destroyed at the end.

provider "dbcloud" {}

variables {
  name = "shop"
}

run "service_is_ready" {
  assert {
    condition     = dbcloud_service.db.status == "READY"
    error_message = "the service should be READY after apply, got ${dbcloud_service.db.status}"
  }
  assert {
    condition     = dbcloud_service.db.name == "shop-db"
    error_message = "the service should be named after the application"
  }
  assert {
    condition     = output.pooler_endpoint == null
    error_message = "the pooler is off by default: no pooler endpoint"
  }
}

run "pooler_on" {
  variables {
    pooler = true
  }
  assert {
    condition     = output.pooler_endpoint != null
    error_message = "with the pooler on, the module should output its endpoint"
  }
  assert {
    condition     = dbcloud_service.db.id == run.service_is_ready.service_id
    error_message = "turning the pooler on should change the service in place, not replace it"
  }
}

run "rejects_a_bad_name" {
  command = plan
  variables {
    name = "Not OK"
  }
  expect_failures = [var.name]
}
