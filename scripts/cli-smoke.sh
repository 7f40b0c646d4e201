#!/usr/bin/env bash
# Checks that a Terraform or OpenTofu CLI works with the provider end to end:
# builds the provider and the emulator, starts the emulator on a free loopback
# port, and with a private CLI config (dev_overrides, no init, no registry)
# applies examples/quickstart, checks that a second plan (after a refresh) is empty, imports the
# VPC again into a fresh state by its string id, and destroys everything.
#
# Usage: scripts/cli-smoke.sh [CLI]   (default: the terraform found by scripts/lib.sh)
#   e.g. scripts/cli-smoke.sh .tools/tofu-1.12.6/tofu   (or `make smoke CLI=...`)
# Environment: EMULATOR_POSTGRES (the emulator's -postgres: auto|on|off, default auto).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_import TF_WORKSPACE TF_DATA_DIR

if [[ $# -gt 0 ]]; then
	[[ -x "$1" ]] || die "$1 is not an executable file"
	cli="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
	require_terraform
	cli="$TERRAFORM"
fi
name="$("$cli" version | sed -n 1p)"
log "CLI: $name ($cli)"
start=$SECONDS

work="$LIB_TMP"
build_provider_and_emulator "$work/plugins"
use_cli_config "$bin_dir" # dev_overrides for the addresses Terraform and OpenTofu give the provider
start_emulator smoke-access smoke-secret smokeproj01 auto -timing instant

tf() { (cd "$dir" && "$cli" "$@" -no-color) >>"$work/cli.log" 2>&1 || { cat "$work/cli.log" >&2; die "$name: $1 failed"; }; }

dir="$work/quickstart"
mkdir -p "$dir"
cp "$repo"/examples/quickstart/*.tf "$dir/"
log "apply examples/quickstart"
tf apply -auto-approve -input=false
# A peering turns active after the apply (an output shows its status): take
# that into the state first, then nothing may change.
tf apply -refresh-only -auto-approve -input=false
log "plan again: expecting no changes"
(cd "$dir" && "$cli" plan -input=false -no-color -detailed-exitcode) >"$work/plan.log" 2>&1 || {
	cat "$work/plan.log" >&2
	die "$name: the plan after apply is not empty"
}
vpc_id="$(cd "$dir" && "$cli" state show -no-color 'dbcloud_vpc.main[0]' | sed -n 's/^[[:space:]]*id[[:space:]]*= "\(.*\)"$/\1/p')"
[[ -n "$vpc_id" ]] || die "$name: no id for dbcloud_vpc.main[0] in state"

log "import the VPC ($vpc_id) into a fresh state by its string id"
dir2="$work/import"
mkdir -p "$dir2"
cp "$repo"/examples/resources/dbcloud_vpc/resource.tf "$dir2/"
# The example's VPC is not the quickstart one: import the quickstart VPC under
# that address; the plan must then only show the example's own differences.
(cd "$dir2" && "$cli" import -input=false -no-color dbcloud_vpc.example "$vpc_id") >>"$work/cli.log" 2>&1 || {
	cat "$work/cli.log" >&2
	die "$name: import failed"
}
(cd "$dir2" && "$cli" state show -no-color dbcloud_vpc.example) | grep "$vpc_id" >/dev/null ||
	die "$name: the imported VPC is not in state"
(cd "$dir2" && "$cli" state rm dbcloud_vpc.example) >>"$work/cli.log" 2>&1

log "destroy"
dir="$work/quickstart"
tf destroy -auto-approve -input=false
left="$(cd "$dir" && "$cli" state list 2>/dev/null || true)"
[[ -z "$left" ]] || die "$name: resources left in state after destroy: $left"
log "$name: apply, empty plan, import and destroy ok ($((SECONDS - start))s)"
