#!/usr/bin/env bash
# Runs the fenced blocks of the documentation pages as a reader copies them
# (internal/pagetest; its README says how a page opts in and declares its steps):
# each page in a fresh directory against a fresh API emulator, with the provider
# built from this repository through the README's private CLI configuration
# (dev_overrides, no `terraform init`). Then the runner's own negative fixtures
# (internal/pagetest/testdata), each of which must fail. Part of `make test`.
#
#   scripts/guides-test.sh                 every page of docs/
#   scripts/guides-test.sh PAGE.md...      only these pages (no fixtures)
#
# The last line is "guides: N passed, M failed". Environment: BIN_DIR (provider
# build, default ./bin), EMULATOR_POSTGRES (the emulators' -postgres, default auto),
# GUIDES_VERBOSE=1 (print every block's output), GUIDES_JOBS (pages run at once, default 2; each has
# its own directory and emulator, and its output is printed whole, in page order).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_output TF_CLI_ARGS_test TF_WORKSPACE TF_DATA_DIR

require_terraform
bin_dir="${BIN_DIR:-$PWD/bin}"
mkdir -p "$bin_dir"
bin_dir="$(cd "$bin_dir" && pwd)"
log "building the provider, the emulator and the page runner"
go build -o "$bin_dir/terraform-provider-dbcloud" .
go build -o "$LIB_TMP/dbcloud-emulator" ./internal/emulator/cmd/emulator
go build -o "$LIB_TMP/pagetest" ./internal/pagetest/cmd/pagetest

next_tf="${TOOLS_DIR:-$PWD/.tools}/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform"
[[ -x "$next_tf" ]] || next_tf=""
tofu="${TOOLS_DIR:-$PWD/.tools}/tofu-${TOFU_VERSION:-1.12.6}/tofu"
[[ -x "$tofu" ]] || tofu=""

pages=("$@")
fixtures=()
if [[ ${#pages[@]} -eq 0 ]]; then
	mapfile -t pages < <(find docs -name '*.md' | sort)
	mapfile -t fixtures < <(find internal/pagetest/testdata -name '*.md' | sort)
fi

verbose=()
[[ "${GUIDES_VERBOSE:-}" == 1 ]] && verbose=(-v)
"$LIB_TMP/pagetest" -name guides -jobs "${GUIDES_JOBS:-2}" -terraform "$TERRAFORM" -terraform-next "$next_tf" -tofu "$tofu" \
	-provider-dir "$bin_dir" -emulator "$LIB_TMP/dbcloud-emulator" -postgres "${EMULATOR_POSTGRES:-auto}" \
	"${verbose[@]}" "${pages[@]}" "${fixtures[@]}"
