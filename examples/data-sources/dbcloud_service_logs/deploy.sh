#!/usr/bin/env bash
# Applies the configuration, then prints the service's last errors: after a failed apply, the log is
# read again first (a refresh), so that the errors of the failure are in it.
set -uo pipefail

if terraform apply -input=false -auto-approve; then
  terraform output -json orders_recent_errors
else
  status=$?
  terraform apply -refresh-only -input=false -auto-approve >/dev/null
  terraform output -json orders_recent_errors
  exit "$status"
fi
