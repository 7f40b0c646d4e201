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
# ./bin), TERRAFORM_TEST_POSTGRES (auto|on|off, default auto).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_output TF_CLI_ARGS_test TF_WORKSPACE TF_DATA_DIR

require_terraform
bin_dir="${BIN_DIR:-$repo/bin}"
mkdir -p "$bin_dir"
bin_dir="$(cd "$bin_dir" && pwd)"
work="$LIB_TMP"
color=(-no-color)

log "building the provider and the emulator"
go build -o "$bin_dir/terraform-provider-dbcloud" .
go build -o "$work/dbcloud-emulator" ./internal/emulator/cmd/emulator

emu_pid=""
emu_log="$work/emulator.log"
stop_emulator() {
	if [[ -n "$emu_pid" ]]; then
		kill -TERM "$emu_pid" 2>/dev/null || true
		wait "$emu_pid" 2>/dev/null || true
		emu_pid=""
	fi
}
on_exit() {
	local rc=$?
	stop_emulator
	if [[ $rc -ne 0 && -s "$emu_log" ]]; then
		echo "last lines of the emulator log:" >&2
		tail -n 20 "$emu_log" | sed 's/^/    /' >&2
	fi
	rm -rf "$LIB_TMP"
	exit "$rc"
}
trap on_exit EXIT

project_id="offline01"
"$work/dbcloud-emulator" -addr 127.0.0.1:0 -access-key test-access -secret-key test-secret \
	-projects "$project_id" -timing fast -postgres "${TERRAFORM_TEST_POSTGRES:-auto}" \
	>"$work/emulator.out" 2>"$emu_log" </dev/null &
emu_pid=$!
base_url=""
t0=$(date +%s.%N)
for _ in $(seq 600); do # up to 60s (initdb on a loaded machine)
	base_url="$(head -n1 "$work/emulator.out" 2>/dev/null || true)"
	[[ "$base_url" == http://*/v1 ]] && break
	base_url=""
	kill -0 "$emu_pid" 2>/dev/null || die "the emulator exited during start-up: $(cat "$emu_log")"
	sleep 0.1
done
[[ -n "$base_url" ]] || die "the emulator did not print its URL within 60s."
postgres=false
grep -q 'pgbackend: PostgreSQL (' "$emu_log" && postgres=true
log "emulator on $base_url (PostgreSQL behind it: $postgres; up in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo 0)")s)"

export DBCLOUD_BASE_URL="$base_url" DBCLOUD_ACCESS_KEY=test-access DBCLOUD_SECRET_KEY=test-secret DBCLOUD_PROJECT_ID="$project_id"
unset DBCLOUD_ANALYTICS
use_cli_config "$bin_dir"

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
