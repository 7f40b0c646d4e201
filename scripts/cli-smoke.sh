#!/usr/bin/env bash
# Checks that a Terraform or OpenTofu CLI works with the provider end to end:
# builds the provider and the emulator, starts the emulator on a free loopback
# port, and with a private CLI config (dev_overrides, no init, no registry)
# applies examples/quickstart, checks that a second plan (after a refresh) is empty, imports the
# VPC again into a fresh state by its string id, and destroys everything.
#
# Usage: scripts/cli-smoke.sh [CLI]   (default: the terraform found by scripts/lib.sh)
#   e.g. scripts/cli-smoke.sh .tools/tofu-1.12.6/tofu   (or `make smoke CLI=...`)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
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
emu_pid=""
cleanup() {
	local rc=$?
	if [[ -n "$emu_pid" ]]; then
		kill -TERM "$emu_pid" 2>/dev/null || true
		wait "$emu_pid" 2>/dev/null || true
	fi
	if [[ $rc -ne 0 && -s "$work/emulator.log" ]]; then
		echo "last lines of the emulator log:" >&2
		tail -n 20 "$work/emulator.log" >&2
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT

log "building the provider and the emulator"
mkdir -p "$work/plugins"
go build -o "$work/plugins/terraform-provider-dbcloud" .
go build -o "$work/emulator" ./internal/emulator/cmd/emulator

"$work/emulator" -addr 127.0.0.1:0 -access-key smoke-access -secret-key smoke-secret \
	-projects smokeproj01 -timing instant >"$work/emulator.out" 2>"$work/emulator.log" </dev/null &
emu_pid=$!
base_url=""
for _ in $(seq 300); do
	base_url="$(head -n1 "$work/emulator.out" 2>/dev/null || true)"
	[[ "$base_url" == http://*/v1 ]] && break
	base_url=""
	kill -0 "$emu_pid" 2>/dev/null || die "the emulator exited during start-up"
	sleep 0.1
done
[[ -n "$base_url" ]] || die "the emulator did not print its URL within 30s"
export DBCLOUD_BASE_URL="$base_url" DBCLOUD_ACCESS_KEY=smoke-access DBCLOUD_SECRET_KEY=smoke-secret \
	DBCLOUD_PROJECT_ID=smokeproj01
unset DBCLOUD_ANALYTICS

# dev_overrides for the addresses Terraform and OpenTofu give the provider, with
# and without a source in required_providers.
cfg="$work/cli.tfrc"
{
	echo 'provider_installation {'
	echo '  dev_overrides {'
	for host in registry.terraform.io registry.opentofu.org; do
		for ns in dbcloud hashicorp; do
			printf '    "%s/%s/dbcloud" = "%s"\n' "$host" "$ns" "$work/plugins"
		done
	done
	echo '  }'
	echo '  direct {}'
	echo '}'
} >"$cfg"
export TF_CLI_CONFIG_FILE="$cfg"
unset TF_PLUGIN_CACHE_DIR TF_CLI_ARGS

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
