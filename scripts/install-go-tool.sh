#!/usr/bin/env bash
# Usage: scripts/install-go-tool.sh NAME MODULE/PATH VERSION BIN_DIR
#   e.g. scripts/install-go-tool.sh goreleaser github.com/goreleaser/goreleaser/v2 v2.16.0 bin
# Builds a Go tool from its Go module (`go install PATH@VERSION`, Go module proxy; never a
# prebuilt binary) into BIN_DIR/NAME, unless BIN_DIR/NAME already is that version of that
# module built with the current Go (read from the binary's build info: `go version -m`).
set -euo pipefail
name="${1:?usage: $0 NAME PACKAGE VERSION BIN_DIR}"
pkg="${2:?usage: $0 NAME PACKAGE VERSION BIN_DIR}"
version="${3:?usage: $0 NAME PACKAGE VERSION BIN_DIR}"
bin_dir="${4:?usage: $0 NAME PACKAGE VERSION BIN_DIR}"
version="v${version#v}"
mkdir -p "$bin_dir"
bin_dir="$(cd "$bin_dir" && pwd)"
tool="$bin_dir/$name"
go_version="$(go env GOVERSION)"

if [[ -x "$tool" ]]; then
	info="$(go version -m "$tool" 2>/dev/null || true)"
	# "<file>: go1.26.8" then "path <pkg>" and "mod <module> <version> <sum>"
	if [[ "$(sed -n 1p <<<"$info")" == *": $go_version" ]] &&
		grep -qE "^[[:space:]]+path[[:space:]]+${pkg}\$" <<<"$info" &&
		grep -qE "^[[:space:]]+mod[[:space:]]+[^[:space:]]+[[:space:]]+${version}[[:space:]]" <<<"$info"; then
		exit 0
	fi
	echo "==> $tool is not $pkg $version built with $go_version: reinstalling"
fi

echo "==> building $name $version into $bin_dir (go install $pkg@$version; the first time takes minutes)"
rm -f "$tool"
start=$SECONDS
GOBIN="$bin_dir" go install "$pkg@$version"
echo "==> $name $version built ($((SECONDS - start))s)"
