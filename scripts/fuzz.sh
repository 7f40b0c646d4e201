#!/usr/bin/env bash
# make fuzz: run every fuzz target of the module (func FuzzXxx in a *_test.go under internal/) for
# FUZZTIME each, one after the other, minimizing each new input for at most FUZZMINIMIZETIME. The
# seed corpora (testdata/fuzz/<FuzzName>/) already run in every `go test`; this explores beyond them,
# from the inputs earlier runs on the machine found (kept in the Go build cache, GOCACHE/fuzz). A
# failing input is written to testdata/fuzz/<FuzzName>/ by go test: commit it with the fix, so that
# it stays a regression test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/go-lib.sh
source scripts/go-lib.sh # GOTOOLCHAIN (Go 1.27 fixed the fuzzing engine's -fuzztime deadline race, go.dev/issue/75804)

FUZZTIME="${FUZZTIME:-5s}"
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-1s}"
FUZZ_PARALLEL="${FUZZ_PARALLEL:-2}"

start=$SECONDS
count=0
while IFS= read -r file; do
	pkg="./$(dirname "$file")"
	while IFS= read -r name; do
		echo "==> fuzz $pkg $name ($FUZZTIME)"
		if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" \
			-parallel "$FUZZ_PARALLEL" </dev/null; then
			echo "FAIL: $name (the failing input is in $pkg/testdata/fuzz/$name/)" >&2
			exit 1
		fi
		count=$((count + 1))
	done < <(grep -hoE '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //')
done < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' internal | sort)
echo "==> fuzz: $count targets, ${FUZZTIME} each, $((SECONDS - start))s in all"
