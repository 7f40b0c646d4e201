# Uses the database: with the emulator's PostgreSQL mode (-postgres auto or on),
# each service is its own PostgreSQL instance and the migration logs in as
# tsdbadmin to tsdb over TLS (sslmode=require) with the initial password.
# scripts/terraform-test.sh sets TF_VAR_migration_command to psql commands that
# apply schema.sql (a role and a table) and then check, with psql again, that
# both exist: a failing command fails the apply and so the run. Without it (no
# PostgreSQL on the machine) the run still checks the module's plumbing.
#
#   TF_VAR_migration_command='psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -q -f schema.sql &&
#     test "$(psql -tAc "SELECT count(*) FROM pg_roles WHERE rolname = '\''app'\''")" = 1'

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
