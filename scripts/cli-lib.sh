# shellcheck shell=bash
# Shared by scripts/build-terraform.sh and scripts/build-tofu.sh: build a pinned CLI from its Go
# module source, through the Go module proxy only (never a prebuilt binary), with Go THIRD_PARTY_GO,
# once per version into the tool cache shared by every clone on the machine,
#   $DBCLOUD_CACHE/clis/<cli>-<version>/<cli>            (scripts/go-lib.sh)
# and link the clone's .tools/<cli>-<version> (or $TOOLS_DIR/...) to that directory: the tests, the
# docs and the page runner find the CLIs there. Source it; do not execute it. Logs go to stderr,
# because those scripts print the binary's path last on stdout.

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# shellcheck source=scripts/go-lib.sh
source scripts/go-lib.sh # THIRD_PARTY_GO, DBCLOUD_CACHE, link_into
export GOTOOLCHAIN="go$THIRD_PARTY_GO" # go-lib.sh says why
export GOFLAGS="${GOFLAGS:-}"
export CGO_ENABLED=0

# cli_is BIN BANNER: BIN exists and its `version` says BANNER.
cli_is() { [[ -x "$1" ]] && "$1" version 2>/dev/null | grep -qx "$2"; }

# cli_reuse LINK CACHED NAME BANNER: when LINK/NAME (the clone's .tools/<cli>-<version>) says BANNER,
# or CACHED/NAME (the cache's build) does and LINK is then linked to CACHED, prints LINK/NAME and
# exits 0. FORCE=1 rebuilds.
cli_reuse() {
	local link="$1" cached="$2" name="$3" banner="$4"
	[[ "${FORCE:-}" == 1 ]] && return 0
	if cli_is "$link/$name" "$banner"; then
		log "reusing $link/$name (FORCE=1 rebuilds)"
	elif cli_is "$cached/$name" "$banner"; then
		link_into "$link" "$cached"
		log "reusing $cached/$name, linked from $link (FORCE=1 rebuilds)"
	else
		return 0
	fi
	echo "$link/$name"
	exit 0
}

# cli_module_dir MODULE VERSION: downloads MODULE@vVERSION and prints the module cache directory.
cli_module_dir() {
	log "go mod download $1@v$2"
	local dir
	# Outside this module, whose go.mod asks for another Go than THIRD_PARTY_GO.
	dir="$(mkdir -p "$DBCLOUD_CACHE" && cd "$DBCLOUD_CACHE" && GOWORK=off go mod download -json "$1@v$2" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	[[ -n "$dir" && -d "$dir" ]] || die "go mod download gave no directory for $1@v$2"
	echo "$dir"
}

# cli_copy DIR NAME: sets CLI_SRC to a writable copy of the module directory DIR in a new directory
# of the cache (its own, so that two clones building at once do not share it), removed at exit.
cli_copy() {
	mkdir -p "$DBCLOUD_CACHE/clis/src"
	CLI_SRC="$(mktemp -d "$DBCLOUD_CACHE/clis/src/$2.XXXXXX")"
	trap 'rm -rf "$CLI_SRC"' EXIT
	cp -R "$1/." "$CLI_SRC"
	chmod -R u+w "$CLI_SRC"
}

# cli_build SRC PACKAGE MODULE LINK CACHED NAME BANNER: builds PACKAGE of the copy SRC with the flags
# of the projects' release builds into CACHED/NAME, removes SRC, checks that its `version` says
# BANNER, links LINK to CACHED and prints LINK/NAME. -trimpath lets the Go build cache be reused
# whatever the copy's path.
cli_build() {
	local src="$1" pkg="$2" module="$3" link="$4" cached="$5" name="$6" banner="$7" start=$SECONDS
	log "go build $pkg of $module with $GOTOOLCHAIN (a few minutes on a cold build cache)"
	mkdir -p "$cached"
	(cd "$src" && go build -mod=readonly -trimpath \
		-ldflags "-s -w -X $module/version.dev=no" \
		-o "$cached/$name.tmp.$$" "$pkg")
	rm -rf "$src"
	local got
	got="$("$cached/$name.tmp.$$" version | sed -n 1p)"
	[[ "$got" == "$banner" ]] || die "built binary reports '$got', expected '$banner'"
	mv -f "$cached/$name.tmp.$$" "$cached/$name" # atomic: a clone building it at once finds a whole binary
	link_into "$link" "$cached"
	log "built $got in $((SECONDS - start))s: $cached/$name, linked from $link"
	echo "$link/$name"
}
