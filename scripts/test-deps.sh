#!/usr/bin/env bash
# Installs what `make test` and `make demo` need beyond Go and Terraform, when it is missing, so that
# both commands work from a fresh clone: PostgreSQL's server binaries and psql (the emulator's real
# databases; the examples' scripts log in with psql), the server headers to build its read-only
# extension (postgres.h under `pg_config --includedir-server`, of the major version the emulator
# runs: postgresql-server-dev-<major>; Debian ships pgxs.mk in the client package, so PGXS alone
# proves nothing), make and the C compiler PGXS uses, PgBouncer (the emulator's poolers), curl, jq
# and unzip (the scripts). Debian's packages, with apt-get; as root (or with passwordless sudo)
# only: otherwise it names what is missing and the command that installs it, and fails. Nothing is
# installed when all is there.
#
# Every tool is looked up on PATH first (pg_config, initdb, psql, pgbouncer, make, the compiler,
# id, sudo, apt-get), so that a test can run this script against a view of a machine made of stubs.
set -euo pipefail

what=()    # what is missing, for the message
missing=() # the Debian packages that add it
need() {
	what+=("$1")
	missing+=("$2")
}

# The pg_config of the server the emulator runs: the one on PATH, else the newest
# /usr/lib/postgresql/<major>/bin/pg_config (as internal/emulator/pgbackend's FindBinDir).
find_pg_config() {
	if command -v pg_config 2>/dev/null; then
		return
	fi
	compgen -G '/usr/lib/postgresql/*/bin/pg_config' | sort -V | tail -1 || true
}

detect() {
	what=()
	missing=()
	command -v curl >/dev/null 2>&1 || need curl curl
	command -v jq >/dev/null 2>&1 || need jq jq
	command -v unzip >/dev/null 2>&1 || need unzip unzip # scripts/release-check.sh
	command -v psql >/dev/null 2>&1 || need psql postgresql-client
	local pg_config major="" bindir=""
	pg_config=$(find_pg_config)
	if [[ -n $pg_config ]]; then
		[[ $("$pg_config" --version 2>/dev/null) =~ PostgreSQL\ ([0-9]+) ]] && major=${BASH_REMATCH[1]}
		bindir=$("$pg_config" --bindir 2>/dev/null || true)
	fi
	if ! command -v initdb >/dev/null 2>&1 && [[ ! -x $bindir/initdb ]] &&
		! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
		need "PostgreSQL's server (initdb)" postgresql
	fi
	if [[ -n $major ]]; then
		local include pgxs
		include=$("$pg_config" --includedir-server 2>/dev/null || true)
		pgxs=$("$pg_config" --pgxs 2>/dev/null || true)
		if [[ -z $include || ! -f $include/postgres.h || -z $pgxs || ! -f $pgxs ]]; then
			need "PostgreSQL $major's server headers (postgres.h in ${include:-?})" "postgresql-server-dev-$major"
		fi
	fi # else: no server yet; its headers are found on the second pass, once it is installed
	command -v make >/dev/null 2>&1 || need make make
	local cc=gcc
	if [[ -n $pg_config ]]; then
		read -r cc _ < <("$pg_config" --cc 2>/dev/null || true) || true
		cc=${cc:-gcc}
	fi
	command -v "$cc" >/dev/null 2>&1 || need "the C compiler $cc" "$(basename "$cc")"
	if ! command -v pgbouncer >/dev/null 2>&1 && [[ ! -x /usr/sbin/pgbouncer ]]; then
		need pgbouncer pgbouncer
	fi
}

detect
[[ ${#missing[@]} -eq 0 ]] && exit 0

install="apt-get install -y ${missing[*]}"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		list=$(printf '%s; ' "${what[@]}")
		printf 'ERROR: missing: %s.\nInstall them as root (run apt-get update first on a fresh machine), then run again:\n  %s\n' \
			"${list%; }" "$install" >&2
		exit 1
	fi
fi
command -v apt-get >/dev/null 2>&1 || {
	echo "ERROR: missing ${what[*]}, and apt-get is not available to install them (${missing[*]})." >&2
	exit 1
}
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq </dev/null
for pass in 1 2; do # the second pass: the server headers of a server installed by the first
	echo "==> installing ${missing[*]} (apt-get)"
	"${sudo[@]}" apt-get install -y -qq "${missing[@]}" </dev/null
	detect
	[[ ${#missing[@]} -eq 0 ]] && exit 0
	[[ $pass -eq 2 ]] || continue
	echo "ERROR: still missing after apt-get install: ${what[*]}" >&2
	exit 1
done
