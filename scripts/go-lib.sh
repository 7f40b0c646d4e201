# shellcheck shell=bash
# The Go toolchain and the tool cache of every script, .ci/run and the GNUmakefile. Source it (lib.sh,
# cli-lib.sh, install-go-tool.sh, vulncheck.sh and fuzz.sh do); do not execute it.
#
# GOTOOLCHAIN: the project's Go is go.mod's `toolchain` line, or its `go` line when there is none
# (`go 1.27.3`: go mod tidy drops a toolchain line equal to the go line). It is exported as
# GOTOOLCHAIN=go<version> whatever the environment or `go env` says (a machine's `local` included), so
# that the go on PATH (1.21 or later) runs exactly that release: itself when it is that release, else
# the toolchain the go command fetches once from the Go module proxy into the module cache
# (golang.org/toolchain, verified against the checksum database). Everything the scripts build with
# `go` gets it: this module (the release binaries too), and the tools built from their own modules
# that load this module's code (golangci-lint, govulncheck); the others get THIRD_PARTY_GO, below.
#
# THIRD_PARTY_GO: the Go release that builds the programs the project only runs, from their own
# modules: Terraform, OpenTofu, GoReleaser and actionlint (scripts/cli-lib.sh, install-go-tool.sh).
# Go 1.27 cannot build some of them (OpenTofu 1.12.6 and GoReleaser v2.16.0 require grpc v1.79/v1.80,
# whose HTTP/2 transport uses x/net's http2.TrailerPrefix, which x/net leaves out when built by Go
# 1.27), and their own releases are built with Go 1.26; 1.26.8 builds them all. The tools that load
# this module's code (golangci-lint, govulncheck) are built with the project's Go: they must be at
# least as new as the code they read. Set in the GNUmakefile.
#
# DBCLOUD_CACHE: where the tools and CLIs built from their Go modules are kept by version, outside
# the clone, so that every clone and every CI run on the machine reuses them (golangci-lint,
# goreleaser, actionlint, govulncheck and its database, Terraform and OpenTofu; the clone's bin/ and
# .tools/ hold links into it). Go's os.UserCacheDir: $XDG_CACHE_HOME, else ~/.cache (macOS:
# ~/Library/Caches), then terraform-provider-dbcloud/. Set DBCLOUD_CACHE to put it elsewhere;
# removing it is always safe (the next build makes what it needs again).

go_lib_gomod="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/go.mod"
GO_PROJECT_VERSION="$(sed -n 's/^toolchain go\([0-9][0-9.]*\)[[:space:]]*$/\1/p' "$go_lib_gomod")"
[[ -n "$GO_PROJECT_VERSION" ]] ||
	GO_PROJECT_VERSION="$(sed -n 's/^go \([0-9][0-9.]*\)[[:space:]]*$/\1/p' "$go_lib_gomod")"
if [[ ! "$GO_PROJECT_VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	printf 'ERROR: %s has no go line of a Go release (go X.Y.Z): cannot choose the toolchain\n' "$go_lib_gomod" >&2
	exit 1
fi
export GOTOOLCHAIN="go$GO_PROJECT_VERSION"
export THIRD_PARTY_GO="${THIRD_PARTY_GO:-1.26.8}"

# user_cache_dir: Go's os.UserCacheDir.
user_cache_dir() {
	if [[ "$(uname -s)" == Darwin ]]; then
		echo "$HOME/Library/Caches"
	elif [[ "${XDG_CACHE_HOME:-}" == /* ]]; then
		echo "$XDG_CACHE_HOME"
	else
		echo "${HOME:?neither XDG_CACHE_HOME nor HOME is set}/.cache"
	fi
}
export DBCLOUD_CACHE="${DBCLOUD_CACHE:-$(user_cache_dir)/terraform-provider-dbcloud}"

# link_into LINK TARGET: makes LINK a symbolic link to TARGET (atomically, replacing a link or a
# file there; a directory left by an older layout is removed first).
link_into() {
	local link="$1" target="$2"
	mkdir -p "$(dirname "$link")"
	if [[ -d "$link" && ! -L "$link" ]]; then
		rm -rf "$link"
	fi
	ln -sfn "$target" "$link.tmp.$$"
	mv -Tf "$link.tmp.$$" "$link"
}
