#!/usr/bin/env bash
# plan.sh [PLAN_FILE]: refresh, plan, and save the plan to PLAN_FILE (default
# tfplan) for apply.sh, plus a readable copy in PLAN_FILE.txt for a review
# comment. Exit status 0 whether or not there are changes, 1 on error. In
# GitHub Actions it also sets the step output `changes` (true or false).
#
# Run it in an initialised working directory (`terraform init -input=false`),
# with the provider settings in the environment (DBCLOUD_*).
set -euo pipefail
plan_file="${1:-tfplan}"
export TF_IN_AUTOMATION="${TF_IN_AUTOMATION:-1}"
terraform="${TERRAFORM:-terraform}"

rc=0
"$terraform" plan -input=false -no-color -lock-timeout=10m -detailed-exitcode -out="$plan_file" || rc=$?
case "$rc" in
0) changes=false ;;
2) changes=true ;;
*)
	echo "plan: failed (exit $rc)" >&2
	exit 1
	;;
esac
"$terraform" show -no-color "$plan_file" >"$plan_file.txt"
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
	echo "changes=$changes" >>"$GITHUB_OUTPUT"
fi
echo "plan: saved to $plan_file (changes: $changes)"
