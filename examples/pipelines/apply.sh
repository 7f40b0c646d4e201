#!/usr/bin/env bash
# apply.sh [PLAN_FILE]: apply the plan plan.sh saved (default tfplan), exactly
# as it was reviewed. Terraform refuses a plan whose state has changed since
# (another apply ran in between: plan again); the provider applies the planned
# values and the next refresh shows whatever else changed in the meantime.
set -euo pipefail
plan_file="${1:-tfplan}"
export TF_IN_AUTOMATION="${TF_IN_AUTOMATION:-1}"
terraform="${TERRAFORM:-terraform}"

[[ -f "$plan_file" ]] || {
	echo "apply: no plan file $plan_file: run plan.sh first" >&2
	exit 1
}
# A saved plan is applied without a prompt; -lock-timeout waits for another
# run that holds the state lock instead of failing at once.
"$terraform" apply -input=false -no-color -lock-timeout=10m "$plan_file"
echo "apply: done"
