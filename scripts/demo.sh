#!/usr/bin/env bash
# `make demo`: the provider working end to end in one command, against the local
# API emulator (no account, no network, nothing left behind).
#
#   1. builds the provider, the emulator and pgcheck (a small pgx client)
#   2. starts the emulator on a free loopback port (state transitions of a few seconds), with
#      one real PostgreSQL instance behind each service when the server binaries are found
#      (-postgres auto; EMULATOR_POSTGRES=on|off, or `make demo POSTGRES=off`, chooses), and
#      PgBouncer behind the pooler endpoint when pgbouncer is installed
#   3. writes a private Terraform CLI config with dev_overrides (your ~/.terraformrc is
#      never read or touched) and copies examples/quickstart to a temporary directory
#   4. terraform apply: a VPC, a time-series + ai service in it with the connection pooler,
#      a read replica set and a VPC peering
#   5. terraform output
#   6. uses the database: logs in to the service's endpoint as tsdbadmin to database tsdb with
#      sslmode=require and the password from Terraform's outputs, and writes a row (pgcheck); reads
#      it back through the pooler's endpoint when PgBouncer is installed
#   7. forks the service (-var fork=true) and reads the row back from the fork's endpoint
#   8. a resize (cpu_millis/memory_gbs 1000/4 -> 2000/8), which plans as an in-place update
#   9. terraform destroy
# Without PostgreSQL (no server binaries; `apt-get install postgresql`) steps 6 and 7 still
# fork the service but skip the logins: the emulator's endpoints are invented then.
# The emulator is stopped and the temporary directory removed on success, failure or Ctrl-C
# (after a best-effort destroy).
#
# Environment: BIN_DIR (where the provider is built, default ./bin), EMULATOR_POSTGRES (the
# emulator's -postgres: auto, on or off; default auto), DEMO_KEEP=1 keeps the temporary directory
# (state, logs) for a look afterwards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh # log, die, require_terraform, use_cli_config, $LIB_TMP; exports CHECKPOINT_DISABLE etc.
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh # build_provider_and_emulator, start_emulator, stop_emulator (the trap is cleanup's below)
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_output TF_WORKSPACE TF_DATA_DIR

STAGES=9
stage_no=0
stage() {
	stage_no=$((stage_no + 1))
	printf '\n%s==> %d/%d %s%s\n' "$bold" "$stage_no" "$STAGES" "$*" "$plain"
}
info() { printf '    %s\n' "$*"; }

# Colours only on a terminal outside CI.
tf_color=()
bold='' plain=''
if [[ -t 1 && -z "${CI:-}" ]]; then
	bold=$'\e[1m' plain=$'\e[0m'
else
	tf_color=(-no-color)
fi

command -v go >/dev/null 2>&1 || die "go is not on PATH."
require_terraform # sets TERRAFORM; never downloads one

# Everything of this run (emulator binary and log, CLI config, Terraform working directory and
# state) lives in lib.sh's temporary directory, removed by cleanup below.
work="$LIB_TMP"
tfdir="$work/quickstart"
started=$SECONDS

tf() { (cd "$tfdir" && "$TERRAFORM" "$@"); }

emulator_up() { [[ -n "$emu_pid" ]] && kill -0 "$emu_pid" 2>/dev/null; }

cleaned=false
cleanup() {
	local rc=$?
	$cleaned && return
	cleaned=true
	# A second Ctrl-C interrupts the running terraform (it gets the signal itself), not the
	# rest of the cleanup: the emulator must not be left running.
	trap '' INT TERM
	trap - EXIT
	set +e
	if [[ $rc -ne 0 ]]; then
		printf '\n%s==> demo failed (exit %d): cleaning up%s\n' "$bold" "$rc" "$plain"
		if [[ -s "$emu_log" ]] && ! $emu_log_shown; then
			echo "    last lines of the emulator log:"
			tail -n 20 "$emu_log" | sed 's/^/      /'
		fi
	fi
	# Best effort: destroy what the demo created (the emulator keeps everything in memory,
	# so this is for a tidy end rather than for safety).
	if [[ -s "$tfdir/terraform.tfstate" ]] && emulator_up &&
		[[ -n "$(tf state list 2>/dev/null)" ]]; then
		echo "    destroying what was created..."
		tf destroy -auto-approve -input=false "${tf_color[@]}" >"$work/destroy-cleanup.log" 2>&1 ||
			echo "    destroy failed: see $work/destroy-cleanup.log"
	fi
	if [[ -n "$emu_pid" ]]; then
		stop_emulator
		[[ $rc -ne 0 ]] && echo "    emulator stopped"
	fi
	if [[ -n "${DEMO_KEEP:-}" ]]; then
		echo "    kept $work"
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------
stage "Building the provider and the emulator"
build_provider_and_emulator # into BIN_DIR (default ./bin) and $emu_bin
info "provider: $bin_dir/terraform-provider-dbcloud"
info "emulator: $emu_bin"
go build -o "$work/pgcheck" ./internal/emulator/cmd/pgcheck
info "terraform: $("$TERRAFORM" version | sed -n 1p) ($TERRAFORM)"

# ---------------------------------------------------------------------------------------
stage "Starting the API emulator on a free loopback port"
access_key="demo-access-key"
secret_key="demo-secret-key"
project_id="demoproj01"
# In a session of its own (start_emulator), so that a Ctrl-C in the terminal reaches this script and
# terraform, but not the emulator: the cleanup still needs it to destroy. Up to 90 s: initdb of the
# PostgreSQL template on a loaded machine.
start_emulator "$access_key" "$secret_key" "$project_id" auto -timing demo -log
info "pid $emu_pid; each state transition takes about 2 seconds"
postgres=$emu_postgres
if pg_line="$(grep -m1 'pgbackend: PostgreSQL (' "$emu_log")"; then
	info "a real PostgreSQL instance is behind each service: ${pg_line#*pgbackend: }"
elif [[ "${EMULATOR_POSTGRES:-auto}" == off ]]; then
	info "no PostgreSQL behind the services (-postgres off): endpoints are invented"
else
	info "no PostgreSQL behind the services (install it: apt-get install postgresql): endpoints are invented"
fi

# ---------------------------------------------------------------------------------------
stage "Writing a private Terraform CLI config and copying examples/quickstart"
use_cli_config "$bin_dir" # TF_CLI_CONFIG_FILE: a private file with dev_overrides -> $bin_dir
info "TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE (dev_overrides -> $bin_dir)"
mkdir -p "$tfdir"
cp "$repo"/examples/quickstart/*.tf "$tfdir/"
info "working directory: $tfdir (no state is written into the repository)"
info "with dev_overrides there is no 'terraform init' to run (terraform warns that the overrides are in effect)"

# ---------------------------------------------------------------------------------------
stage "terraform apply: VPC, service (time-series + ai, pooler on), read replica set, peering"
t0=$SECONDS
tf apply -auto-approve -input=false -compact-warnings "${tf_color[@]}"
info "applied in $((SECONDS - t0))s"

# ---------------------------------------------------------------------------------------
stage "terraform output"
tf output "${tf_color[@]}"

# ---------------------------------------------------------------------------------------
# pgcheck logs in as clients of the real service do: user tsdbadmin, database tsdb, TLS
# (sslmode=require), with the password in PGPASSWORD, never on the command line. Each service is
# its own PostgreSQL instance behind the emulator.
pgcheck() { # pgcheck write|read HOST PORT
	"$work/pgcheck" "$1" -user tsdbadmin -dbname tsdb -sslmode require -host "$2" -port "$3" -value "written by make demo" -wait 30s
}
stage "Using the database: log in with the password from terraform output, write a row"
service_id="$(tf output -raw service_id)"
if $postgres; then
	PGPASSWORD="$(tf output -raw initial_password)" pgcheck write "$(tf output -raw host)" "$(tf output -raw port)"
	pooler="$(tf output -raw pooler_endpoint 2>/dev/null || true)"
	if [[ -n "$pooler" ]] && grep -q 'pgbouncer: /' "$emu_log"; then
		PGPASSWORD="$(tf output -raw initial_password)" pgcheck read "${pooler%:*}" "${pooler##*:}"
		info "the same row through the connection pooler's endpoint (PgBouncer in front of the service)"
	fi
else
	info "skipped: no database behind the emulator"
fi

# ---------------------------------------------------------------------------------------
stage "Forking the service (-var fork=true) and reading the row back from the fork"
t0=$SECONDS
tf apply -auto-approve -input=false -compact-warnings "${tf_color[@]}" -var fork=true >"$work/fork-apply.log" 2>&1 ||
	{ cat "$work/fork-apply.log"; die "the fork failed"; }
grep -E '^(dbcloud_service.fork|Apply complete)' "$work/fork-apply.log" | sed 's/^/    /'
info "forked in $((SECONDS - t0))s: service $(tf output -raw fork_id) from $service_id"
if $postgres; then
	PGPASSWORD="$(tf output -raw fork_initial_password)" pgcheck read "$(tf output -raw fork_host)" "$(tf output -raw fork_port)"
	info "the fork (a physical copy of its source's instance) has the row written to its source before the fork"
else
	info "read skipped: no database behind the emulator"
fi

# ---------------------------------------------------------------------------------------
stage "Resizing the service in place: 1000m CPU / 4 GB -> 2000m CPU / 8 GB"
resize=(-var fork=true -var cpu_millis=2000 -var memory_gbs=8)
plan_log="$work/resize-plan.txt"
tf plan -input=false -no-color -compact-warnings -out=resize.tfplan "${resize[@]}" >"$plan_log"
# The actions part of the plan (the refresh above it may note the peering turning active).
sed -n '/^Terraform will perform the following actions:/,/^Plan:/p' "$plan_log" | sed 's/^/    /'
summary="$(grep -E '^Plan:' "$plan_log" || true)"
if grep -q 'must be replaced' "$plan_log" || [[ "$summary" != "Plan: 0 to add, 1 to change, 0 to destroy." ]]; then
	cat "$plan_log"
	die "expected the resize to plan as one in-place update, got: ${summary:-no plan summary}"
fi
info "the plan updates dbcloud_service.main in place: no replacement"
t0=$SECONDS
tf apply -input=false -compact-warnings "${tf_color[@]}" resize.tfplan
info "resized in $((SECONDS - t0))s"

# ---------------------------------------------------------------------------------------
stage "terraform destroy"
t0=$SECONDS
tf destroy -auto-approve -input=false -compact-warnings "${tf_color[@]}" "${resize[@]}"
info "destroyed in $((SECONDS - t0))s"
left="$(tf state list 2>/dev/null || true)"
[[ -z "$left" ]] || die "resources left in state after destroy: $left"

printf '\n%s==> demo finished in %ds: stopping the emulator and removing %s%s\n' \
	"$bold" "$((SECONDS - started))" "$work" "$plain"
