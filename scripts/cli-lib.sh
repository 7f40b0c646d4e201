# shellcheck shell=bash
# Shared by scripts/build-terraform.sh and scripts/build-tofu.sh: build a pinned CLI from its Go
# module source, through the Go module proxy only (never a prebuilt binary). Source it; do not
# execute it. Logs go to stderr, because those scripts print the binary's path last on stdout.

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

export GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOFLAGS="${GOFLAGS:-}"
export CGO_ENABLED=0

# cli_reuse BIN BANNER: when BIN exists and its `version` says BANNER, prints BIN and exits 0
# (FORCE=1 rebuilds).
cli_reuse() {
	local bin="$1" banner="$2"
	if [[ -x "$bin" && "${FORCE:-}" != 1 ]] && "$bin" version 2>/dev/null | grep -qx "$banner"; then
		log "reusing $bin (FORCE=1 rebuilds)"
		echo "$bin"
		exit 0
	fi
}

# cli_module_dir MODULE VERSION: downloads MODULE@vVERSION and prints the module cache directory.
cli_module_dir() {
	log "go mod download $1@v$2"
	local dir
	dir="$(go mod download -json "$1@v$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	[[ -n "$dir" && -d "$dir" ]] || die "go mod download gave no directory for $1@v$2"
	echo "$dir"
}

# cli_copy DIR SRC: a writable copy of the module directory DIR at SRC.
cli_copy() {
	rm -rf "$2"
	mkdir -p "$(dirname "$2")"
	cp -R "$1" "$2"
	chmod -R u+w "$2"
}

# cli_build SRC PACKAGE MODULE BIN BANNER: builds PACKAGE of the copy SRC with the flags of the
# projects' release builds into BIN, removes SRC, checks that BIN's `version` says BANNER and prints
# BIN. -trimpath lets the Go build cache be reused whatever the checkout path.
cli_build() {
	local src="$1" pkg="$2" module="$3" bin="$4" banner="$5" start=$SECONDS
	log "go build $pkg of $module (a few minutes on a cold build cache)"
	mkdir -p "$(dirname "$bin")"
	(cd "$src" && go build -mod=readonly -trimpath \
		-ldflags "-s -w -X $module/version.dev=no" \
		-o "$bin.tmp" "$pkg")
	mv "$bin.tmp" "$bin"
	rm -rf "$src"
	local got
	got="$("$bin" version | sed -n 1p)"
	[[ "$got" == "$banner" ]] || die "built binary reports '$got', expected '$banner'"
	log "built $got in $((SECONDS - start))s: $bin"
	echo "$bin"
}
