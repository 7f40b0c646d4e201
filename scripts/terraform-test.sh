#!/usr/bin/env bash
# Applies the examples against the API emulator (part of `make test`):
#
#   1. examples/offline-testing: `terraform test` (tests/*.tftest.hcl), the way the
#      "Testing your modules offline" guide tells users to test their modules. With
#      PostgreSQL on the machine the emulator runs with -postgres on (auto) and the
#      module's migration (psql) logs in to the service's own PostgreSQL instance as
#      tsdbadmin to tsdb with sslmode=require, and creates a role and a table.
#   2. examples/quickstart with every optional feature on, then off, then on again
#      (VPC + peering, pooler, read replica set, fork): each apply must succeed, its
#      outputs must evaluate (no "Invalid template interpolation value" on a null
#      endpoint), and a plan right after it must be empty; then destroy.
#
# One emulator (fast timing, a free loopback port) serves both; it is stopped and
# every temporary file removed on exit. Environment: BIN_DIR (provider build, default
# ./bin), EMULATOR_POSTGRES (the emulator's -postgres: auto|on|off, default auto).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_output TF_CLI_ARGS_test TF_WORKSPACE TF_DATA_DIR

require_terraform
work="$LIB_TMP"
color=(-no-color)
build_provider_and_emulator
use_cli_config "$bin_dir"
project_id="offline01"
start_emulator test-access test-secret "$project_id" auto
postgres=$emu_postgres

# ---- 1. terraform test ------------------------------------------------------------
dir="$work/offline-testing"
cp -r "$repo/examples/offline-testing" "$dir"
rm -rf "$dir/.terraform" "$dir"/terraform.tfstate*
unset TF_VAR_migration_command
if $postgres; then
	# The migration: psql applies schema.sql (a role and a table) through DATABASE_URL (the
	# service's connection_uri with the password added by provider::dbcloud::with_password:
	# tsdbadmin, tsdb, sslmode=require), then checks with the PG* variables that both exist.
	command -v psql >/dev/null 2>&1 || die "psql not found (apt-get install postgresql-client)"
	export TF_VAR_migration_command="psql \"\$DATABASE_URL\" -v ON_ERROR_STOP=1 -q -f schema.sql && test \"\$(psql -tAc \"SELECT count(*) FROM pg_roles WHERE rolname = 'app'\")\" = 1 && test \"\$(psql -tAc \"SELECT count(*) FROM items\")\" = 0 && test \"\$(psql -tAc \"SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()\")\" = t && touch '$work/migrated'"
fi
log "terraform test in examples/offline-testing"
(cd "$dir" && "$TERRAFORM" test "${color[@]}") || die "terraform test failed in examples/offline-testing"
if $postgres; then
	[[ -e "$work/migrated" ]] || die "terraform test passed but the migration never logged in to the database"
	echo "  ok    the module's migration (psql) logged in as tsdbadmin over TLS and created a role and a table"
fi
unset TF_VAR_migration_command

# ---- 2. quickstart with each optional feature on and off ----------------------------
dir="$work/quickstart"
mkdir -p "$dir"
cp "$repo"/examples/quickstart/*.tf "$dir/"
tf() { (cd "$dir" && "$TERRAFORM" "$@"); }
all_on=(-var in_vpc=true -var pooler=true -var read_replica=true -var fork=true)
all_off=(-var in_vpc=false -var pooler=false -var read_replica=false -var fork=false)
check_apply() {
	local what="$1"
	shift
	log "quickstart: apply with $what"
	tf apply -auto-approve -input=false -compact-warnings "${color[@]}" "$@" >"$work/apply.log" 2>&1 ||
		{ cat "$work/apply.log"; die "quickstart: apply with $what failed"; }
	tf output "${color[@]}" >"$work/output.log" 2>&1 ||
		{ cat "$work/output.log"; die "quickstart: outputs with $what failed"; }
	local rc=0
	tf plan -input=false -detailed-exitcode -compact-warnings "${color[@]}" "$@" >"$work/plan.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		cat "$work/plan.log"
		die "quickstart: the plan after the apply with $what is not empty (exit $rc)"
	fi
	echo "  ok    $what (apply, outputs, empty plan)"
}
check_apply "the defaults" # VPC, pooler, replica set on; no fork
check_apply "everything off" "${all_off[@]}"
check_apply "everything on (fork too)" "${all_on[@]}"
log "quickstart: destroy"
tf destroy -auto-approve -input=false "${color[@]}" "${all_on[@]}" >"$work/destroy.log" 2>&1 ||
	{ cat "$work/destroy.log"; die "quickstart: destroy failed"; }
[[ -z "$(tf state list 2>/dev/null)" ]] || die "quickstart: resources left in state after destroy"
log "terraform-test: passed"
