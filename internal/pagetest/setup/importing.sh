#!/usr/bin/env bash
# Setup of docs/guides/importing.md: what a reader has before the guide starts,
# objects made in the console or by scripts. Through the API (the emulator the page
# runner started; DBCLOUD_* in the environment): a VPC with a peering, a time-series
# service attached to it with a read replica set, and a plain service. Writes their
# ids to $PAGETEST_VARS for the page's sub= markers.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # api, until_true, ready

vpc_id="$(api POST /vpcs '{"name":"main","cidr":"10.10.0.0/16","region_code":"us-east-1"}' | jq -r .id)"
api POST "/vpcs/$vpc_id/peerings" '{"peer_account_id":"123456789012","peer_region_code":"us-east-1","peer_vpc_id":"vpc-0a1b2c3d4e5f67890"}' >/dev/null
metrics="$(api POST /services '{"name":"metrics","addons":["time-series"],"region_code":"us-east-1","cpu_millis":"1000","memory_gbs":"4"}' | jq -r .service_id)"
orders="$(api POST /services '{"name":"orders","addons":[],"region_code":"us-east-1","cpu_millis":"1000","memory_gbs":"4"}' | jq -r .service_id)"
ready "$metrics"
ready "$orders"
api POST "/services/$metrics/attachToVPC" "{\"vpc_id\":\"$vpc_id\"}" >/dev/null
ready "$metrics"
replica_set="$(api POST "/services/$metrics/replicaSets" '{"name":"reader","nodes":1,"cpu_millis":1000,"memory_gbs":4}' | jq -r .id)"
until_true "/services/$metrics/replicaSets" '.[0].status == "active"'
printf 'SERVICE_ID=%s\nOTHER_SERVICE_ID=%s\nREPLICA_SET_ID=%s\nVPC_ID=%s\n' "$metrics" "$orders" "$replica_set" "$vpc_id" >>"$PAGETEST_VARS"
