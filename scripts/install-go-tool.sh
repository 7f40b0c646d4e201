#!/usr/bin/env bash
# Usage: scripts/install-go-tool.sh NAME PACKAGE VERSION [LINK_DIR [GO_VERSION]]
#   e.g. scripts/install-go-tool.sh golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint v2.15.0 bin
# Builds a Go tool from its Go module (`go install PACKAGE@VERSION` through the Go module proxy;
# never a prebuilt binary) with the project's Go (scripts/go-lib.sh), or with Go GO_VERSION when
# given (THIRD_PARTY_GO for a program that does not load this module's code), into the tool cache,
#   $DBCLOUD_CACHE/go-tools/NAME-VERSION-go<go version>/NAME
# unless it is there already (checked in the binary's build info: `go version -m`), then links
# LINK_DIR/NAME to it when LINK_DIR is not empty (bin/golangci-lint, bin/goreleaser, ...). Prints the
# cached binary's path last. The cache is shared by every clone on the machine: a fresh clone, or a
# CI run, builds a tool once per version and Go release.
set -euo pipefail
# shellcheck source=scripts/go-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-lib.sh" # GOTOOLCHAIN, DBCLOUD_CACHE, link_into
usage="usage: $0 NAME PACKAGE VERSION [LINK_DIR [GO_VERSION]]"
name="${1:?$usage}"
pkg="${2:?$usage}"
version="${3:?$usage}"
link_dir="${4:-}"
if [[ -n "${5:-}" ]]; then
	export GOTOOLCHAIN="go${5#go}"
fi
version="v${version#v}"
go_version="$GOTOOLCHAIN"
dir="$DBCLOUD_CACHE/go-tools/$name-$version-$go_version"
tool="$dir/$name"

# built TOOL: TOOL is PACKAGE at VERSION built with the project's Go.
built() {
	local info
	[[ -x "$1" ]] || return 1
	info="$(go version -m "$1" 2>/dev/null)" || return 1
	# "<file>: go1.27.3" then "path <pkg>" and "mod <module> <version> <sum>"
	[[ "$(sed -n 1p <<<"$info")" == *": $go_version" ]] &&
		grep -qE "^[[:space:]]+path[[:space:]]+${pkg}\$" <<<"$info" &&
		grep -qE "^[[:space:]]+mod[[:space:]]+[^[:space:]]+[[:space:]]+${version}[[:space:]]" <<<"$info"
}

if ! built "$tool"; then
	echo "==> building $name $version with $go_version into $dir (go install $pkg@$version; the first time takes minutes)" >&2
	start=$SECONDS
	mkdir -p "$dir"
	tmp="$(mktemp -d "$dir/.build.XXXXXX")"
	trap 'rm -rf "$tmp"; rmdir "$dir" 2>/dev/null || true' EXIT # (rmdir: nothing left of a failed build)
	# From the cache directory, outside any module or workspace: only the tool's own go.mod counts.
	(cd "$tmp" && GOWORK=off GOBIN="$tmp" go install "$pkg@$version") >&2
	mv -f "$tmp/$name" "$tool" # atomic: a clone building the same tool at once finds a whole binary
	built "$tool" || { echo "ERROR: $tool is not $pkg $version built with $go_version" >&2; exit 1; }
	echo "==> $name $version built ($((SECONDS - start))s)" >&2
fi
if [[ -n "$link_dir" ]]; then
	link_into "$link_dir/$name" "$tool"
fi
echo "$tool"
