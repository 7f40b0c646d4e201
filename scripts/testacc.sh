#!/usr/bin/env bash
# Runs every Go test, the acceptance tests included (TF_ACC=1), against the
# terraform found by scripts/lib.sh (never downloaded), with a private empty CLI
# config; then, as a matrix, the provider package's tests whose behaviour depends
# on the CLI (the list in scripts/cli-matrix.md, which says why) against each
# newer CLI built into .tools/ (`make terraform-next`, `make tofu`) that exists.
# Prints a summary per CLI and the ten slowest tests of all the runs (also written
# to $BIN_DIR/test-slowest.txt, which `make test` prints at its end), and fails
# when any run failed or when a test skipped on the first CLI ran on no other.
# Used by `make test` / `make testacc`.
#
# Environment: TEST_PKGS (default ./...), TEST_TIMEOUT (30m), TEST_P (go test -p,
# packages built/run at once), TEST_PARALLEL (go test -parallel, t.Parallel tests
# at once per package), TESTARGS (extra go test flags, e.g. -run TestAccX; used
# for every CLI), TEST_MATRIX (auto: the extra CLIs that exist; none: only the
# first CLI; or a space-separated list of CLI binaries), TEST_MATRIX_PKGS
# (packages re-run per extra CLI, default ./internal/provider), TEST_MATRIX_ALL
# (1: every test of those packages on each extra CLI, not only the list),
# TEST_OUTAGE_SCALE (the outage tests' windows and backoff, 0.1 of a real
# outage by default; 1 for the reliability guide's figures),
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
logs=()  # one go test -v log per CLI run
names=() # the CLI of each log

# matrix_run_regexp prints the -run pattern of the newer CLIs: the prefixes of the
# cli-matrix block of scripts/cli-matrix.md, as ^(A|B|...).
matrix_run_regexp() {
	local prefixes
	# shellcheck disable=SC2016 # backquotes of the markdown fence, not a command
	prefixes="$(sed -n '/^```cli-matrix$/,/^```$/{/^```/d;p}' scripts/cli-matrix.md | awk 'NF {print $1}' | paste -sd '|')"
	[[ -n "$prefixes" ]] || die "scripts/cli-matrix.md: no cli-matrix block of test names"
	printf '^(%s)' "$prefixes"
}

# run_suite CLI PKGS...: TF_ACC=1 go test of PKGS against the CLI binary.
run_suite() {
	local cli="$1"
	shift
	local name out rc passed failed skipped
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
	) 2>&1 | tee "$LIB_TMP/go-test-${#logs[@]}.log"
	rc=${PIPESTATUS[0]}
	set -e
	out="$LIB_TMP/go-test-${#logs[@]}.log"
	logs+=("$out")
	names+=("$name")
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
matrix_run=()
if [[ "${TEST_MATRIX_ALL:-}" != 1 ]]; then
	# Before TESTARGS: a -run there wins (go test keeps the last one).
	matrix_run=(-run "$(matrix_run_regexp)")
fi
for cli in "${extra[@]}"; do
	echo
	start_suite=$SECONDS
	run_suite "$cli" "${matrix_run[@]}" "${matrix_pkgs[@]}"
done

# slowest: the ten slowest top-level tests of all the runs, with their CLI (how a
# test's time is counted: scripts/slowest.awk).
slowest() {
	local i
	for i in "${!logs[@]}"; do
		awk -v cli="${names[$i]}" -f scripts/slowest.awk "${logs[$i]}"
	done | sort -rn | awk 'NR <= 10'
}

# unmatrixed: the tests of the matrix packages skipped on the first CLI that
# passed on no other CLI (only when every extra CLI ran its list: no TESTARGS).
unmatrixed() {
	[[ ${#logs[@]} -gt 1 && -z "${TESTARGS:-}" ]] || return 0
	local ran pkgs
	ran="$(sed -nE 's/^--- PASS: (Test[^ ]+) .*/\1/p' "${logs[@]:1}" | sort -u)"
	pkgs="$(printf '%s\n' "${matrix_pkgs[@]#./}")"
	# go test -v prints a package's tests, then its "ok" or "FAIL" line.
	awk -v pkgs="$pkgs" '
		BEGIN { n = split(pkgs, want, "\n") }
		/^--- SKIP: Test/ { skipped[++k] = $3 }
		/^(ok|FAIL)[ \t]+[^ \t]+/ {
			for (i = 1; i <= n; i++) if (want[i] != "" && substr($2, length($2) - length(want[i]) + 1) == want[i]) for (j = 1; j <= k; j++) print skipped[j]
			k = 0
		}' "${logs[0]}" | sort -u | comm -23 - <(printf '%s\n' "$ran")
}

echo
log "acceptance matrix (first CLI: ${pkgs[*]}; others: ${matrix_pkgs[*]})"
printf '  %s\n' "${summary[@]}"
if [[ ${#extra[@]} -eq 0 && "$matrix_mode" == auto && -z "$explicit_cli" ]]; then
	echo "  (no newer CLI in .tools/: 'make terraform-next tofu' builds them, then 'make test' runs them too)"
fi
mkdir -p "${BIN_DIR:-bin}"
{
	echo "==> the ten slowest tests (scripts/testacc.sh, all CLIs)"
	slowest
} | tee "${BIN_DIR:-bin}/test-slowest.txt"
orphans="$(unmatrixed)"
if [[ -n "$orphans" ]]; then
	echo "ERROR: skipped on the first CLI and run on no other (add them to the cli-matrix block of scripts/cli-matrix.md):" >&2
	printf '  %s\n' "${orphans//$'\n'/$'\n'  }" >&2
	failures=$((failures + 1))
fi
if [[ $failures -ne 0 ]]; then
	die "go test failed on $failures of $((${#extra[@]} + 1)) CLIs (or a test ran on none)"
fi
