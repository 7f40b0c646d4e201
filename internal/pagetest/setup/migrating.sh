#!/usr/bin/env bash
# Setup of docs/guides/migrating.md: what a reader of the guide has before it starts, a stack that
# the official provider (timescale/timescale) manages. Through the API (the emulator the page runner
# started; DBCLOUD_* in the environment) the objects: a VPC "main" with a peering, two services
# "app-0" and "app-1" attached to it with their connection pooler on, and a service "analytics" with
# an HA replica in the PROD environment. In $PAGETEST_WORKDIR, the reader's directory, the state of
# the guide's configuration "before" as that provider writes it (Terraform's state format 4, every
# attribute of its schema, registry.opentofu.org as its host when `terraform` is OpenTofu) with the
# objects' ids: timescale_vpcs.main, timescale_peering_connection.aws, timescale_service.app[0] and
# [1], and module.analytics's timescale_service.db. TestAccMigratingGuide_example checks that state
# against that provider's schema and the guide's "before" configuration. Writes the ids to
# $PAGETEST_VARS.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # api, until_true, ready

vpc="$(api POST /vpcs '{"name":"main","cidr":"10.10.0.0/16","region_code":"us-east-1"}' | jq -r .id)"
peering="$(api POST "/vpcs/$vpc/peerings" '{"peer_account_id":"123456789012","peer_region_code":"us-east-1","peer_vpc_id":"vpc-0a1b2c3d4e5f67890"}' | jq -r .id)"
declare -A passwords
apps=()
for i in 0 1; do
	created="$(api POST /services "{\"name\":\"app-$i\",\"addons\":[\"time-series\"],\"region_code\":\"us-east-1\",\"cpu_millis\":\"1000\",\"memory_gbs\":\"4\"}")"
	id="$(jq -r .service_id <<<"$created")"
	passwords[$id]="$(jq -r .initial_password <<<"$created")"
	apps+=("$id")
done
created="$(api POST /services '{"name":"analytics","addons":["time-series"],"region_code":"us-east-1","cpu_millis":"2000","memory_gbs":"8","replica_count":1,"environment_tag":"PROD"}')"
analytics="$(jq -r .service_id <<<"$created")"
passwords[$analytics]="$(jq -r .initial_password <<<"$created")"
for id in "${apps[@]}"; do
	ready "$id"
	api POST "/services/$id/attachToVPC" "{\"vpc_id\":\"$vpc\"}" >/dev/null
	ready "$id"
	api POST "/services/$id/enablePooler" >/dev/null
	until_true "/services/$id" '.status == "READY" and .connection_pooler.endpoint.host != null and .vpc_endpoint.vpc_id != null'
done
ready "$analytics"
until_true "/vpcs/$vpc/peerings/$peering" '.status == "active"'

# The official provider's attributes of each object (timescale/timescale v2.13.3: ids of VPCs and
# peerings are numbers; what it reads from its API and our REST API does not show, such as the peer
# VPC's CIDR blocks, is as it would have read it).
service() { # ID [TIMEOUTS-JSON] [VPC-ID]
	api GET "/services/$1" | jq --arg pw "${passwords[$1]}" --argjson timeouts "${2:-null}" --arg vpc "${3:-}" '{
		id: .service_id, name: .name, milli_cpu: .resources[0].spec.cpu_millis, memory_gb: .resources[0].spec.memory_gbs,
		storage_gb: null, enable_ha_replica: null, ha_replicas: .ha_replicas.replica_count,
		sync_replicas: .ha_replicas.sync_replica_count, read_replica_source: null, read_replica_nodes: null,
		timeouts: $timeouts, password: $pw, password_wo: null, password_wo_version: null,
		hostname: .endpoint.host, port: .endpoint.port, replica_hostname: null, replica_port: null,
		pooler_hostname: .connection_pooler.endpoint.host, pooler_port: .connection_pooler.endpoint.port,
		connection_pooler_enabled: (.connection_pooler.endpoint.host != null), data_tiering_enabled: false,
		environment_tag: .metadata.environment, username: "tsdbadmin", region_code: .region_code,
		vpc_id: (if $vpc == "" then null else ($vpc | tonumber) end), paused: (.status == "PAUSED"),
		metric_exporter_id: null, log_exporter_id: null}'
}
instance() { # INDEX-KEY-JSON ATTRIBUTES-JSON: an instance of a resource, schema version 0 or 1
	jq -n --argjson key "$1" --argjson attrs "$2" --argjson version "${3:-0}" '{schema_version: $version, attributes: $attrs,
		sensitive_attributes: (if $attrs | has("password") then [[{type: "get_attr", value: "password"}]] else [] end)}
		+ (if $key == null then {} else {index_key: $key} end)'
}
host=registry.terraform.io
if [[ "$(terraform version 2>/dev/null)" == OpenTofu* ]]; then
	host=registry.opentofu.org
fi
resources="$(mktemp)"
trap 'rm -f "$resources"' EXIT
resource() { # MODULE TYPE NAME INSTANCE-JSON...: appended to $resources
	local mod="$1" type="$2" name="$3"
	shift 3
	jq -n --arg mod "$mod" --arg type "$type" --arg name "$name" --arg provider "provider[\"$host/timescale/timescale\"]" \
		'(if $mod == "" then {} else {"module": $mod} end)
		+ {mode: "managed", type: $type, name: $name, provider: $provider, instances: $ARGS.positional}' --jsonargs "$@" >>"$resources"
}
vpc_attrs="$(api GET "/vpcs/$vpc" | jq --arg project "$DBCLOUD_PROJECT_ID" '{id: (.id | tonumber), name: .name, cidr: .cidr,
	region_code: .region_code, provisioned_id: "vpc-0c0ffee0c0ffee001", project_id: $project, status: "ACTIVE",
	error_message: "", created: "2026-01-12T09:30:00Z", updated: "2026-01-12T09:31:00Z", timeouts: null}')"
peering_attrs="$(api GET "/vpcs/$vpc/peerings/$peering" | jq --arg vpc "$vpc" '{id: (.id | tonumber), timescale_vpc_id: ($vpc | tonumber),
	vpc_id: "vpc-0c0ffee0c0ffee001", provisioned_id: .provisioned_id, accepter_provisioned_id: .provisioned_id,
	status: .status, error_message: null, peer_account_id: .peer_account_id, peer_region_code: .peer_region_code,
	peer_vpc_id: .peer_vpc_id, peer_tgw_id: null, peer_cidr_blocks: ["172.31.0.0/16"], peer_cidr: "deprecated", peering_type: "vpc"}')"
# (Each value is assigned first: set -e does not see a failure inside an argument's $(...).)
vpc_instance="$(instance null "$vpc_attrs")"
peering_instance="$(instance null "$peering_attrs" 1)"
app0="$(service "${apps[0]}" '{"create":"45m"}' "$vpc")"
app0="$(instance 0 "$app0")"
app1="$(service "${apps[1]}" '{"create":"45m"}' "$vpc")"
app1="$(instance 1 "$app1")"
analytics_instance="$(service "$analytics")"
analytics_instance="$(instance null "$analytics_instance")"
resource "" timescale_vpcs main "$vpc_instance"
resource "" timescale_peering_connection aws "$peering_instance"
resource "" timescale_service app "$app0" "$app1"
resource module.analytics timescale_service db "$analytics_instance"
jq -s '{version: 4, terraform_version: "1.10.0", serial: 12, lineage: "3b0f8a52-7d1c-4e5f-9a6b-1c2d3e4f5a6b",
	outputs: {}, resources: ., check_results: null}' "$resources" >"$PAGETEST_WORKDIR/terraform.tfstate"
printf 'VPC_ID=%s\nPEERING_ID=%s\nAPP_0_ID=%s\nAPP_1_ID=%s\nANALYTICS_ID=%s\n' \
	"$vpc" "$peering" "${apps[0]}" "${apps[1]}" "$analytics" >>"$PAGETEST_VARS"
