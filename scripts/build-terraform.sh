#!/usr/bin/env bash
# Builds a pinned Terraform CLI from its Go module source (no prebuilt binary is
# downloaded: only the module, through the Go module proxy) into
#   .tools/terraform-<version>/terraform
# and reuses it when it is already there. Prints the binary's path last.
#
# Usage: scripts/build-terraform.sh [VERSION]   (default: $TERRAFORM_NEXT_VERSION or 1.14.9)
#
# Why not `go install github.com/hashicorp/terraform@vX`: Terraform's go.mod
# replaces nine remote-state backend modules and internal/legacy with local
# directories that the module zip does not contain, so the go command refuses
# it. Here the module directory is copied to a writable place and each of those
# directories gets a stand-in module: a go.mod naming the module path and one
# file, `func New() backend.Backend { return nil }` for a backend (the
# provider's tests never use a remote state backend: those backends are simply
# unusable in this binary) and an empty package for internal/legacy (imported
# by tests only). The build uses -trimpath, so the Go build cache is reused
# whatever the checkout path; a rebuild after `rm -rf .tools` takes a minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version="${1:-${TERRAFORM_NEXT_VERSION:-1.14.9}}"
version="${version#v}"
module=github.com/hashicorp/terraform
tools="${TOOLS_DIR:-$PWD/.tools}"
out_dir="$tools/terraform-$version"
bin="$out_dir/terraform"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -x "$bin" && "${FORCE:-}" != 1 ]]; then
	if "$bin" version 2>/dev/null | grep -q "^Terraform v$version\$"; then
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

src="$tools/src/terraform-$version"
rm -rf "$src"
mkdir -p "$tools/src"
cp -R "$dir" "$src"
chmod -R u+w "$src"

# Local directory replacements of the go.mod: `replace <path> => ./<dir>`.
stubs=0
while read -r path target; do
	[[ "$target" == ./* ]] || continue
	[[ -d "$src/$target" ]] && die "$target exists in the module: not expected, check $module@v$version"
	mkdir -p "$src/$target"
	pkg="$(basename "$target")"
	pkg="${pkg//-/}"
	printf 'module %s\n\ngo 1.24\n' "$path" >"$src/$target/go.mod"
	case "$path" in
	"$module"/internal/backend/remote-state/*)
		# Same signature as the call in internal/backend/init/init.go: New().
		grep -qE "backend[A-Za-z]+\.New\(\)" "$src/internal/backend/init/init.go" ||
			die "internal/backend/init/init.go no longer calls <backend>.New(): update the stand-in"
		cat >"$src/$target/stub.go" <<EOF
// Package $pkg is a stand-in for a remote-state backend that the Terraform
// module download does not contain; this build cannot use that backend.
package $pkg

import "$module/internal/backend"

func New() backend.Backend { return nil }
EOF
		;;
	*)
		printf '// Package %s is an empty stand-in (imported by tests only).\npackage %s\n' "$pkg" "$pkg" >"$src/$target/doc.go"
		;;
	esac
	stubs=$((stubs + 1))
done < <(sed -n 's/^replace[[:space:]]\{1,\}\([^[:space:]]\{1,\}\)[[:space:]]\{1,\}=>[[:space:]]\{1,\}\(\.[^[:space:]]*\)[[:space:]]*$/\1 \2/p' "$src/go.mod")
log "$stubs stand-in modules for local replace directives"

log "go build terraform v$version (a few minutes on a cold build cache)"
mkdir -p "$out_dir"
(cd "$src" && go build -mod=readonly -trimpath \
	-ldflags "-s -w -X $module/version.dev=no" \
	-o "$bin.tmp" .)
mv "$bin.tmp" "$bin"
rm -rf "$src"

got="$("$bin" version | sed -n 1p)"
[[ "$got" == "Terraform v$version" ]] || die "built binary reports '$got', expected 'Terraform v$version'"
log "built $got in $((SECONDS - start))s: $bin"
echo "$bin"
