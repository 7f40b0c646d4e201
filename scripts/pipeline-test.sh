#!/usr/bin/env bash
# Runs the example pipeline's scripts (examples/pipelines: plan.sh, apply.sh,
# drift-check.sh) against the API emulator, as the pipelines guide describes them
# (part of `make test`):
#
#   plan to a file, apply the file, drift check (exit 0), a change made outside
#   Terraform through the API (curl with HTTP Basic: a rename and an environment
#   change, as the console would), drift check (exit 2, showing both), plan and
#   apply again (in place), the API shows the configuration again, drift check
#   (exit 0).
#
# The example's backend.tf (S3) is left out: the state is local here. The provider
# is the one built into BIN_DIR (default ./bin), through dev_overrides (no init).
# The last line of the output is "pipeline: N passed, M failed".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_show TF_CLI_ARGS_output TF_WORKSPACE TF_DATA_DIR

require_terraform
command -v curl >/dev/null 2>&1 || die "curl not found (apt-get install curl)"
# drift-check.sh reads the refresh-only plan with jq (see the script).
command -v jq >/dev/null 2>&1 || die "jq not found (apt-get install jq)"
work="$LIB_TMP"
build_provider_and_emulator
use_cli_config "$bin_dir"
access_key=pipeline-access
secret_key=pipeline-secret
project_id=pipeline01
start_emulator "$access_key" "$secret_key" "$project_id" off

# The pipeline's environment: credentials from the environment, TF_IN_AUTOMATION.
export TF_IN_AUTOMATION=1 TERRAFORM

dir="$work/pipeline"
mkdir -p "$dir"
cp "$repo/examples/pipelines/main.tf" "$repo"/examples/pipelines/*.sh "$dir/"

# run NAME CMD...: runs CMD in the working directory, its output in $work/NAME.log;
# sets rc to its exit status.
run() {
	local name="$1"
	shift
	rc=0
	(cd "$dir" && "$@") >"$work/$name.log" 2>&1 || rc=$?
}
show() { sed 's/^/        /' "$work/$1.log"; }
# api METHOD PATH [BODY]: a request to the API as another tool would send it; prints the body and
# sets http_status.
api() {
	local out
	out="$(curl -sS -u "$access_key:$secret_key" -X "$1" -H 'Content-Type: application/json' \
		${3:+--data "$3"} -w '\n%{http_code}' "$base_url/projects/$project_id$2")"
	http_status="${out##*$'\n'}"
	printf '%s' "${out%$'\n'*}"
}

log "pipeline: plan to a file, apply the file"
run plan1 ./plan.sh tfplan
if [[ $rc -eq 0 && -s "$dir/tfplan" ]] && grep -q 'changes: true' "$work/plan1.log" && grep -q 'dbcloud_service.orders will be created' "$dir/tfplan.txt"; then
	ok "plan.sh saved a plan that creates the service (tfplan, tfplan.txt)"
else
	fail "plan.sh (exit $rc)"
	show plan1
fi
run apply1 ./apply.sh tfplan
if [[ $rc -eq 0 ]] && grep -q 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed' "$work/apply1.log"; then
	ok "apply.sh applied the saved plan"
else
	fail "apply.sh (exit $rc)"
	show apply1
fi
run drift0 ./drift-check.sh
if [[ $rc -eq 0 ]]; then ok "drift-check.sh right after the apply: exit 0"; else
	fail "drift-check.sh right after the apply: exit $rc, want 0"
	show drift0
fi

log "pipeline: a change outside Terraform, then the drift check"
id="$(cd "$dir" && "$TERRAFORM" output -raw orders_id 2>/dev/null || true)"
api POST "/services/$id/rename" '{"name":"orders-console"}' >/dev/null
rename_status="$http_status"
api POST "/services/$id/setEnvironment" '{"environment":"DEV"}' >/dev/null
if [[ -n "$id" && "$rename_status" == 200 && "$http_status" == 200 ]]; then
	ok "renamed service $id to orders-console and set it to DEV through the API (curl)"
else
	fail "the out-of-band change of service '$id': rename HTTP $rename_status, setEnvironment HTTP $http_status"
fi
run drift2 ./drift-check.sh
if [[ $rc -eq 2 ]] && grep -q '"orders" -> "orders-console"' "$work/drift2.log" && grep -q '"PROD" -> "DEV"' "$work/drift2.log"; then
	ok "drift-check.sh after the change: exit 2, showing the name and the environment"
else
	fail "drift-check.sh after the change: exit $rc, want 2 with both changes shown"
	show drift2
fi

log "pipeline: plan and apply put the configuration back"
run plan2 ./plan.sh tfplan
if [[ $rc -eq 0 ]] && grep -q 'dbcloud_service.orders will be updated in-place' "$dir/tfplan.txt" &&
	grep -q 'Plan: 0 to add, 1 to change, 0 to destroy' "$dir/tfplan.txt"; then
	ok "plan.sh plans an in-place update back to the configuration"
else
	fail "plan.sh after the drift (exit $rc)"
	show plan2
	[[ -f "$dir/tfplan.txt" ]] && sed 's/^/        /' "$dir/tfplan.txt"
fi
run apply2 ./apply.sh tfplan
if [[ $rc -eq 0 ]] && grep -q 'Apply complete! Resources: 0 added, 1 changed, 0 destroyed' "$work/apply2.log"; then
	ok "apply.sh applied it"
else
	fail "apply.sh after the drift (exit $rc)"
	show apply2
fi
record="$(api GET "/services/$id")"
if [[ "$http_status" == 200 && "$record" == *'"name":"orders"'* && "$record" == *'"environment":"PROD"'* ]]; then
	ok "the API shows the name orders and the environment PROD again"
else
	fail "the API after the apply: HTTP $http_status: $record"
fi
run drift0b ./drift-check.sh
if [[ $rc -eq 0 ]]; then ok "drift-check.sh after the apply: exit 0"; else
	fail "drift-check.sh after the apply: exit $rc, want 0"
	show drift0b
fi

summary pipeline
