#!/usr/bin/env bash
# Usage: scripts/docs.sh [--check]
# Generates docs/ from the provider schema, templates/ and examples/ with
# tfplugindocs (a `go tool` of this module). With --check, then fails when docs/
# differs from git or has untracked files. Used by `make docs` / `make docs-check`.
#
# tfplugindocs needs the Terraform CLI to read the schema. Without --tf-version
# it uses the first `terraform` on PATH and only downloads the latest release when
# there is none; require_terraform makes sure there is one (and puts the one in
# TF_ACC_TERRAFORM_PATH, else .tools/terraform-<next>/terraform, first on PATH),
# so it never downloads. It must be 1.14 or later (actions, list resources).
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

# The schema of actions and list resources is in `terraform providers schema -json`
# only from Terraform 1.14: render with the Terraform that `make terraform-next`
# builds into .tools/ unless TF_ACC_TERRAFORM_PATH names one.
next_tf="${TOOLS_DIR:-$PWD/.tools}/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform"
if [[ -z "${TF_ACC_TERRAFORM_PATH:-}" && -x "$next_tf" ]]; then
	export TF_ACC_TERRAFORM_PATH="$next_tf"
fi
require_terraform
tf_version="$("$TERRAFORM" version -json | sed -n 's/^[[:space:]]*"terraform_version": "\([0-9.]*\).*/\1/p')"
if [[ "$(printf '%s\n1.14.0\n' "$tf_version" | sort -V | head -n1)" != 1.14.0 ]]; then
	die "$TERRAFORM is Terraform ${tf_version:-(unknown)}: the docs of actions and list resources need 1.14 or later. Run 'make terraform-next' (or set TF_ACC_TERRAFORM_PATH)."
fi
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
