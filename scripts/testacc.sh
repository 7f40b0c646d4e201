#!/usr/bin/env bash
# Runs every Go test, the acceptance tests included (TF_ACC=1), against the
# terraform found by scripts/lib.sh (never downloaded), with a private empty CLI
# config; then, as a matrix, the acceptance tests of the provider package again
# against each newer CLI built into .tools/ (`make terraform-next`, `make tofu`)
# that exists. Prints a summary per CLI and fails when any run failed. Used by
# `make test` / `make testacc`.
#
# Environment: TEST_PKGS (default ./...), TEST_TIMEOUT (30m), TEST_P (go test -p,
# packages built/run at once), TEST_PARALLEL (go test -parallel, t.Parallel tests
# at once per package), TESTARGS (extra go test flags, e.g. -run TestAccX; used
# for every CLI), TEST_MATRIX (auto: the extra CLIs that exist; none: only the
# first CLI; or a space-separated list of CLI binaries), TEST_MATRIX_PKGS
# (packages re-run per extra CLI, default ./internal/provider),
# TERRAFORM_NEXT_VERSION (1.16.4), TOFU_VERSION (1.12.6).
# TF_ACC_TERRAFORM_PATH, when set, is the only CLI run (no matrix) unless
# TEST_MATRIX names CLIs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

explicit_cli="${TF_ACC_TERRAFORM_PATH:-}"
require_terraform
use_cli_config
export TF_ACC=1

tools="${TOOLS_DIR:-$PWD/.tools}"
matrix_mode="${TEST_MATRIX:-auto}"
extra=()
case "$matrix_mode" in
none) ;;
auto)
	if [[ -z "$explicit_cli" ]]; then
		for cli in "$tools/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform" \
			"$tools/tofu-${TOFU_VERSION:-1.12.6}/tofu"; do
			[[ -x "$cli" ]] && extra+=("$cli")
		done
	fi
	;;
*)
	# shellcheck disable=SC2206 # a list of paths, word-split on purpose
	extra=($matrix_mode)
	for cli in "${extra[@]}"; do
		[[ -x "$cli" ]] || die "TEST_MATRIX: $cli is not an executable file"
	done
	;;
esac

summary=()
failures=0

# run_suite CLI PKGS...: TF_ACC=1 go test of PKGS against the CLI binary.
run_suite() {
	local cli="$1"
	shift
	local name out start rc passed failed skipped
	name="$("$cli" version | sed -n 1p)"
	set +e
	(
		export TF_ACC_TERRAFORM_PATH="$cli"
		unset TF_ACC_TERRAFORM_VERSION
		if [[ "$name" == OpenTofu* ]]; then
			# terraform-plugin-testing hands the in-process provider to the CLI
			# (TF_REATTACH_PROVIDERS) as registry.terraform.io/-/dbcloud and
			# registry.terraform.io/hashicorp/dbcloud unless told otherwise.
			# OpenTofu rejects the first ("the legacy provider namespace "-" can
			# be used only with hostname registry.opentofu.org": every test fails
			# at init) and resolves `dbcloud` (no source) to
			# registry.opentofu.org/hashicorp/dbcloud, which is then the address
			# the test provider must have.
			export TF_ACC_PROVIDER_HOST="${TF_ACC_PROVIDER_HOST:-registry.opentofu.org}"
			export TF_ACC_PROVIDER_NAMESPACE="${TF_ACC_PROVIDER_NAMESPACE:-hashicorp}"
		fi
		log "CLI: $name ($cli)"
		cmd=(go test -count=1 -v -timeout "${TEST_TIMEOUT:-30m}" -p "${TEST_P:-2}" -parallel "${TEST_PARALLEL:-4}")
		# shellcheck disable=SC2206 # TESTARGS is word-split on purpose
		cmd+=(${TESTARGS:-} "$@")
		log "TF_ACC=1 ${cmd[*]}"
		"${cmd[@]}"
	) 2>&1 | tee "$LIB_TMP/go-test.log"
	rc=${PIPESTATUS[0]}
	set -e
	out="$LIB_TMP/go-test.log"
	count() { grep -cE "^[[:space:]]*--- $1:" "$out" || true; }
	passed="$(count PASS)"
	failed="$(count FAIL)"
	skipped="$(count SKIP)"
	echo
	log "go test summary for $name ($((SECONDS - start_suite))s, exit $rc)"
	# Package lines (ok / FAIL), failed tests, panics, and compile errors.
	grep -E '^(ok |FAIL[[:space:]]|[[:space:]]*--- FAIL|panic:|# )|^[^[:space:]]+\.go:[0-9]+:[0-9]+: ' "$out" | sed 's/^/  /' || true
	echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
	summary+=("$(printf '%-20s %5ss  exit %d  %s passed, %s failed, %s skipped  (%s)' \
		"$name" "$((SECONDS - start_suite))" "$rc" "$passed" "$failed" "$skipped" "${cli#"$PWD"/}")")
	[[ $rc -eq 0 ]] || failures=$((failures + 1))
}

# shellcheck disable=SC2206 # TEST_PKGS is word-split on purpose
pkgs=(${TEST_PKGS:-./...})
start_suite=$SECONDS
run_suite "$TERRAFORM" "${pkgs[@]}"

# shellcheck disable=SC2206 # word-split on purpose
matrix_pkgs=(${TEST_MATRIX_PKGS:-./internal/provider})
for cli in "${extra[@]}"; do
	echo
	start_suite=$SECONDS
	run_suite "$cli" "${matrix_pkgs[@]}"
done

echo
log "acceptance matrix (first CLI: ${pkgs[*]}; others: ${matrix_pkgs[*]})"
printf '  %s\n' "${summary[@]}"
if [[ ${#extra[@]} -eq 0 && "$matrix_mode" == auto && -z "$explicit_cli" ]]; then
	echo "  (no newer CLI in .tools/: 'make terraform-next tofu' builds them, then 'make test' runs them too)"
fi
if [[ $failures -ne 0 ]]; then
	die "go test failed on $failures of $((${#extra[@]} + 1)) CLIs"
fi
