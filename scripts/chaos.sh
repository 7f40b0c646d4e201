#!/usr/bin/env bash
# make chaos: the randomized interruption test (internal/provider/chaos_test.go) over many seeds.
# A stack is created, updated, replaced and destroyed against the emulator with faults injected and
# one SIGINT per command; each command is run again and checked (first-try convergence, empty plan,
# no duplicate, no orphan, nothing left after the destroy).
#
# Environment: SEEDS (run seeds 1..SEEDS, default 50), SEED (a comma-separated list of seeds to
# replay instead, e.g. SEED=17), CHAOS_PARALLEL (seeds at once, default 4), TEST_TIMEOUT (default 2h).
# Prints the per-seed counters, the failures, the summary and the failing seeds; the full go test -v
# log (each interrupted command's diagnostics, each failure in full) is kept in a temporary file
# whose name is printed (CHAOS_LOG to choose it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

require_terraform
use_cli_config
export TF_ACC=1
# The chaos test drives the terraform on PATH: do not point the plugin-testing CLI elsewhere.
unset TF_ACC_TERRAFORM_PATH

if [[ -n "${SEED:-}" ]]; then
	export CHAOS_SEED="$SEED"
	unset CHAOS_SEEDS
	log "chaos: replaying seed(s) $SEED"
else
	export CHAOS_SEEDS="${SEEDS:-50}"
	unset CHAOS_SEED
	log "chaos: seeds 1..$CHAOS_SEEDS"
fi

out="${CHAOS_LOG:-$(mktemp "${TMPDIR:-/tmp}/dbcloud-chaos.XXXXXX")}"
set +e
go test ./internal/provider -run '^TestAccChaos_' -count=1 -v \
	-parallel "${CHAOS_PARALLEL:-4}" -timeout "${TEST_TIMEOUT:-2h}" >"$out" 2>&1
rc=$?
set -e
echo
grep -E 'chaos_test\.go:[0-9]+: seed [0-9]+: runs ' "$out" | sed -E 's/^[[:space:]]*chaos_test\.go:[0-9]+: /  /' | sort -k2,2n || true
echo
grep -E 'chaos_test\.go:[0-9]+: seed [0-9]+, [0-9] ' "$out" | sed -E 's/^[[:space:]]*chaos_test\.go:[0-9]+: /  FAIL /' || true
grep -E 'chaos( summary|: failing)' "$out" | sed -E 's/^[[:space:]]*chaos_test\.go:[0-9]+: /==> /' || true
grep -E '^(ok |FAIL[[:space:]]|panic:)' "$out" || true
log "full log: $out (exit $rc)"
exit "$rc"
