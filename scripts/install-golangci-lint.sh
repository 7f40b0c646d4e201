#!/usr/bin/env bash
# Usage: scripts/install-golangci-lint.sh VERSION BIN_DIR
# Installs golangci-lint VERSION (v2.x) into BIN_DIR with `go install`, unless
# BIN_DIR/golangci-lint already is that version built with the current Go.
set -euo pipefail
version="${1:?usage: $0 VERSION BIN_DIR}"
bin_dir="${2:?usage: $0 VERSION BIN_DIR}"
version="v${version#v}"
tool="$bin_dir/golangci-lint"
go_version="$(go env GOVERSION)"

if [[ -x "$tool" ]]; then
	have="$("$tool" version 2>/dev/null || true)"
	# "golangci-lint has version 2.15.0 built with go1.26.8 from ..."
	if [[ "$have" == *"version ${version#v} built with ${go_version} "* ]]; then
		exit 0
	fi
	echo "==> $tool is not ${version} built with ${go_version} (${have:-unknown}): reinstalling"
fi

echo "==> installing golangci-lint ${version} into ${bin_dir} (go install; first time takes a minute or two)"
mkdir -p "$bin_dir"
rm -f "$tool" # go install will not overwrite a file that is not a Go binary
start=$SECONDS
GOBIN="$(cd "$bin_dir" && pwd)" \
	go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@${version}"
echo "==> $("$tool" version) ($((SECONDS - start))s)"
