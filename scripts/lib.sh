# shellcheck shell=bash
# Helpers shared by the build scripts. Source it; do not execute it.
#
# Every script that runs terraform uses a private CLI configuration file made
# here (never ~/.terraformrc, never the caller's TF_CLI_CONFIG_FILE), and none of
# them lets anything download a Terraform binary. Every go command of theirs runs
# the project's Go (GOTOOLCHAIN from go.mod: scripts/go-lib.sh).

# shellcheck source=scripts/go-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-lib.sh"

# The Terraform version the project is tested with (only used in hints).
: "${TERRAFORM_VERSION:=1.11.4}"
# Provider addresses a dev override is written for: the real one, and the
# implied one that a configuration without a required_providers block (such as
# examples/resources/*/resource.tf) resolves `dbcloud_*` resources to.
DBCLOUD_PROVIDER_ADDRS=(registry.terraform.io/dbcloud/dbcloud registry.terraform.io/hashicorp/dbcloud registry.opentofu.org/dbcloud/dbcloud registry.opentofu.org/hashicorp/dbcloud)

export CHECKPOINT_DISABLE=1
export TF_IN_AUTOMATION=1
export TF_INPUT=0

log() { printf '==> %s\n' "$*"; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# A temporary directory removed when the script exits: "$LIB_TMP".
LIB_TMP="$(mktemp -d "${TMPDIR:-/tmp}/dbcloud-build.XXXXXX")"
trap 'rm -rf "$LIB_TMP"' EXIT

# require_terraform: sets TERRAFORM to an executable terraform binary (the one in
# TF_ACC_TERRAFORM_PATH when that is set, else the one on PATH) or fails with a
# hint. Never downloads anything.
require_terraform() {
	if [[ -n "${TF_ACC_TERRAFORM_PATH:-}" ]]; then
		[[ -x "$TF_ACC_TERRAFORM_PATH" ]] ||
			die "TF_ACC_TERRAFORM_PATH=$TF_ACC_TERRAFORM_PATH is not an executable file."
		TERRAFORM="$TF_ACC_TERRAFORM_PATH"
	elif TERRAFORM="$(command -v terraform)"; then
		:
	elif [[ -x "${BIN_DIR:-bin}/terraform" ]]; then
		# fetched by `make terraform`
		TERRAFORM="$(cd "${BIN_DIR:-bin}" && pwd)/terraform"
	else
		cat >&2 <<EOF
ERROR: terraform was not found on PATH.
  The acceptance tests, the docs generator and the examples check run the
  Terraform CLI (tested with ${TERRAFORM_VERSION}); nothing here downloads it.
  - Put a terraform binary on PATH, or
  - set TF_ACC_TERRAFORM_PATH=/path/to/terraform, or
  - on a machine that can reach releases.hashicorp.com, run 'make terraform': it
    fetches the pinned ${TERRAFORM_VERSION} into bin/ with hc-install (which checks
    HashiCorp's signature), and the scripts use bin/terraform from then on.
EOF
		exit 1
	fi
	# terraform-plugin-testing would download this version if TF_ACC_TERRAFORM_PATH
	# did not match it: never let it.
	unset TF_ACC_TERRAFORM_VERSION
	export TERRAFORM
}

# use_cli_config [DEV_OVERRIDE_DIR [ADDRESS=DIR]...]: points TF_CLI_CONFIG_FILE at a fresh private
# CLI config: the one writer of the scripts' dev_overrides (Go code's twin: internal/clitest's CLIConfig).
# Empty without argument; with one, it holds dev_overrides that make terraform (and OpenTofu) use the
# provider binary in DEV_OVERRIDE_DIR (no `terraform init`), for every address of DBCLOUD_PROVIDER_ADDRS;
# each ADDRESS=DIR after it adds the override of another provider (bench.sh: hashicorp/time).
# shellcheck disable=SC2120 # the arguments are optional
use_cli_config() {
	local cfg="$LIB_TMP/terraform.tfrc"
	if [[ $# -eq 0 ]]; then
		: >"$cfg"
	else
		local dir="$1" addr pair
		shift
		{
			echo 'provider_installation {'
			echo '  dev_overrides {'
			for addr in "${DBCLOUD_PROVIDER_ADDRS[@]}"; do
				printf '    "%s" = "%s"\n' "$addr" "$dir"
			done
			for pair in "$@"; do
				[[ "$pair" == ?*=?* ]] || die "use_cli_config: $pair is not ADDRESS=DIR"
				printf '    "%s" = "%s"\n' "${pair%%=*}" "${pair#*=}"
			done
			echo '  }'
			echo '  direct {}'
			echo '}'
		} >"$cfg"
	fi
	export TF_CLI_CONFIG_FILE="$cfg"
	# Keep the user's plugin cache and credentials out of it too.
	unset TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_validate
}

# in_git_work_tree: true when the current directory is inside a git work tree.
in_git_work_tree() {
	command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1
}

# git_clean_or_die PATH MESSAGE: fails with MESSAGE when PATH (file or
# directory) differs from the git index or has untracked files.
git_clean_or_die() {
	local path="$1" msg="$2" untracked
	in_git_work_tree || die "not a git work tree: cannot check $path"
	untracked="$(git ls-files --others --exclude-standard -- "$path")"
	if ! git diff --exit-code --stat -- "$path" || [[ -n "$untracked" ]]; then
		if [[ -n "$untracked" ]]; then
			echo "Untracked files:"
			printf "%s\n" "$untracked" | sed "s/^/  /"
		fi
		die "$msg"
	fi
}
