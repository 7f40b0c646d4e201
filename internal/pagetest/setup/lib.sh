# shellcheck shell=bash
# What the setup scripts of pages share (source it: `source "$(dirname "$0")/lib.sh"`): the API of the
# emulator the page runner started, through the DBCLOUD_* settings in the environment.

# api METHOD PATH [BODY]: one request below the project; the answer's body on stdout.
api() {
	local method="$1" path="$2" body="${3:-}"
	curl -sS --fail-with-body -u "$DBCLOUD_ACCESS_KEY:$DBCLOUD_SECRET_KEY" -X "$method" \
		-H 'Content-Type: application/json' ${body:+--data "$body"} \
		"$DBCLOUD_BASE_URL/projects/$DBCLOUD_PROJECT_ID$path"
}

# until_true PATH JQ-FILTER: polls GET PATH (every 0.1s, at most 60s) until the filter answers true.
until_true() {
	local _
	for _ in $(seq 600); do
		[[ "$(api GET "$1" | jq -r "$2")" == true ]] && return 0
		sleep 0.1
	done
	echo "GET $1: not $2 after 60s" >&2
	return 1
}

# ready SERVICE_ID: waits until the service is READY.
ready() { until_true "/services/$1" '.status == "READY"'; }
