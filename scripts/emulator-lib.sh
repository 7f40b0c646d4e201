# shellcheck shell=bash
# The one way the scripts start the API emulator (terraform-test.sh, pipeline-test.sh,
# credentials-example-test.sh, cli-smoke.sh, demo.sh, bench.sh, release-check.sh); Go code starts it
# with its twin, internal/clitest's StartEmulator. Source it after lib.sh; do not execute it.
#
#   build_provider_and_emulator [DIR]
#                                   the provider into DIR (default BIN_DIR, else ./bin; sets bin_dir)
#                                   and the emulator into $emu_bin
#   start_emulator ACCESS SECRET PROJECT POSTGRES [ARGS...]
#                                   starts $emu_bin (default $LIB_TMP/dbcloud-emulator; an emulator
#                                   started before is stopped first) on a free loopback port with
#                                   -timing fast, -postgres POSTGRES (auto, on or off; the caller's
#                                   EMULATOR_POSTGRES, when set, overrides the script's choice) and
#                                   ARGS (a later flag wins: -timing demo), in a session of its own
#                                   (a Ctrl-C reaches the script, which stops it), its log (stderr) in
#                                   $emu_log. It waits for the URL the emulator writes with -url-file
#                                   once it serves (at most EMULATOR_START_SECONDS, default 90: initdb
#                                   on a loaded machine), sets emu_pid, base_url and emu_postgres (true
#                                   when PostgreSQL is behind it) and exports the DBCLOUD_* settings.
#                                   Returns 1 with the emulator's log on stderr when it exits or does
#                                   not serve in time.
#   stop_emulator                   stops it (SIGTERM, SIGKILL after 30 s); also done on exit, with
#                                   the log's last lines on failure (a script with a trap of its own
#                                   calls it there)
#   ok / fail / check / summary     count results; `summary NAME` prints "NAME: N passed, M failed"
#                                   and fails when anything failed
#
# Point terraform at the provider with use_cli_config "$bin_dir" (lib.sh).

emu_bin="$LIB_TMP/dbcloud-emulator"
emu_pid=""
emu_log="$LIB_TMP/emulator.log"
emu_log_shown=false # start_emulator printed it whole: the exit needs not show its last lines again
passed=0
failed=0

# shellcheck disable=SC2120 # the argument is optional
build_provider_and_emulator() {
	bin_dir="${1:-${BIN_DIR:-$PWD/bin}}"
	mkdir -p "$bin_dir"
	bin_dir="$(cd "$bin_dir" && pwd)"
	log "building the provider and the emulator"
	go build -o "$bin_dir/terraform-provider-dbcloud" .
	go build -o "$emu_bin" ./internal/emulator/cmd/emulator
}

stop_emulator() {
	[[ -n "$emu_pid" ]] || return 0
	kill -TERM "$emu_pid" 2>/dev/null || true
	local _
	for _ in $(seq 300); do
		kill -0 "$emu_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$emu_pid" 2>/dev/null || true
	wait "$emu_pid" 2>/dev/null || true
	emu_pid=""
}

emulator_on_exit() {
	local rc=$?
	stop_emulator
	if [[ $rc -ne 0 && -s "$emu_log" ]] && ! $emu_log_shown; then
		echo "last lines of the emulator log:" >&2
		tail -n 20 "$emu_log" | sed 's/^/    /' >&2
	fi
	rm -rf "$LIB_TMP"
	exit "$rc"
}
trap emulator_on_exit EXIT

start_emulator() {
	local access="$1" secret="$2" project="$3" postgres="${EMULATOR_POSTGRES:-$4}"
	shift 4
	local seconds="${EMULATOR_START_SECONDS:-90}" t0=$SECONDS url_file="$LIB_TMP/emulator.url"
	stop_emulator
	emu_log_shown=false
	rm -f "$url_file" # the emulator removes it too, but only once it runs
	local launcher=()
	command -v setsid >/dev/null 2>&1 && launcher=(setsid)
	"${launcher[@]}" "$emu_bin" -addr 127.0.0.1:0 -access-key "$access" -secret-key "$secret" \
		-projects "$project" -timing fast -postgres "$postgres" "$@" -url-file "$url_file" \
		>/dev/null 2>"$emu_log" </dev/null &
	emu_pid=$!
	while [[ ! -s "$url_file" ]]; do
		if ! kill -0 "$emu_pid" 2>/dev/null; then
			local status=0
			wait "$emu_pid" 2>/dev/null || status=$?
			printf 'ERROR: the emulator (-postgres %s) exited during start-up (status %d):\n' "$postgres" "$status" >&2
			sed 's/^/    /' "$emu_log" >&2
			emu_pid="" emu_log_shown=true
			return 1
		fi
		if ((SECONDS - t0 >= seconds)); then
			printf 'ERROR: the emulator did not serve within %ds (EMULATOR_START_SECONDS); its log:\n' "$seconds" >&2
			sed 's/^/    /' "$emu_log" >&2
			stop_emulator
			emu_log_shown=true
			return 1
		fi
		sleep 0.1
	done
	base_url="$(<"$url_file")"
	emu_postgres=false
	grep -q 'pgbackend: PostgreSQL (' "$emu_log" && emu_postgres=true
	log "emulator on $base_url (-postgres $postgres; PostgreSQL behind it: $emu_postgres; up in $((SECONDS - t0))s)"
	export DBCLOUD_BASE_URL="$base_url" DBCLOUD_ACCESS_KEY="$access" DBCLOUD_SECRET_KEY="$secret" DBCLOUD_PROJECT_ID="$project"
	unset DBCLOUD_ANALYTICS DBCLOUD_USER_AGENT DBCLOUD_MAX_RETRIES DBCLOUD_REQUEST_TIMEOUT
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
