#!/usr/bin/env bash
# Builds a pinned OpenTofu CLI from its Go module source (no prebuilt binary is
# downloaded: only the module, through the Go module proxy) into
#   .tools/tofu-<version>/tofu
# and reuses it when it is already there. Prints the binary's path last.
#
# Usage: scripts/build-tofu.sh [VERSION]   (default: $TOFU_VERSION or 1.10.6)
#
# OpenTofu's go.mod has no local `replace` (only one to another remote module),
# so a writable copy of the downloaded module directory builds as is, with the
# flags of its own release build (.goreleaser.yaml): CGO_ENABLED=0, -trimpath,
# -ldflags "-s -w -X .../version.dev=no". -trimpath also lets the Go build
# cache be reused whatever the checkout path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="${1:-${TOFU_VERSION:-1.10.6}}"
version="${version#v}"
module=github.com/opentofu/opentofu
tools="${TOOLS_DIR:-$PWD/.tools}"
out_dir="$tools/tofu-$version"
bin="$out_dir/tofu"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -x "$bin" && "${FORCE:-}" != 1 ]]; then
	if "$bin" version 2>/dev/null | grep -q "^OpenTofu v$version\$"; then
		log "reusing $bin (FORCE=1 rebuilds)"
		echo "$bin"
		exit 0
	fi
fi

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-}"
export CGO_ENABLED=0
start=$SECONDS

log "go mod download $module@v$version"
dir="$(go mod download -json "$module@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -n "$dir" && -d "$dir" ]] || die "go mod download gave no directory for $module@v$version"
if grep -qE '^replace[[:space:]].*=>[[:space:]]*\.' "$dir/go.mod"; then
	die "$module@v$version replaces a module with a local directory: not handled here"
fi

src="$tools/src/tofu-$version"
rm -rf "$src"
mkdir -p "$tools/src"
cp -R "$dir" "$src"
chmod -R u+w "$src"

log "go build tofu v$version (a few minutes on a cold build cache)"
mkdir -p "$out_dir"
(cd "$src" && go build -mod=readonly -trimpath \
	-ldflags "-s -w -X $module/version.dev=no" \
	-o "$bin.tmp" ./cmd/tofu)
mv "$bin.tmp" "$bin"
rm -rf "$src"

got="$("$bin" version | sed -n 1p)"
[[ "$got" == "OpenTofu v$version" ]] || die "built binary reports '$got', expected 'OpenTofu v$version'"
log "built $got in $((SECONDS - start))s: $bin"
echo "$bin"
