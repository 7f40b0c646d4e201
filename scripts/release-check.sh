#!/usr/bin/env bash
# The provider installed the way users install it (`make release-check`, part of `make test`):
#
#  1. snapshot  GoReleaser (bin/goreleaser, built from its Go module into the tool cache) makes a
#               snapshot release of .goreleaser.yml into dist/ (`release --snapshot
#               --skip=sign,publish`), for RELEASE_TARGETS only (default linux_amd64_v1: the
#               provider and the emulator archive; RELEASE_TARGETS=all builds every platform of
#               .goreleaser.yml). Its version is a release version (SNAPSHOT_VERSION, default the
#               minor release after the last one in CHANGELOG.md), which the examples' `~> 0.2`
#               selects: Terraform never selects goreleaser's default 0.0.0-SNAPSHOT-<commit>.
#  2. layout    what the Terraform Registry requires: archive and binary names, a SHA256SUMS that
#               covers every archive and the manifest (and nothing else) with the right sums, the
#               manifest equal to terraform-registry-manifest.json, and the protocol it names
#               served by the binary (started as a plugin: its go-plugin handshake line).
#  3. install   for Terraform and for OpenTofu, with a private CLI configuration whose only
#               installation method is a filesystem_mirror of those archives (no dev_overrides, no
#               network): every example (examples/quickstart, the guides' examples, the other
#               root modules; not the registry pages' snippets) is copied away and
#               - `init` with no lock file: selects SNAPSHOT_VERSION from the mirror;
#               - `init` again from a lock file holding only the zh: hashes of SHA256SUMS (as a
#                 lock file made from the registry holds): the CLI checks the archive against
#                 them, and adds its h1: hash, which must be the first init's;
#               - `validate`;
#               then examples/quickstart is applied against the emulator from the emulator
#               archive, planned again (no changes) and destroyed; and a lock file whose zh: hash
#               differs from SHA256SUMS must make `init` fail.
#  4. fixtures  scripts/testdata/release-check/*: configurations with a mistake that dev_overrides
#               forgives (a provider without its `source`, a constraint no release satisfies);
#               each must fail step 3 with the CLI's error.
#
# Examples with `action` blocks need Terraform 1.14 or later (.tools/terraform-<next>, `make
# terraform-next`); OpenTofu (.tools/tofu-<version>, `make tofu`) has no actions: those are listed
# as such. An example requiring a provider other than dbcloud (not installable here: no network)
# is initialised with that provider left out (its required_providers entry, provider blocks and
# resources removed from the copy), and not validated: the output says so.
#
# Usage: scripts/release-check.sh [--no-build]   (--no-build: check the existing dist/)
# Prints `release-check: N passed, M failed` last.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh # start_emulator, stop_emulator (ok and the counts are this script's own)
unset TF_CLI_ARGS TF_CLI_ARGS_init TF_CLI_ARGS_validate TF_CLI_ARGS_plan TF_CLI_ARGS_apply \
	TF_CLI_ARGS_destroy TF_WORKSPACE TF_DATA_DIR TF_PLUGIN_CACHE_DIR TOFU_CLI_CONFIG_FILE

build=1
[[ "${1:-}" == "--no-build" ]] && build=0

GORELEASER_VERSION="${GORELEASER_VERSION:-v2.16.0}"
RELEASE_TARGETS="${RELEASE_TARGETS:-linux_amd64_v1}"
dist="${DIST_DIR:-$repo/dist}"
bin_dir="${BIN_DIR:-$repo/bin}"
tools_dir="${TOOLS_DIR:-$repo/.tools}"
name=terraform-provider-dbcloud
work="$LIB_TMP"
color=(-no-color)

if [[ -z "${SNAPSHOT_VERSION:-}" ]]; then
	last="$(grep -m1 -oE '^## \[[0-9]+\.[0-9]+\.[0-9]+\]' CHANGELOG.md | tr -d '#[] ' || true)"
	[[ -n "$last" ]] || die "no released version (## [X.Y.Z]) in CHANGELOG.md: set SNAPSHOT_VERSION"
	IFS=. read -r major minor _ <<<"$last"
	SNAPSHOT_VERSION="$major.$((minor + 1)).0"
fi
version="$SNAPSHOT_VERSION"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "SNAPSHOT_VERSION=$version is not a release version (X.Y.Z)"
pfx="${name}_${version}"

passed=0
failed=0
failures=()
ok() {
	passed=$((passed + 1))
	echo "  ok    $*"
}
# bad KEY MESSAGE
bad() {
	failed=$((failed + 1))
	failures+=("$1")
	echo "  FAIL  $2"
}
timings=()
phase_start=$SECONDS
phase_done() {
	timings+=("$1 $((SECONDS - phase_start))s")
	phase_start=$SECONDS
}

# ---- 1. snapshot ------------------------------------------------------------------
if [[ $build -eq 1 ]]; then
	scripts/install-go-tool.sh goreleaser github.com/goreleaser/goreleaser/v2 "$GORELEASER_VERSION" "$bin_dir" "$THIRD_PARTY_GO" >/dev/null
	phase_done "goreleaser-tool"
	cfg="$repo/.goreleaser.yml"
	if [[ "$RELEASE_TARGETS" != all ]]; then
		# The same configuration, each build restricted to RELEASE_TARGETS (goreleaser's
		# `targets` replaces a build's goos/goarch matrix); the names and files are unchanged.
		cfg="$work/goreleaser.yml"
		awk -v targets="$RELEASE_TARGETS" '
			/^[^[:space:]#]/ { in_builds = ($0 ~ /^builds:/) }
			{ print }
			in_builds && /^  - id: / { n = split(targets, t, ","); printf "    targets: ["; for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? ", " : ""), t[i]; print "]" }
		' .goreleaser.yml >"$cfg"
		[[ "$(grep -c '^    targets: ' "$cfg")" -ge 2 ]] || die "could not restrict the builds of .goreleaser.yml to $RELEASE_TARGETS"
	fi
	log "goreleaser release --snapshot --skip=sign,publish ($version, targets: $RELEASE_TARGETS)"
	if ! SNAPSHOT_VERSION="$version" "$bin_dir/goreleaser" release --snapshot --skip=sign,publish --clean \
		--config "$cfg" >"$work/goreleaser.log" 2>&1; then
		cat "$work/goreleaser.log" >&2
		die "goreleaser failed"
	fi
	phase_done "snapshot"
fi
[[ -d "$dist" ]] || die "$dist does not exist: run without --no-build"

# What the release uploads: the archives and SHA256SUMS of dist/, and the release's extra_files
# (the manifest), which a snapshot does not copy into dist/: they are rendered here from the
# configuration goreleaser ran with (dist/config.yaml).
assets="$work/assets"
mkdir -p "$assets"
for f in "$dist"/*.zip "$dist"/*_SHA256SUMS; do
	[[ -f "$f" ]] && ln -s "$f" "$assets/"
done
while IFS=$'\t' read -r glob tmpl; do
	rendered="$(sed -E "s/\{\{ *\.ProjectName *\}\}/$name/g; s/\{\{ *\.Version *\}\}/$version/g" <<<"$tmpl")"
	if [[ "$rendered" == *"{{"* || ! -f "$glob" ]]; then
		die "release.extra_files: cannot render $glob as $tmpl"
	fi
	ln -s "$repo/$glob" "$assets/$rendered"
done < <(awk '
	/^[^[:space:]]/ { in_release = ($0 ~ /^release:/); in_extra = 0 }
	in_release && /^  extra_files:/ { in_extra = 1; next }
	in_release && /^  [^[:space:]-]/ { in_extra = 0 }
	in_extra && /glob:/ { g = $0; sub(/.*glob:[[:space:]]*/, "", g); gsub(/["\047]/, "", g) }
	in_extra && /name_template:/ { t = $0; sub(/.*name_template:[[:space:]]*/, "", t); gsub(/["\047]/, "", t); print g "\t" t }
' "$dist/config.yaml")
dist_label="${dist#"$repo"/}"
log "release assets (${dist_label}/, and the release's extra_files)"
(cd "$assets" && find -L . -maxdepth 1 -type f -printf '%f\t%s\n' | sort |
	awk -F'\t' '{ printf "  %-60s %10d bytes (%.1f MiB)\n", $1, $2, $2 / 1048576 }')

# ---- 2. layout ----------------------------------------------------------------------
log "layout (Terraform Registry)"
sums="$assets/${pfx}_SHA256SUMS"
manifest="$assets/${pfx}_manifest.json"
mapfile -t zips < <(cd "$assets" && find -L . -maxdepth 1 -type f -name '*.zip' -printf '%f\n' | sort)

if [[ -f "$manifest" ]] && cmp -s "$manifest" terraform-registry-manifest.json &&
	jq -e '.version == 1 and (.metadata.protocol_versions | length > 0)' "$manifest" >/dev/null; then
	ok "${pfx}_manifest.json: the release uploads terraform-registry-manifest.json under this name (release.extra_files)"
else
	bad "manifest" "the release does not upload terraform-registry-manifest.json as ${pfx}_manifest.json (release.extra_files of .goreleaser.yml), or it is not a registry manifest (version 1, metadata.protocol_versions)"
fi

provider_zips=()
for z in "${zips[@]}"; do
	if [[ "$z" =~ ^${name}_${version//./\\.}_([a-z0-9]+)_([a-z0-9]+)\.zip$ ]]; then
		os="${BASH_REMATCH[1]}"
		want="${name}_v${version}"
		[[ "$os" == windows ]] && want="$want.exe"
		# The binary at the top level, and no other provider binary (goreleaser adds README.md,
		# LICENSE and CHANGELOG.md; Terraform ignores them).
		inside="$(unzip -Z1 "$dist/$z" | sort | tr '\n' ' ')"
		if grep -qxF "$want" < <(unzip -Z1 "$dist/$z") && [[ "$(unzip -Z1 "$dist/$z" | grep -c '^terraform-provider-')" == 1 ]]; then
			ok "$z holds $want (archive: $inside)"
		else
			bad "$z" "$z must hold $want and no other terraform-provider-* file; holds: $inside"
		fi
		provider_zips+=("$z")
	elif [[ "$z" =~ ^dbcloud-emulator_${version//./\\.}_[a-z0-9]+_[a-z0-9]+\.zip$ ]]; then
		if [[ "$(unzip -Z1 "$dist/$z" | sort | tr '\n' ' ')" == "LICENSE OFFLINE-TESTING.md dbcloud-emulator " ]]; then
			ok "$z holds dbcloud-emulator, LICENSE, OFFLINE-TESTING.md"
		else
			bad "$z" "$z holds: $(unzip -Z1 "$dist/$z" | tr '\n' ' ')"
		fi
	else
		bad "$z" "unexpected archive name $z (want ${name}_${version}_<os>_<arch>.zip or dbcloud-emulator_${version}_<os>_<arch>.zip)"
	fi
done
for z in "${name}_${version}_linux_amd64.zip" "dbcloud-emulator_${version}_linux_amd64.zip"; do
	[[ -f "$dist/$z" ]] || bad "$z" "$z was not built"
done

if [[ -f "$sums" ]]; then
	listed="$(awk '{ print $2 }' "$sums" | sort | tr '\n' ' ')"
	expected="$(printf '%s\n' "${zips[@]}" "${pfx}_manifest.json" | sort | tr '\n' ' ')"
	if [[ "$listed" == "$expected" ]]; then
		ok "${pfx}_SHA256SUMS lists every archive and the manifest, nothing else ($(wc -l <"$sums") files)"
	else
		bad "SHA256SUMS" "${pfx}_SHA256SUMS lists: $listed; expected: $expected"
	fi
	if out="$(cd "$assets" && sha256sum --strict -c "$(basename "$sums")" 2>&1)"; then
		ok "${pfx}_SHA256SUMS: every sum matches its file"
	else
		bad "SHA256SUMS sums" "sha256sum -c: $out"
	fi
else
	bad "SHA256SUMS" "${pfx}_SHA256SUMS missing"
fi

# The binary for this machine, started as Terraform starts a plugin: it answers with its
# go-plugin handshake line CORE|PROTOCOL|NETWORK|ADDRESS|grpc. Offered 5 and 6, it must pick the
# protocol of the manifest (and of the registry's versions answer, which comes from it).
host_zip="${name}_${version}_$(go env GOOS)_$(go env GOARCH).zip"
if [[ -f "$dist/$host_zip" ]]; then
	mkdir -p "$work/plugin"
	unzip -q -o "$dist/$host_zip" -d "$work/plugin"
	want_proto="$(jq -r '.metadata.protocol_versions | join(",")' terraform-registry-manifest.json)"
	TF_PLUGIN_MAGIC_COOKIE=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2 \
		PLUGIN_PROTOCOL_VERSIONS=5,6 "$work/plugin/${name}_v${version}" >"$work/handshake" 2>"$work/plugin.log" </dev/null &
	plugin_pid=$!
	line=""
	for _ in $(seq 200); do
		line="$(head -n1 "$work/handshake" 2>/dev/null || true)"
		[[ "$line" == *"|grpc"* ]] && break
		kill -0 "$plugin_pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -TERM "$plugin_pid" 2>/dev/null || true
	wait "$plugin_pid" 2>/dev/null || true
	IFS='|' read -r core proto _ _ wire _ <<<"$line"
	if [[ "$core" == 1 && "$wire" == grpc && "$want_proto" == "$proto.0" ]]; then
		ok "$host_zip: the binary serves protocol $proto.0 (handshake: ${line%%|unix*}|...|$wire), as the manifest says"
	else
		bad "handshake" "$host_zip: handshake line '${line}' (manifest: $want_proto); plugin stderr: $(head -c 500 "$work/plugin.log")"
	fi
else
	bad "handshake" "no $host_zip to start on this machine"
fi
phase_done "layout"

# ---- 3. install -----------------------------------------------------------------------
# zh: hashes as a registry states them (from SHA256SUMS), one per provider archive.
zh_hashes=()
if [[ -f "$sums" ]]; then
	mapfile -t zh_hashes < <(awk -v p="${pfx}_" '$2 ~ "^" p ".*\\.zip$" { print "zh:" $1 }' "$sums" | sort)
fi
host_zh="$(awk -v f="$host_zip" '$2 == f { print "zh:" $1 }' "$sums" 2>/dev/null || true)"

tf="$(command -v terraform || true)"
[[ -n "${TF_ACC_TERRAFORM_PATH:-}" ]] && tf="$TF_ACC_TERRAFORM_PATH"
tf_next="$tools_dir/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform"
tofu="$tools_dir/tofu-${TOFU_VERSION:-1.12.6}/tofu"

# release_emulator: the emulator from its archive (emulator-lib.sh's start_emulator), for the
# quickstart's apply. EMULATOR_POSTGRES chooses its -postgres (default auto).
release_emulator() {
	local emu_zip
	emu_zip="dbcloud-emulator_${version}_$(go env GOOS)_$(go env GOARCH).zip"
	[[ -f "$dist/$emu_zip" ]] || { echo "no $dist/$emu_zip" >&2; return 1; }
	mkdir -p "$work/emulator"
	unzip -q -o "$dist/$emu_zip" -d "$work/emulator"
	emu_bin="$work/emulator/dbcloud-emulator"
	start_emulator rc-access rc-secret rcproj00001 auto -timing instant
}

# lock_hashes FILE HOST: the hashes the lock file FILE holds for HOST/dbcloud/dbcloud, one a line.
lock_hashes() {
	awk -v addr="provider \"$2/dbcloud/dbcloud\"" '
		index($0, addr) == 1 { inside = 1; next }
		inside && /^}/ { inside = 0 }
		inside && match($0, /"(h1|zh):[^"]+"/) { print substr($0, RSTART + 1, RLENGTH - 2) }
	' "$1" | sort
}
lock_version() {
	awk -v addr="provider \"$2/dbcloud/dbcloud\"" '
		index($0, addr) == 1 { inside = 1; next }
		inside && /^}/ { inside = 0 }
		inside && $1 == "version" { gsub(/"/, "", $3); print $3 }
	' "$1"
}

# strip_foreign DIR: removes from the copy DIR what belongs to providers other than dbcloud (and
# the built-in terraform provider): their required_providers entries, provider blocks and
# resource, data, ephemeral and list blocks. Prints their sources.
strip_foreign() {
	local dir="$1" f locals
	locals="$(awk '
		/required_providers[[:space:]]*\{/ { inside = 1; depth = 0 }
		inside {
			if (match($0, /^[[:space:]]*[a-zA-Z0-9_-]+[[:space:]]*=[[:space:]]*\{/)) { split($0, a, "="); gsub(/[[:space:]]/, "", a[1]); cur = a[1] }
			if (match($0, /source[[:space:]]*=[[:space:]]*"[^"]+"/)) { s = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", s); sub(/"$/, "", s); print cur "=" s }
			n = gsub(/\{/, "{"); m = gsub(/\}/, "}"); depth += n - m; if (depth <= 0) inside = 0
		}' "$dir"/*.tf | grep -vE '=((registry\.(terraform|opentofu)\.io/)?dbcloud/dbcloud|terraform\.io/builtin/terraform)$' || true)"
	[[ -n "$locals" ]] || return 0
	local entry lname
	while IFS= read -r entry; do
		lname="${entry%%=*}"
		echo "${entry#*=}"
		for f in "$dir"/*.tf; do
			awk -v l="$lname" '
				function opens(s) { return gsub(/\{/, "{", s) - gsub(/\}/, "}", s) }
				skip { depth += opens($0); if (depth <= 0) skip = 0; next }
				$0 ~ "^(resource|data|ephemeral|list)[[:space:]]+\"" l "_" || $0 ~ "^provider[[:space:]]+\"" l "\"" ||
				$0 ~ "^[[:space:]]+" l "[[:space:]]*=[[:space:]]*\\{" {
					depth = opens($0); if (depth > 0) skip = 1; next
				}
				{ print }' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
		done
	done <<<"$locals"
}

# install_check CLI_NAME CLI HOST DIR [apply]: the steps of 3. for the example DIR; returns 1
# (after printing the CLI's output) when one fails.
install_check() {
	local cli_name="$1" cli="$2" host="$3" dir="$4" mode="${5:-}" copy out foreign h1 got want
	copy="$work/ex/$cli_name/$dir"
	rm -rf "$copy" && mkdir -p "$copy"
	(cd "$dir" && tar --exclude=.terraform --exclude=.terraform.lock.hcl --exclude='terraform.tfstate*' -cf - .) | (cd "$copy" && tar -xf -)
	foreign="$(strip_foreign "$copy")"
	if ! out="$(cd "$copy" && "$cli" init -backend=false -input=false "${color[@]}" 2>&1)"; then
		printf '%s\n' "$out" | sed 's/^/        /'
		return 1
	fi
	got="$(lock_version "$copy/.terraform.lock.hcl" "$host")"
	[[ "$got" == "$version" ]] || { echo "        init chose $host/dbcloud/dbcloud ${got:-nothing}, not $version"; return 1; }
	h1="$(lock_hashes "$copy/.terraform.lock.hcl" "$host" | grep '^h1:' || true)"
	[[ -n "$h1" ]] || { echo "        no h1: hash in the lock file"; return 1; }
	# A lock file as `init` against the registry writes it: the zh: hash of every archive.
	{
		printf 'provider "%s/dbcloud/dbcloud" {\n  version = "%s"\n  hashes = [\n' "$host" "$version"
		printf '    "%s",\n' "${zh_hashes[@]}"
		printf '  ]\n}\n'
	} >"$copy/.terraform.lock.hcl"
	rm -rf "$copy/.terraform"
	if ! out="$(cd "$copy" && "$cli" init -backend=false -input=false "${color[@]}" 2>&1)"; then
		echo "        init from a lock file holding SHA256SUMS' zh: hashes failed:"
		printf '%s\n' "$out" | sed 's/^/        /'
		return 1
	fi
	got="$(lock_hashes "$copy/.terraform.lock.hcl" "$host" | tr '\n' ' ')"
	want="$(printf '%s\n' "$h1" "${zh_hashes[@]}" | sort | tr '\n' ' ')"
	[[ "$got" == "$want" ]] || { echo "        lock file hashes: $got; expected: $want"; return 1; }
	if [[ -n "$foreign" ]]; then
		echo "        note: $(tr '\n' ' ' <<<"$foreign")left out (not installable on this machine): init only, not validated"
	elif ! out="$(cd "$copy" && "$cli" validate "${color[@]}" 2>&1)"; then
		printf '%s\n' "$out" | sed 's/^/        /'
		return 1
	fi
	[[ "$mode" == apply ]] || return 0

	# Apply, plan again, destroy: with the provider init installed from the archive.
	[[ -x "$copy/.terraform/providers/$host/dbcloud/dbcloud/$version/$(go env GOOS)_$(go env GOARCH)/${name}_v${version}" ]] ||
		{ echo "        init did not install the archive's binary"; return 1; }
	local step
	for step in "apply -auto-approve" "plan -detailed-exitcode" "destroy -auto-approve"; do
		# shellcheck disable=SC2086 # step holds a subcommand and its flags
		if ! out="$(cd "$copy" && "$cli" $step -input=false "${color[@]}" 2>&1)"; then
			echo "        $cli_name $step failed:"
			printf '%s\n' "$out" | tail -n 30 | sed 's/^/        /'
			return 1
		fi
	done
	# A lock file whose zh: hash is not the archive's: init must refuse the archive.
	printf 'provider "%s/dbcloud/dbcloud" {\n  version = "%s"\n  hashes = ["zh:%064d"]\n}\n' "$host" "$version" 0 >"$copy/.terraform.lock.hcl"
	rm -rf "$copy/.terraform"
	if out="$(cd "$copy" && "$cli" init -backend=false -input=false "${color[@]}" 2>&1)"; then
		echo "        init accepted an archive whose SHA-256 is not the lock file's zh: hash"
		return 1
	fi
	tr -s '\n ' '  ' <<<"$out" | grep -q "match any of the checksums" ||
		{ printf '%s\n' "$out" | sed 's/^/        /'; return 1; }
	return 0
}

# The examples: every directory under examples/ with *.tf files, except the registry pages'
# snippets (examples/<kind>/<name>/ without a required_providers block).
mapfile -t dirs < <(find examples -name .terraform -prune -o -type f -name '*.tf' -printf '%h\n' | sort -u)
examples=()
snippets=0
for dir in "${dirs[@]}"; do
	if [[ "$dir" =~ ^examples/(resources|data-sources|actions|ephemeral-resources|list-resources)/ ]] &&
		! grep -q 'required_providers' "$dir"/*.tf; then
		snippets=$((snippets + 1))
		continue
	fi
	examples+=("$dir")
done
log "examples: ${#examples[@]} root modules; $snippets registry page snippets left to examples-check (no terraform block)"

mirror="$work/mirror"
for host in registry.terraform.io registry.opentofu.org; do
	mkdir -p "$mirror/$host/dbcloud/dbcloud"
	for z in "${provider_zips[@]}"; do
		ln -sf "$dist/$z" "$mirror/$host/dbcloud/dbcloud/$z"
	done
done
cat >"$work/mirror.tfrc" <<EOF
provider_installation {
  filesystem_mirror {
    path = "$mirror"
  }
}
EOF
export TF_CLI_CONFIG_FILE="$work/mirror.tfrc"

release_emulator || bad "emulator" "the emulator from dbcloud-emulator_${version}_linux_amd64.zip did not start (its log is above)"

clis=()
[[ -n "$tf" ]] && clis+=("terraform|$tf|registry.terraform.io")
[[ -n "$tf" ]] || bad "terraform" "no terraform on PATH"
if [[ -x "$tofu" ]]; then
	clis+=("tofu|$tofu|registry.opentofu.org")
else
	bad "tofu" "$tofu is missing: make tofu"
fi
for entry in "${clis[@]}"; do
	IFS='|' read -r cli_name cli host <<<"$entry"
	log "$cli_name: $("$cli" version | sed -n 1p), init from the mirror ($host/dbcloud/dbcloud $version)"
	for dir in "${examples[@]}"; do
		use="$cli"
		label="$cli_name"
		if grep -qE '^[[:space:]]*action[[:space:]]+"' "$dir"/*.tf; then
			if [[ "$cli_name" == tofu ]]; then
				echo "  skip  $cli_name $dir: action blocks, which OpenTofu ${TOFU_VERSION:-1.12.6} does not support"
				continue
			fi
			if [[ ! -x "$tf_next" ]]; then
				bad "$dir" "$dir has action blocks: needs $tf_next (make terraform-next)"
				continue
			fi
			use="$tf_next"
			label="terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}"
		fi
		mode=""
		[[ "$dir" == examples/quickstart && -n "$emu_pid" ]] && mode=apply
		if install_check "$cli_name" "$use" "$host" "$dir" "$mode"; then
			ok "$label $dir: init ($version from the mirror; lock file: h1: and SHA256SUMS' zh:), validate${mode:+, apply, plan (no changes), destroy, a wrong zh: refused}"
		else
			bad "$cli_name $dir" "$label $dir"
		fi
	done
	phase_done "$cli_name"
done
stop_emulator

# ---- 4. fixtures ----------------------------------------------------------------------
# Mistakes that dev_overrides forgives: the check above must fail on each, with this error.
declare -A fixture_error=(
	[missing-source]='/hashicorp/dbcloud was not found'
	[no-matching-version]='no available releases match the given constraints'
)
log "fixtures: each must fail the install check"
for entry in "${clis[@]}"; do
	IFS='|' read -r cli_name cli host <<<"$entry"
	for fx in "${!fixture_error[@]}"; do
		dir="scripts/testdata/release-check/$fx"
		if out="$(install_check "$cli_name" "$cli" "$host" "$dir" 2>&1)"; then
			bad "fixture $fx" "$cli_name $dir passed the check: it must fail"
		elif tr -s '\n[:space:]' ' ' <<<"$out" | grep -qF "${fixture_error[$fx]}"; then
			ok "$cli_name $dir fails: ...${fixture_error[$fx]}..."
		else
			bad "fixture $fx" "$cli_name $dir failed without '${fixture_error[$fx]}':"
			printf '%s\n' "$out" | sed 's/^/        /'
		fi
	done
done
# A second provider this machine cannot install: initialised without it, and said so.
for entry in "${clis[@]}"; do
	IFS='|' read -r cli_name cli host <<<"$entry"
	dir=scripts/testdata/release-check/other-provider
	if out="$(install_check "$cli_name" "$cli" "$host" "$dir" 2>&1)" && grep -q 'cyrilgdn/postgresql left out' <<<"$out"; then
		ok "$cli_name $dir passes, $(sed -n 's/^[[:space:]]*note: //p' <<<"$out")"
	else
		bad "fixture other-provider" "$cli_name $dir must pass with cyrilgdn/postgresql left out:"
		printf '%s\n' "$out" | sed 's/^/        /'
	fi
done
phase_done "fixtures"

log "time: ${timings[*]}"
echo "release-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]] || die "release-check failed: ${failures[*]}"
