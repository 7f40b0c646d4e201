#!/usr/bin/env bash
# Checks the Terraform examples: `terraform fmt -check` over examples/, then
# `terraform validate` in every directory under examples/ holding *.tf files,
# against the provider freshly built into BIN_DIR through dev_overrides in a
# private CLI config (so no `terraform init`, no registry, no lock files).
# Used by `make examples-check` (and `make test`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

examples="${EXAMPLES_DIR:-examples}"
bin_dir="${BIN_DIR:-$PWD/bin}"
mkdir -p "$bin_dir"
bin_dir="$(cd "$bin_dir" && pwd)"

dirs=()
if [[ -d "$examples" ]]; then
	mapfile -t dirs < <(find "$examples" -name .terraform -prune -o -type f -name '*.tf' -printf '%h\n' | sort -u)
fi
if [[ ${#dirs[@]} -eq 0 ]]; then
	log "examples-check: no *.tf files under $examples/ yet: skipped"
	exit 0
fi

require_terraform
color=()
[[ -t 1 && -z "${CI:-}" ]] || color=(-no-color)

log "building the provider into $bin_dir"
go build -o "$bin_dir/terraform-provider-dbcloud" .
use_cli_config "$bin_dir"

log "terraform fmt -check -recursive $examples/"
if ! "$TERRAFORM" fmt -check -recursive -diff "${color[@]}" "$examples/"; then
	die "$examples/ is not formatted: run 'make fmt' (terraform fmt -recursive $examples/)"
fi

# Directories with `action` blocks need Terraform 1.14 or later (`caller`: 1.16):
# they are validated with the Terraform that `make terraform-next` builds (CI
# does), and skipped with a note when it is missing.
next_tf="${TOOLS_DIR:-$PWD/.tools}/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform"
failed=()
for dir in "${dirs[@]}"; do
	tf="$TERRAFORM"
	if grep -qE '^[[:space:]]*action[[:space:]]+"' "$dir"/*.tf; then
		if [[ ! -x "$next_tf" ]]; then
			echo "  skip  $dir (action blocks: needs $next_tf, 'make terraform-next')"
			continue
		fi
		tf="$next_tf"
	fi
	# Keep the dev_overrides warning out of the log; print everything on failure.
	if out="$(cd "$dir" && "$tf" validate "${color[@]}" 2>&1)"; then
		echo "  ok    $dir"
	else
		echo "  FAIL  $dir"
		printf '%s\n' "$out" | sed 's/^/        /'
		failed+=("$dir")
	fi
done
log "examples-check: $((${#dirs[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
if [[ ${#failed[@]} -gt 0 ]]; then
	die "terraform validate failed in: ${failed[*]}"
fi
