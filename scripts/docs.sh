#!/usr/bin/env bash
# Usage: scripts/docs.sh [--check]
# Generates docs/ from the provider schema, templates/ and examples/ with
# tfplugindocs (a `go tool` of this module). With --check, then fails when docs/
# differs from git or has untracked files. Used by `make docs` / `make docs-check`.
#
# tfplugindocs needs the Terraform CLI to read the schema. Without --tf-version
# it uses the first `terraform` on PATH and only downloads the latest release when
# there is none; require_terraform makes sure there is one (and puts the one in
# TF_ACC_TERRAFORM_PATH first on PATH when that is set), so it never downloads.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

check=false
case "${1:-}" in
--check) check=true ;;
"") ;;
*) die "usage: $0 [--check]" ;;
esac

require_terraform
if [[ "$(command -v terraform || true)" != "$TERRAFORM" ]]; then
	mkdir -p "$LIB_TMP/tfbin"
	ln -s "$TERRAFORM" "$LIB_TMP/tfbin/terraform"
	export PATH="$LIB_TMP/tfbin:$PATH"
fi
# tfplugindocs runs `terraform init -plugin-dir` on its own build of the provider:
# an empty CLI config keeps the user's dev_overrides and mirrors out of it.
use_cli_config

log "tfplugindocs generate --provider-name dbcloud (terraform: $TERRAFORM)"
go tool tfplugindocs generate --provider-name dbcloud

log "tfplugindocs validate"
go tool tfplugindocs validate --provider-name dbcloud

if $check; then
	git_clean_or_die docs "docs/ is stale: run make docs and commit"
	log "docs/ is up to date"
fi
