#!/usr/bin/env bash
# Builds a pinned OpenTofu CLI from its Go module source (no prebuilt binary is
# downloaded: only the module, through the Go module proxy) into
#   .tools/tofu-<version>/tofu
# and reuses it when it is already there. Prints the binary's path last.
#
# Usage: scripts/build-tofu.sh [VERSION]   (default: $TOFU_VERSION or 1.12.6)
#
# OpenTofu's go.mod has no local `replace` (only one to another remote module),
# so a writable copy of the downloaded module directory builds as is, with the
# flags of its own release build (.goreleaser.yaml): CGO_ENABLED=0, -trimpath,
# -ldflags "-s -w -X .../version.dev=no". -trimpath also lets the Go build
# cache be reused whatever the checkout path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/cli-lib.sh
source scripts/cli-lib.sh # log, die, cli_reuse, cli_module_dir, cli_copy, cli_build

version="${1:-${TOFU_VERSION:-1.12.6}}"
version="${version#v}"
module=github.com/opentofu/opentofu
tools="${TOOLS_DIR:-$PWD/.tools}"
bin="$tools/tofu-$version/tofu"
banner="OpenTofu v$version"

cli_reuse "$bin" "$banner"
dir="$(cli_module_dir "$module" "$version")"
if grep -qE '^replace[[:space:]].*=>[[:space:]]*\.' "$dir/go.mod"; then
	die "$module@v$version replaces a module with a local directory: not handled here"
fi
cli_copy "$dir" "$tools/src/tofu-$version"
cli_build "$tools/src/tofu-$version" ./cmd/tofu "$module" "$bin" "$banner"
