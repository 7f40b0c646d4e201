#!/usr/bin/env bash
# Installs what `make test` and `make demo` need beyond Go and Terraform, when it is missing, so that
# both commands work from a fresh clone: PostgreSQL's server binaries and psql (the emulator's real
# databases; the examples' scripts log in with psql) and the headers to build its read-only extension
# (postgresql-server-dev-<major>, make, gcc), PgBouncer (the emulator's poolers), curl and jq
# (the example pipeline's scripts). Debian's packages, with apt-get; as root (or with passwordless
# sudo) only: otherwise it prints what to install and fails. Nothing is installed when all is there.
set -euo pipefail

missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v unzip >/dev/null 2>&1 || missing+=(unzip) # scripts/release-check.sh
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && ! command -v initdb >/dev/null 2>&1; then
	missing+=(postgresql)
fi
# PGXS and the server's headers for the emulator's read-only extension (internal/emulator/pgbackend),
# of the major version the emulator runs (the newest installed), with make and a C compiler.
major=$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sed 's|/usr/lib/postgresql/\([0-9]*\)/.*|\1|' | sort -n | tail -1 || true)
if [[ -z $major ]]; then
	missing+=(postgresql-server-dev-all)
elif [[ ! -f /usr/lib/postgresql/$major/lib/pgxs/src/makefiles/pgxs.mk ]]; then
	missing+=("postgresql-server-dev-$major")
fi
command -v make >/dev/null 2>&1 || missing+=(make)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
if ! command -v pgbouncer >/dev/null 2>&1 && [[ ! -x /usr/sbin/pgbouncer ]]; then
	missing+=(pgbouncer)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=()
if [[ $(id -u) -ne 0 ]]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo=(sudo -n)
	else
		echo "ERROR: missing Debian packages: ${missing[*]}. Install them (apt-get install ${missing[*]}) and run again." >&2
		exit 1
	fi
fi
command -v apt-get >/dev/null 2>&1 || {
	echo "ERROR: missing ${missing[*]}, and apt-get is not available to install them." >&2
	exit 1
}
echo "==> installing ${missing[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq </dev/null
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" </dev/null
