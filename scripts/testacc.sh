#!/usr/bin/env bash
# Runs every Go test, the acceptance tests included (TF_ACC=1), against the
# terraform found by scripts/lib.sh (never downloaded), with a private empty CLI
# config, then prints a summary. Used by `make test` / `make testacc`.
#
# Environment: TEST_PKGS (default ./...), TEST_TIMEOUT (30m), TEST_P (go test -p,
# packages built/run at once), TEST_PARALLEL (go test -parallel, t.Parallel tests
# at once per package), TESTARGS (extra go test flags, e.g. -run TestAccX).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

require_terraform
use_cli_config
export TF_ACC=1
export TF_ACC_TERRAFORM_PATH="$TERRAFORM"

pkgs="${TEST_PKGS:-./...}"
log "terraform: $("$TERRAFORM" version | sed -n 1p) ($TERRAFORM)"
cmd=(go test -count=1 -v -timeout "${TEST_TIMEOUT:-30m}" -p "${TEST_P:-2}" -parallel "${TEST_PARALLEL:-4}")
# shellcheck disable=SC2206 # TESTARGS and TEST_PKGS are word-split on purpose
cmd+=(${TESTARGS:-} $pkgs)
log "TF_ACC=1 ${cmd[*]}"

out="$LIB_TMP/go-test.log"
start=$SECONDS
set +e
"${cmd[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
set -e

count() { grep -cE "^[[:space:]]*--- $1:" "$out" || true; }
passed="$(count PASS)"
failed="$(count FAIL)"
skipped="$(count SKIP)"
echo
log "go test summary ($((SECONDS - start))s, exit $rc)"
# Package lines (ok / FAIL), failed tests, panics, and compile errors.
grep -E '^(ok |FAIL[[:space:]]|[[:space:]]*--- FAIL|panic:|# )|^[^[:space:]]+\.go:[0-9]+:[0-9]+: ' "$out" | sed 's/^/  /' || true
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
if [[ $rc -ne 0 ]]; then
	die "go test failed (exit $rc)"
fi
