# shellcheck shell=bash
# Helpers of the scripts that run terraform against the API emulator (terraform-test.sh,
# pipeline-test.sh, credentials-example-test.sh). Source it after lib.sh; do not execute it.
#
#   build_provider_and_emulator     the provider into BIN_DIR (default ./bin, sets bin_dir) and the
#                                   emulator into $LIB_TMP
#   start_emulator ACCESS SECRET PROJECT POSTGRES [SECONDS]
#                                   starts it on a free loopback port (-timing fast, -postgres
#                                   POSTGRES: on, off or auto), waits for its URL (default 60 s),
#                                   sets emu_pid, base_url and emu_postgres (true when PostgreSQL is
#                                   behind it), exports the DBCLOUD_* settings and points terraform
#                                   at the provider in bin_dir (dev_overrides)
#   stop_emulator                   stops it (also done on exit, with the log's last lines on failure)
#   ok / fail / check / summary     count results; `summary NAME` prints "NAME: N passed, M failed"
#                                   and fails when anything failed

emu_pid=""
emu_log="$LIB_TMP/emulator.log"
passed=0
failed=0

build_provider_and_emulator() {
	bin_dir="${BIN_DIR:-$PWD/bin}"
	mkdir -p "$bin_dir"
	bin_dir="$(cd "$bin_dir" && pwd)"
	log "building the provider and the emulator"
	go build -o "$bin_dir/terraform-provider-dbcloud" .
	go build -o "$LIB_TMP/dbcloud-emulator" ./internal/emulator/cmd/emulator
}

stop_emulator() {
	if [[ -n "$emu_pid" ]]; then
		kill -TERM "$emu_pid" 2>/dev/null || true
		wait "$emu_pid" 2>/dev/null || true
		emu_pid=""
	fi
}

emulator_on_exit() {
	local rc=$?
	stop_emulator
	if [[ $rc -ne 0 && -s "$emu_log" ]]; then
		echo "last lines of the emulator log:" >&2
		tail -n 20 "$emu_log" | sed 's/^/    /' >&2
	fi
	rm -rf "$LIB_TMP"
	exit "$rc"
}
trap emulator_on_exit EXIT

start_emulator() {
	local access="$1" secret="$2" project="$3" postgres="$4" seconds="${5:-60}" t0=$SECONDS
	"$LIB_TMP/dbcloud-emulator" -addr 127.0.0.1:0 -access-key "$access" -secret-key "$secret" \
		-projects "$project" -timing fast -postgres "$postgres" \
		>"$LIB_TMP/emulator.out" 2>"$emu_log" </dev/null &
	emu_pid=$!
	base_url=""
	local _
	for _ in $(seq $((seconds * 10))); do
		base_url="$(head -n1 "$LIB_TMP/emulator.out" 2>/dev/null || true)"
		[[ "$base_url" == http://*/v1 ]] && break
		base_url=""
		kill -0 "$emu_pid" 2>/dev/null || die "the emulator exited during start-up: $(cat "$emu_log")"
		sleep 0.1
	done
	[[ -n "$base_url" ]] || die "the emulator did not print its URL within ${seconds}s."
	emu_postgres=false
	grep -q 'pgbackend: PostgreSQL (' "$emu_log" && emu_postgres=true
	log "emulator on $base_url (PostgreSQL behind it: $emu_postgres; up in $((SECONDS - t0))s)"
	export DBCLOUD_BASE_URL="$base_url" DBCLOUD_ACCESS_KEY="$access" DBCLOUD_SECRET_KEY="$secret" DBCLOUD_PROJECT_ID="$project"
	unset DBCLOUD_ANALYTICS DBCLOUD_USER_AGENT DBCLOUD_MAX_RETRIES DBCLOUD_REQUEST_TIMEOUT
	use_cli_config "$bin_dir"
}

ok() {
	echo "  ok    $*"
	passed=$((passed + 1))
}
fail() {
	echo "  FAIL  $*"
	failed=$((failed + 1))
}
# check DESCRIPTION COMMAND...: runs the command, counts the result.
check() {
	local what="$1"
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
summary() {
	echo "$1: $passed passed, $failed failed"
	[[ $failed -eq 0 ]]
}
