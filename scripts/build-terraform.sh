#!/usr/bin/env bash
# Builds a pinned Terraform CLI from its Go module source (no prebuilt binary is
# downloaded: only the module, through the Go module proxy) once per version into
# the tool cache shared by every clone, $DBCLOUD_CACHE/clis/terraform-<version>/
# (scripts/go-lib.sh), and links the clone's .tools/terraform-<version> to it:
#   .tools/terraform-<version>/terraform
# It reuses that binary, or the cache's, when it is already there. Prints the
# binary's path last.
#
# Usage: scripts/build-terraform.sh [VERSION]   (default: $TERRAFORM_NEXT_VERSION or 1.16.4)
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
# whatever the copy's path; after `rm -rf .tools` the cache's binary is linked
# again (no build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/cli-lib.sh
source scripts/cli-lib.sh # log, die, cli_reuse, cli_module_dir, cli_copy, cli_build

version="${1:-${TERRAFORM_NEXT_VERSION:-1.16.4}}"
version="${version#v}"
module=github.com/hashicorp/terraform
link="${TOOLS_DIR:-$PWD/.tools}/terraform-$version"
cached="$DBCLOUD_CACHE/clis/terraform-$version"
banner="Terraform v$version"

cli_reuse "$link" "$cached" terraform "$banner"
dir="$(cli_module_dir "$module" "$version")"
cli_copy "$dir" "terraform-$version"
src="$CLI_SRC"

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

cli_build "$src" . "$module" "$link" "$cached" terraform "$banner"
