# Uses the database: with the emulator's PostgreSQL mode (-postgres on), the
# service's endpoint is a real database and the migration logs in with the
# initial password. scripts/terraform-test.sh sets TF_VAR_migration_command to
# a small program that writes a row and reads it back; without it (no
# PostgreSQL on the machine) the run still checks the module's plumbing.

provider "dbcloud" {}

variables {
  name = "billing"
}

run "migrates_the_new_database" {
  assert {
    condition     = dbcloud_service.db.status == "READY"
    error_message = "the service should be READY before the migration runs"
  }
  assert {
    condition     = output.migrated == (var.migration_command != "")
    error_message = "the migration should run exactly when a command is given"
  }
}
