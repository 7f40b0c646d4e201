#!/usr/bin/env bash
# make vulncheck (part of make lint): known vulnerabilities reachable from the provider, the emulator
# and the module's tools (tfplugindocs, oapi-codegen), with govulncheck against a vulnerability database
# on disk: nothing asks vuln.go.dev. Fails on any reachable vulnerability (govulncheck's exit 3), in a
# module or in the standard library of the project's Go (scripts/go-lib.sh).
#
# The database is built the way vuln.go.dev's is, from the published OSV entries: the
# golang.org/x/vulndb module at VULNDB_VERSION (from the Go module proxy; its data/osv/*.json) turned
# into govulncheck's v1 database layout by vulndb's own cmd/indexdb. govulncheck, indexdb (built with
# the project's Go by scripts/install-go-tool.sh) and the database are kept in the tool cache,
#   $DBCLOUD_CACHE/go-tools/...   and   $DBCLOUD_CACHE/vulndb/<VULNDB_VERSION>/
# so only the first run on a machine fetches and builds them (about 3 minutes; then about 20 s).
#
# A newer database: VULNDB_VERSION=$(go list -m -f '{{.Version}}' golang.org/x/vulndb@latest) (run
# outside this module), then pin it in the GNUmakefile. Arguments replace the default packages
# (./... tool), e.g. scripts/vulncheck.sh -show verbose ./...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/go-lib.sh
source scripts/go-lib.sh # GOTOOLCHAIN, DBCLOUD_CACHE

VULN_VERSION="${VULN_VERSION:-v1.9.0}"
VULNDB_VERSION="${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}"
db="$DBCLOUD_CACHE/vulndb/$VULNDB_VERSION"
log() { printf '==> %s\n' "$*" >&2; }

govulncheck="$(scripts/install-go-tool.sh govulncheck golang.org/x/vuln/cmd/govulncheck "$VULN_VERSION")"

if [[ ! -f "$db/index/modules.json" ]]; then
	indexdb="$(scripts/install-go-tool.sh indexdb golang.org/x/vulndb/cmd/indexdb "$VULNDB_VERSION")"
	log "go mod download golang.org/x/vulndb@$VULNDB_VERSION"
	mkdir -p "$DBCLOUD_CACHE/vulndb"
	tmp="$(mktemp -d "$DBCLOUD_CACHE/vulndb/.build.XXXXXX")"
	trap 'rm -rf "$tmp"' EXIT
	src="$(cd "$tmp" && GOWORK=off go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
	[[ -n "$src" && -d "$src/data/osv" ]] || { echo "ERROR: no data/osv in golang.org/x/vulndb@$VULNDB_VERSION" >&2; exit 1; }
	log "building the database from $(find "$src/data/osv" -name '*.json' | wc -l) OSV entries (indexdb)"
	"$indexdb" -vulns "$src/data/osv" -out "$tmp/db" >&2
	# The OSV files carry zero "modified" times (vuln.go.dev stamps them when it deploys): stamp
	# index/db.json with the snapshot's time, from the pseudo-version (vX.Y.Z-YYYYMMDDhhmmss-commit),
	# which govulncheck reports as the database's date.
	ts="${VULNDB_VERSION#*-}"
	ts="${ts%%-*}"
	if [[ "$ts" =~ ^[0-9]{14}$ ]]; then
		printf '{"modified":"%s-%s-%sT%s:%s:%sZ"}' "${ts:0:4}" "${ts:4:2}" "${ts:6:2}" \
			"${ts:8:2}" "${ts:10:2}" "${ts:12:2}" >"$tmp/db/index/db.json"
		gzip -9 -n -c "$tmp/db/index/db.json" >"$tmp/db/index/db.json.gz"
	fi
	rm -rf "$db"
	mv "$tmp/db" "$db"
fi

[[ $# -gt 0 ]] || set -- ./... tool
log "govulncheck $VULN_VERSION ($GOTOOLCHAIN) $* against golang.org/x/vulndb@$VULNDB_VERSION (file://$db)"
"$govulncheck" -C "$repo" -db "file://$db" "$@"
