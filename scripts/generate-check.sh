#!/usr/bin/env bash
# Regenerates internal/api/client.gen.go from openapi.yaml and fails when the
# result differs from what is committed (staged) in git. Used by `make generate-check`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

gen=internal/api/client.gen.go
log "go generate ./internal/api/..."
go generate ./internal/api/...
git_clean_or_die "$gen" "$gen is stale (differs from git after regenerating from internal/api/openapi.yaml): run 'make generate' and commit it."
log "$gen is up to date"
