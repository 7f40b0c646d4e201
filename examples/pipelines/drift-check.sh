#!/usr/bin/env bash
# drift-check.sh: compare the real objects with the state, without changing
# anything (`plan -refresh-only`). Exit status: 0 no drift, 2 drift (something
# was changed outside Terraform: the output shows what), 1 error.
#
# A scheduled job runs it; exit 2 should alert someone, who then either runs the
# pipeline (plan.sh and apply.sh put the configuration back) or changes the
# configuration to match.
set -euo pipefail
export TF_IN_AUTOMATION="${TF_IN_AUTOMATION:-1}"
terraform="${TERRAFORM:-terraform}"
plan_file="$(mktemp "${TMPDIR:-/tmp}/drift.XXXXXX")"
trap 'rm -f "$plan_file"' EXIT

rc=0
# -lock=false: a read-only check must not wait for, or block, an apply.
"$terraform" plan -refresh-only -detailed-exitcode -input=false -no-color -lock=false -out="$plan_file" || rc=$?

# Terraform 1.11 (1.16 does not) can exit 2 from a refresh-only plan when nothing
# drifted, only because the state lists a resource's sensitive attributes in
# another order. Count what the plan really shows changed (needs jq).
if [[ $rc -eq 2 ]] && command -v jq >/dev/null 2>&1; then
	changed="$("$terraform" show -json "$plan_file" | jq '[(.resource_drift // [])[],
		((.output_changes // {}) | to_entries[] | select(.value.actions != ["no-op"]))] | length')"
	if [[ "$changed" == 0 ]]; then
		echo "drift-check: terraform exited 2 but its plan shows no changed object or output: no drift"
		rc=0
	fi
fi

case "$rc" in
0) echo "drift-check: no drift" ;;
2) echo "drift-check: DRIFT: objects changed outside Terraform (see above)" ;;
*) echo "drift-check: failed (exit $rc)" >&2 ;;
esac
exit "$rc"
