#!/usr/bin/env bash
# Builds a pinned OpenTofu CLI from its Go module source (no prebuilt binary is
# downloaded: only the module, through the Go module proxy) once per version into
# the tool cache shared by every clone, $DBCLOUD_CACHE/clis/tofu-<version>/
# (scripts/go-lib.sh), and links the clone's .tools/tofu-<version> to it:
#   .tools/tofu-<version>/tofu
# It reuses that binary, or the cache's, when it is already there. Prints the
# binary's path last.
#
# Usage: scripts/build-tofu.sh [VERSION]   (default: $TOFU_VERSION or 1.12.6)
#
# OpenTofu's go.mod has no local `replace` (only one to another remote module),
# so a writable copy of the downloaded module directory builds as is, with the
# flags of its own release build (.goreleaser.yaml): CGO_ENABLED=0, -trimpath,
# -ldflags "-s -w -X .../version.dev=no". -trimpath also lets the Go build
# cache be reused whatever the copy's path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/cli-lib.sh
source scripts/cli-lib.sh # log, die, cli_reuse, cli_module_dir, cli_copy, cli_build

version="${1:-${TOFU_VERSION:-1.12.6}}"
version="${version#v}"
module=github.com/opentofu/opentofu
link="${TOOLS_DIR:-$PWD/.tools}/tofu-$version"
cached="$DBCLOUD_CACHE/clis/tofu-$version"
banner="OpenTofu v$version"

cli_reuse "$link" "$cached" tofu "$banner"
dir="$(cli_module_dir "$module" "$version")"
if grep -qE '^replace[[:space:]].*=>[[:space:]]*\.' "$dir/go.mod"; then
	die "$module@v$version replaces a module with a local directory: not handled here"
fi
cli_copy "$dir" "tofu-$version"
cli_build "$CLI_SRC" ./cmd/tofu "$module" "$link" "$cached" tofu "$banner"
