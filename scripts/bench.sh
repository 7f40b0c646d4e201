#!/usr/bin/env bash
# `make bench` (after the Go benchmarks): the provider built from this tree, the real terraform and
# the API emulator, measured end to end. It writes the figures into
# templates/guides/performance.md.tmpl (between the bench markers) and regenerates docs/ with
# scripts/docs.sh, so that docs/guides/performance.md is the template's result (make docs-check
# stays consistent; commit both).
#
# Every figure is the median (min..max) of its rounds or runs; a ratio is formed inside one round. It
# is a benchmark, not a test: a missed target is reported in the table ("missed"), never as a failure.
#
# The plan of N services is measured, for each N of BENCH_SERVICES, against the framework's floor in
# the same rounds: N `time_static` of HashiCorp's time provider, a terraform-plugin-framework provider
# like this one (with a much smaller schema). The time provider is built from its Go module (`go
# install` through the Go module proxy into the bench's own temporary GOBIN; no binary is downloaded)
# and used through dev_overrides, like this provider, behind a wrapper that records its CPU and peak
# RSS (/usr/bin/time). The plans of a round run in turn, the services plan first in odd rounds and the
# time_static plan first in even rounds, so that the machine's load weighs on both alike. At the first
# size, N `terraform_data` (served inside Terraform, no plugin at all) and the services plan with
# -refresh=false are measured too.
#
# The states are seeded, not applied (an apply of 5,000 services would take longer than the whole
# bench): one service, one time_static and one terraform_data are applied once as templates; the
# emulator's services are created with one curl (a POST per service on one connection), and each
# Terraform state is its template's instance repeated, each service with its own id, name and created
# time from the emulator's list. The first size's seeded services are checked with a -refresh-only
# plan, which must find nothing to change.
#
# The provider is built with -tags benchhooks (internal/benchhooks): each provider process appends its
# CPU, peak RSS (VmHWM), largest live heap and bytes allocated to DBCLOUD_RUSAGE, and the profiled
# plans write CPU and heap profiles.
#
# Then: the import of BENCH_ADOPT services (import blocks, one apply) and their `terraform query
# -generate-config-out` (Terraform >= 1.14: .tools/terraform-<TERRAFORM_NEXT_VERSION>, else skipped),
# the apply and destroy of a fleet at a set provisioning time, the provider's start-up, the waiting
# model, and the requests of a no-change plan of a mixed stack.
#
# `scripts/bench.sh requests` runs only the request count of a no-change plan of a mixed stack (part 4
# below, at BENCH_MIXED sizes) and writes only its figures: it needs no time provider and takes a
# few minutes. `make bench` runs everything (about 20 minutes on a busy 2-core machine).
#
# Environment: BENCH_SERVICES ("200 1000 5000": the plan sizes, ascending), BENCH_RUNS (3),
# BENCH_PLAN_RUNS (the rounds of plans up to 1,000 services: 7, at least BENCH_RUNS),
# BENCH_LARGE_PLAN_RUNS (the rounds above 1,000 services: 3), BENCH_PROFILE_SERVICES (1000: the size
# whose plans are profiled; one of BENCH_SERVICES), BENCH_PROFILE_PLANS (3: profiled plans, merged),
# BENCH_ADOPT (1000: services imported and queried), BENCH_FLEET (50: the apply and destroy at D),
# BENCH_D_SECONDS (10), BENCH_DELETE_SECONDS (5), BENCH_PARALLELISM (10), BENCH_TIME_VERSION (v0.13.1:
# the hashicorp/time module), BENCH_MIXED ("100 1000": the sizes of the mixed stack, in objects, each
# a multiple of 10), BENCH_NO_DOCS=1 (print the figures, leave templates/ and docs/ alone),
# BENCH_PROFILE_DIR (keep the CPU and heap profiles of the profiled plans and the provider binary
# there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh # log, die, require_terraform, use_cli_config, $LIB_TMP
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh # start_emulator, stop_emulator, $emu_log, $emu_bin
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_WORKSPACE TF_DATA_DIR TF_LOG

MODE="${1:-all}"
case "$MODE" in
all | requests) ;;
*) die "usage: scripts/bench.sh [requests]" ;;
esac
RUNS="${BENCH_RUNS:-3}"
PLAN_RUNS="${BENCH_PLAN_RUNS:-$((RUNS > 7 ? RUNS : 7))}"
LARGE_RUNS="${BENCH_LARGE_PLAN_RUNS:-3}"
PROFILE_PLANS="${BENCH_PROFILE_PLANS:-3}"
PROFILE_N="${BENCH_PROFILE_SERVICES:-1000}"
NPROC="$(nproc 2>/dev/null || echo "?")"
TIME_VERSION="${BENCH_TIME_VERSION:-v0.13.1}"
read -r -a SIZES <<<"${BENCH_SERVICES:-200 1000 5000}"
ADOPT="${BENCH_ADOPT:-1000}"
FLEET="${BENCH_FLEET:-50}"
D="${BENCH_D_SECONDS:-10}"
DEL="${BENCH_DELETE_SECONDS:-5}"
PAR="${BENCH_PARALLELISM:-10}"
read -r -a MIXED <<<"${BENCH_MIXED:-100 1000}"
ACCESS=bench-access SECRET=bench-secret PROJECT=benchproj01

command -v go >/dev/null 2>&1 || die "go is not on PATH."
require_terraform
if [[ "$MODE" == all ]]; then
	for tool in curl jq; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool is not on PATH: the bench seeds the emulator and the states with it (apt-get install $tool)."
	done
	prev=0
	for n in "${SIZES[@]}"; do
		((n > prev)) || die "BENCH_SERVICES must be ascending sizes, not \"${SIZES[*]}\""
		prev=$n
	done
fi

work="$LIB_TMP"
mkdir -p "$work/bin"
log "building the provider and the emulator"
go build -tags benchhooks -o "$work/bin/terraform-provider-dbcloud" .
go build -o "$emu_bin" ./internal/emulator/cmd/emulator
tfv="$("$TERRAFORM" version | sed -n 1p)"
if [[ "$MODE" == all ]]; then
	log "building hashicorp/time $TIME_VERSION from the Go module proxy (go install)"
	mkdir -p "$work/timebin" "$work/timewrap"
	(cd "$work" && GOBIN="$work/timebin" GOFLAGS= go install "github.com/hashicorp/terraform-provider-time@$TIME_VERSION") ||
		die "go install github.com/hashicorp/terraform-provider-time@$TIME_VERSION failed"
	# The time provider behind a wrapper that appends "user_s system_s maxrss_kib" of each of its
	# processes to TIME_RUSAGE (/usr/bin/time's rusage of its own child: a plugin's own getrusage
	# would count Terraform's RSS, which Linux carries over the exec).
	if [[ -x /usr/bin/time ]]; then
		cat >"$work/timewrap/terraform-provider-time" <<EOF
#!/bin/sh
exec /usr/bin/time -a -o "\${TIME_RUSAGE:-/dev/null}" -f '%U %S %M' "$work/timebin/terraform-provider-time" "\$@"
EOF
		chmod +x "$work/timewrap/terraform-provider-time"
	else
		log "/usr/bin/time is missing (apt-get install time): the time provider's CPU and RSS are not measured"
		ln -s "$work/timebin/terraform-provider-time" "$work/timewrap/terraform-provider-time"
	fi
	# The bench's CLI config also overrides hashicorp/time with it (no terraform init).
	use_cli_config "$work/bin" "registry.terraform.io/hashicorp/time=$work/timewrap"
else
	use_cli_config "$work/bin"
fi

# ---- emulator ------------------------------------------------------------------------------
# bench_emulator NAME ARGS...: starts an emulator (emulator-lib.sh's start_emulator) logging every
# request to $work/NAME.log. It keeps its services in memory (-postgres off, whatever
# EMULATOR_POSTGRES says, and no -state file), so that the API takes exactly the times the bench sets:
# a real database behind each service would add its own creation and drop times to D.
bench_emulator() {
	emu_log="$work/$1.log"
	shift
	EMULATOR_POSTGRES=off start_emulator "$ACCESS" "$SECRET" "$PROJECT" off -log "$@"
}

# requests: how many requests the emulator has logged so far.
requests() { grep -c ' -> ' "$emu_log" || true; }

# ---- helpers -------------------------------------------------------------------------------
# tf DIR ARGS...: terraform (TF_BIN, default $TERRAFORM) in DIR, its output appended to DIR/out.log.
tf() {
	local dir="$1" extra=(-no-color -input=false)
	shift
	[[ "$1" == query ]] && extra=(-no-color) # query takes no -input
	(cd "$dir" && "${TF_BIN:-$TERRAFORM}" "$@" "${extra[@]}" >>"$dir/out.log" 2>&1)
}

# timed VAR DIR ARGS...: runs terraform in DIR and sets VAR to the wall time in seconds; $work/cpu
# then holds the CPU milliseconds of terraform and every provider process it started.
timed() {
	local __var="$1" dir="$2"
	shift 2
	local t0 t1
	t0=$(date +%s.%N)
	(
		tf "$dir" "$@" || exit
		times >"$work/times" # not in a pipe: a pipe's subshell has no children's times
		awk 'NR == 2 { printf "%d\n", (ms($1) + ms($2)) }
			function ms(t) { split(t, a, /[ms]/); return (a[1] * 60 + a[2]) * 1000 }' "$work/times" >"$work/cpu"
	) || die "terraform $* failed in $dir: see the tail below$(printf '\n')$(tail -n 30 "$dir/out.log")"
	t1=$(date +%s.%N)
	printf -v "$__var" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

# stat VALUES...: "median (min..max)".
stat() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s (%s..%s)", fmt(m), fmt(v[1]), fmt(v[NR]) }
		function fmt(x) { return (x == int(x) && x < 1000) ? sprintf("%d", x) : (x >= 100 ? sprintf("%.0f", x) : sprintf("%.2f", x)) }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# verdict VALUE LIMIT: "met" or "missed" (lower is better).
verdict() { awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "met" : "**missed**" }'; }
# calc EXPR [NAME=VALUE...]: awk arithmetic, printed with two decimals.
calc() {
	local expr="$1" args=()
	shift
	for a in "$@"; do args+=(-v "$a"); done
	awk "${args[@]}" "BEGIN { printf \"%.2f\", $expr }"
}

# rusage_sum FILE: "cpu_ms maxrss_kib peak_live_heap_kib allocated_kib" over the provider processes
# that wrote FILE (internal/benchhooks: "pid user_ms system_ms maxrss_kib wall_ms live_kib
# allocated_kib goroutines").
rusage_sum() {
	awk '{ cpu += $2 + $3; if ($4 > rss) rss = $4; if ($6 > live) live = $6; alloc += $7 }
		END { printf "%d %d %d %d", cpu, rss, live, alloc }' "$1"
}
# time_rusage_sum FILE: "cpu_ms maxrss_kib" over the time provider's processes (the wrapper's
# "user_s system_s maxrss_kib"); "0 0" when it has none.
time_rusage_sum() {
	[[ -s "$1" ]] || { echo "0 0"; return; }
	awk 'NF == 3 { cpu += ($1 + $2) * 1000; if ($3 > rss) rss = $3 } END { printf "%d %d", cpu, rss }' "$1"
}

services_tf() { # services_tf DIR COUNT
	mkdir -p "$1"
	cat >"$1/main.tf" <<EOF
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
resource "dbcloud_service" "s" {
  count = $2
  name  = "bench-\${count.index}"
}
EOF
}

# ---- 4. requests of a no-change plan of a mixed stack -------------------------------------
# mixed_tf DIR OBJECTS: OBJECTS/10 VPCs with one peering each and 4*OBJECTS/10 services with one read
# replica set each (100 objects: 10 + 10 + 40 + 40).
mixed_tf() {
	local v=$(($2 / 10)) s=$((4 * $2 / 10))
	mkdir -p "$1"
	cat >"$1/main.tf" <<EOF
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
resource "dbcloud_vpc" "v" {
  count       = $v
  name        = "bench-vpc-\${count.index}"
  cidr        = "10.\${floor(count.index / 250)}.\${count.index % 250}.0/24"
  region_code = "us-east-1"
}
resource "dbcloud_vpc_peering" "p" {
  count            = $v
  vpc_id           = dbcloud_vpc.v[count.index].id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-bench\${count.index}"
}
resource "dbcloud_service" "s" {
  count = $s
  name  = "bench-\${count.index}"
}
resource "dbcloud_read_replica_set" "r" {
  count      = $s
  service_id = dbcloud_service.s[count.index].id
  name       = "bench-rs-\${count.index}"
  cpu_millis = 500
  memory_gbs = 2
}
EOF
}

# by_operation FROM: the requests logged after line FROM of the emulator's log, counted by operation.
by_operation() {
	tail -n +"$(($1 + 1))" "$emu_log" | sed -n 's/.* -> [0-9]* (\([A-Za-z]*\),.*/\1/p' | sort | uniq -c |
		awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }'
}

# run_mixed: measures each size of MIXED and sets requests_figures.
run_mixed() {
	local rows="" n dir r0 r1 ops t_apply t_plan replan
	for n in "${MIXED[@]}"; do
		((n % 10 == 0)) || die "BENCH_MIXED sizes must be multiples of 10, not $n"
		log "mixed stack of $n objects: apply (instant API), then a no-change plan"
		bench_emulator "mixed-$n" -timing instant
		dir="$work/mixed-$n"
		mixed_tf "$dir" "$n"
		timed t_apply "$dir" apply -auto-approve -parallelism="$PAR"
		r0=$(requests)
		timed t_plan "$dir" plan -parallelism="$PAR"
		r1=$(requests)
		ops="$(by_operation "$r0")"
		replan="empty"
		(cd "$dir" && "$TERRAFORM" plan -detailed-exitcode -no-color -input=false -parallelism="$PAR" >>"$dir/out.log" 2>&1) ||
			replan="**not empty**"
		log "  $n objects: apply ${t_apply}s; plan ${t_plan}s, $((r1 - r0)) requests ($ops); next plan $replan"
		rows+="| $n ($((n / 10)) VPCs, $((n / 10)) peerings, $((4 * n / 10)) services, $((4 * n / 10)) replica sets) | $((r1 - r0)) | $ops | ${t_plan} s | $replan |"$'\n'
		stop_emulator # the stack lives in the emulator's memory: no destroy needed
	done
	requests_figures="$(
		cat <<EOF
Measured by \`scripts/bench.sh requests\` (part of \`make bench\`) with ${tfv}, the provider built from this
tree and the API emulator (instant API): the requests the emulator logged during one \`terraform plan\`
of a stack with nothing to change, \`-parallelism=${PAR}\`, and whether the next plan was empty.

| objects in state | requests | by operation | plan time | next plan |
|---|---|---|---|---|
${rows}
EOF
	)"
}

# write_figures NAME FILE: replaces what is between the NAME markers of the performance guide's
# template with FILE.
write_figures() {
	local tmpl="$repo/templates/guides/performance.md.tmpl"
	[[ -f "$tmpl" ]] || die "$tmpl is missing"
	grep -q "<!-- $1:begin -->" "$tmpl" || die "$tmpl has no $1 markers"
	awk -v f="$2" -v b="<!-- $1:begin -->" -v e="<!-- $1:end -->" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip { print }' "$tmpl" >"$work/tmpl.new"
	mv "$work/tmpl.new" "$tmpl"
	log "figures written to templates/guides/performance.md.tmpl ($1)"
}

if [[ "$MODE" == requests ]]; then
	run_mixed
	echo
	echo "$requests_figures"
	echo
	if [[ -n "${BENCH_NO_DOCS:-}" ]]; then
		log "BENCH_NO_DOCS is set: templates/ and docs/ left alone"
		exit 0
	fi
	printf '%s\n' "$requests_figures" >"$work/requests.md"
	write_figures bench-requests "$work/requests.md"
	log "regenerating docs/"
	"$repo/scripts/docs.sh" || log "scripts/docs.sh failed: run make docs"
	exit 0
fi

# ---- 1. plan of N services vs N time_static, for each N of SIZES ----------------------------

# seed_services FROM TO: creates the services bench-FROM .. bench-(TO-1) in the running emulator, with
# one curl (a POST per service on one connection; instant API).
seed_services() {
	local from="$1" to="$2" cfg="$work/seed.curl"
	((from < to)) || return 0
	awk -v from="$from" -v to="$to" -v u="$base_url/projects/$PROJECT/services" -v user="$ACCESS:$SECRET" 'BEGIN {
		for (i = from; i < to; i++) {
			if (i > from) print "next"
			printf "url = \"%s\"\nuser = \"%s\"\nheader = \"Content-Type: application/json\"\n", u, user
			printf "data = \"{\\\"name\\\":\\\"bench-%d\\\"}\"\noutput = \"/dev/null\"\nfail\nsilent\nshow-error\n", i
		}
	}' >"$cfg"
	curl -K "$cfg" || die "seeding services bench-$from .. bench-$((to - 1)) failed"
}

# list_services FILE: the emulator's services, as the API lists them, into FILE.
list_services() { curl -sS --fail -u "$ACCESS:$SECRET" "$base_url/projects/$PROJECT/services" >"$1"; }

# repeat_state DIR N: DIR/terraform.tfstate, whose one resource has one instance (the template,
# applied with count = 1, holding "bench-0"), holds N instances: the template's with "bench-INDEX"
# for "bench-0". With the emulator's list of services in $work/list.json, each service's instance also
# takes its id (wherever the template's id appears: hostnames, connection strings) and created time.
repeat_state() {
	local dir="$1" n="$2" list=()
	[[ -s "$work/list.json" ]] && list=(--slurpfile list "$work/list.json")
	jq --argjson n "$n" "${list[@]}" '
		.resources[0].instances[0] as $t
		| ($t.attributes.id) as $tid
		| (if $ARGS.named.list then $ARGS.named.list[0] | map({key: .name, value: .}) | from_entries else {} end) as $by
		| .serial += 1
		| .resources[0].instances = [range($n) as $i | ("bench-\($i)") as $name | $by[$name] as $s
			| $t | walk(if . == "bench-0" then $name else . end)
			| .index_key = $i
			| if $s then walk(if type == "string" then gsub($tid; $s.service_id) else . end) | .attributes.created = $s.created else . end]' \
		"$dir/terraform.tfstate" >"$work/state.new"
	mv "$work/state.new" "$dir/terraform.tfstate"
}

# with_count DIR N: DIR/main.tf with count = N.
with_count() { sed -i -E "s/^( *count *= *)[0-9]+$/\\1$2/" "$1/main.tf"; }

# seed_size N: the emulator (running, holding the templates' service bench-0) and the states of
# $svc, $tstatic and $data (templates applied) at N objects.
seed_size() {
	local n="$1" have
	list_services "$work/list.json"
	have="$(jq length "$work/list.json")"
	seed_services "$have" "$n"
	list_services "$work/list.json"
	[[ "$(jq length "$work/list.json")" == "$n" ]] || die "the emulator lists $(jq length "$work/list.json") services, not $n"
	cp "$svc/template.tfstate" "$svc/terraform.tfstate"
	repeat_state "$svc" "$n"
	with_count "$svc" "$n"
	rm -f "$work/list.json"
	cp "$tstatic/template.tfstate" "$tstatic/terraform.tfstate"
	repeat_state "$tstatic" "$n"
	with_count "$tstatic" "$n"
	cp "$data/template.tfstate" "$data/terraform.tfstate"
	repeat_state "$data" "$n"
	with_count "$data" "$n"
}

log "plan: services vs time_static at ${SIZES[*]} ($PLAN_RUNS rounds up to 1,000 services, $LARGE_RUNS above)"
bench_emulator plan -timing instant
svc="$work/svc"
tstatic="$work/time"
data="$work/data"
services_tf "$svc" 1
mkdir -p "$tstatic" "$data"
cat >"$tstatic/main.tf" <<EOF
terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}
resource "time_static" "t" {
  count    = 1
  triggers = { name = "bench-\${count.index}" }
}
EOF
cat >"$data/main.tf" <<EOF
resource "terraform_data" "d" {
  count = 1
  input = "bench-\${count.index}"
}
EOF
for d in "$svc" "$tstatic" "$data"; do
	tf "$d" apply -auto-approve || die "the template apply failed in $d: $(tail -n 30 "$d/out.log")"
	cp "$d/terraform.tfstate" "$d/template.tfstate"
done

# plan_svc N R: the services plan of round R (sets t, all_cpu, cpu, rss, live, alloc, before, after);
# a plan with changes (-detailed-exitcode 2) fails the bench.
plan_svc() {
	local ru="$work/rusage-$1-$2"
	before=$(requests)
	DBCLOUD_RUSAGE="$ru" timed t "$svc" plan -detailed-exitcode -parallelism="$PAR"
	after=$(requests)
	all_cpu=$(cat "$work/cpu")
	read -r cpu rss live alloc <<<"$(rusage_sum "$ru")"
}
# plan_time N R: the time_static plan (sets tt, time_cpu: Terraform's and the time provider's CPU,
# tcpu and trss: the time provider's CPU and peak RSS).
plan_time() {
	local ru="$work/time-rusage-$1-$2"
	TIME_RUSAGE="$ru" timed tt "$tstatic" plan -detailed-exitcode -parallelism="$PAR"
	time_cpu=$(cat "$work/cpu")
	read -r tcpu trss <<<"$(time_rusage_sum "$ru")"
}

# Figures of the first size (the table of one size, as before): arrays p_*.
p_svc=() p_time=() p_data=() p_ratio=() p_ratio_time=() p_norefresh=() p_cpu=() p_cpu_nr=() p_rss=() p_req=()
p_tfcpu=() p_tfcpu_data=() p_allcpu=() p_allcpu_time=() p_cpu_ratio_time=()
# Figures by size: one table row each (size_rows, mem_rows), and the medians for the growth.
size_rows="" mem_rows="" prev_n=0 prev_rss=0 prev_trss=0 ratio_verdicts=() profile_done=false
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
load_before="$(loadavg)"
first=true
for N in "${SIZES[@]}"; do
	t_seed0=$SECONDS
	seed_size "$N"
	log "  $N services, $N time_static and $N terraform_data seeded in $((SECONDS - t_seed0))s"
	if $first; then
		# The seeded state is what the provider writes: a refresh changes no attribute. (Not plan
		# -refresh-only -detailed-exitcode: it answers 2 for the order of the sensitive paths alone.)
		jq -S '[.resources[].instances[].attributes]' "$svc/terraform.tfstate" >"$work/seeded.json"
		tf "$svc" apply -refresh-only -auto-approve -parallelism="$PAR" || die "the refresh of the seeded services failed: $(tail -n 30 "$svc/out.log")"
		jq -S '[.resources[].instances[].attributes]' "$svc/terraform.tfstate" | diff -u "$work/seeded.json" - >"$work/seeded.diff" ||
			die "the seeded state of $N services differs from what a refresh writes:$(printf '\n')$(head -n 40 "$work/seeded.diff")"
	fi
	rounds=$PLAN_RUNS
	((N > 1000)) && rounds=$LARGE_RUNS
	s_svc=() s_time=() s_ratio=() s_allcpu=() s_allcpu_time=() s_cpu=() s_tcpu=() s_rss=() s_trss=() s_live=() s_alloc=() s_req=()
	for r in $(seq "$rounds"); do
		if ((r % 2)); then
			plan_svc "$N" "$r"
			plan_time "$N" "$r"
		else
			plan_time "$N" "$r"
			plan_svc "$N" "$r"
		fi
		s_svc+=("$t") s_time+=("$tt")
		s_ratio+=("$(calc 'a / b' a="$t" b="$tt")")
		s_allcpu+=("$(calc 'a / n' a="$all_cpu" n="$N")") s_allcpu_time+=("$(calc 'a / n' a="$time_cpu" n="$N")")
		s_cpu+=("$(calc 'c / n' c="$cpu" n="$N")") s_tcpu+=("$(calc 'c / n' c="$tcpu" n="$N")")
		s_rss+=("$(calc 'k / 1024' k="$rss")") s_trss+=("$(calc 'k / 1024' k="$trss")")
		s_live+=("$(calc 'k / 1024' k="$live")") s_alloc+=("$(calc 'k / n' k="$alloc" n="$N")")
		s_req+=("$((after - before))")
		msg="  $N, round $r: services ${t}s, time_static ${tt}s (ratio ${s_ratio[-1]}x), provider CPU ${cpu} vs ${tcpu} ms, peak RSS $((rss / 1024)) vs $((trss / 1024)) MiB, requests $((after - before))"
		if $first; then
			timed td "$data" plan -parallelism="$PAR"
			data_cpu=$(cat "$work/cpu")
			DBCLOUD_RUSAGE="$work/rusage-$N-$r-nr" timed tn "$svc" plan -refresh=false -parallelism="$PAR"
			read -r cpu_nr _ <<<"$(rusage_sum "$work/rusage-$N-$r-nr")"
			p_svc+=("$t") p_time+=("$tt") p_data+=("$td") p_norefresh+=("$tn")
			p_ratio+=("$(calc 'a / b' a="$t" b="$td")")
			p_ratio_time+=("${s_ratio[-1]}")
			p_cpu+=("${s_cpu[-1]}") p_cpu_nr+=("$(calc 'c / n' c="$cpu_nr" n="$N")")
			p_rss+=("${s_rss[-1]}")
			p_tfcpu+=("$(calc '(a - c) / n' a="$all_cpu" c="$cpu" n="$N")")
			p_tfcpu_data+=("$(calc 'a / n' a="$data_cpu" n="$N")")
			p_allcpu+=("${s_allcpu[-1]}") p_allcpu_time+=("${s_allcpu_time[-1]}")
			p_cpu_ratio_time+=("$(calc 'a / b' a="$all_cpu" b="$time_cpu")")
			p_req+=("$(calc 'r / n' r="$((after - before))" n="$N")")
			msg+=", terraform_data ${td}s, -refresh=false ${tn}s"
		fi
		log "$msg"
	done
	ratio_m=$(median "${s_ratio[@]}")
	ratio_verdicts+=("$(verdict "$ratio_m" 1.0)")
	rss_m=$(median "${s_rss[@]}") trss_m=$(median "${s_trss[@]}")
	growth="" tgrowth="" growth_target="" growth_verdict=""
	if ((prev_n > 0)); then
		growth="$(calc '(a - b) * 1024 / (n - m)' a="$rss_m" b="$prev_rss" n="$N" m="$prev_n") KiB"
		tgrowth="$(calc '(a - b) * 1024 / (n - m)' a="$trss_m" b="$prev_trss" n="$N" m="$prev_n") KiB"
		if ((prev_n >= 1000)); then
			growth_target="<= 40 KiB"
			growth_verdict="$(verdict "${growth% KiB}" 40)"
		fi
	fi
	rss_target="" rss_verdict=""
	if ((N == 1000)); then
		rss_target="<= 100 MiB"
		rss_verdict="$(verdict "$rss_m" 100)"
	fi
	size_rows+="| $N | $(stat "${s_svc[@]}") s | $(stat "${s_time[@]}") s | $(stat "${s_ratio[@]}")x | ${ratio_verdicts[-1]} | $(stat "${s_allcpu[@]}") / $(stat "${s_allcpu_time[@]}") ms | $(stat "${s_cpu[@]}") / $(stat "${s_tcpu[@]}") ms | $(stat "${s_req[@]}") | $rounds |"$'\n'
	mem_rows+="| $N | $(stat "${s_rss[@]}") MiB | $rss_target | $rss_verdict | $growth | $growth_target | $growth_verdict | $(stat "${s_trss[@]}") MiB | $tgrowth | $(stat "${s_live[@]}") MiB | $(stat "${s_alloc[@]}") KiB |"$'\n'
	prev_n=$N prev_rss=$rss_m prev_trss=$trss_m
	if ((N == PROFILE_N)); then
		log "profile of $PROFILE_PLANS more plans of $N services (DBCLOUD_CPUPROFILE, DBCLOUD_HEAPPROFILE, merged)"
		mkdir -p "$work/prof"
		for r in $(seq "$PROFILE_PLANS"); do
			DBCLOUD_CPUPROFILE="$work/prof/cpu.%p.pprof" DBCLOUD_HEAPPROFILE="$work/prof/heap.%p.pprof" timed t_prof "$svc" plan -parallelism="$PAR"
		done
		profile_done=true
	fi
	first=false
done
load_after="$(loadavg)"
N0="${SIZES[0]}"

profile_top="" profile_cum="" profile_own="" profile_alloc="" profile_alloc_own="" profile_inuse=""
if $profile_done; then
	pprof_top() {
		local kind="$1"
		shift
		go tool pprof -top "$@" "$work/bin/terraform-provider-dbcloud" "$work"/prof/"$kind".*.pprof 2>/dev/null
	}
	trim() { sed -n '/^ *flat/,$p' | sed -e 's/[[:space:]]*$//'; }
	profile_top="$(pprof_top cpu -nodecount=20 | trim || true)"
	profile_cum="$(pprof_top cpu -cum -nodecount=60 | trim |
		grep -E '^ +flat|dbcloud|framework/internal/fwserver|tfprotov6|fwschema|json|tflog|hclog' | head -n 25 || true)"
	# The provider's own functions (this module's packages), cumulative: where its code spends the plan.
	# (not internal/benchhooks: the bench's own sampling)
	profile_own="$(pprof_top cpu -cum -nodecount=400 | trim | grep -E '^ +flat|terraform-provider-dbcloud/internal' |
		grep -v benchhooks | head -n 16 || true)"
	profile_alloc="$(pprof_top heap -sample_index=alloc_space -nodecount=15 | trim || true)"
	profile_alloc_own="$(pprof_top heap -sample_index=alloc_space -cum -nodecount=400 | trim |
		grep -E '^ +flat|terraform-provider-dbcloud/internal' | grep -v benchhooks | head -n 12 || true)"
	# What the processes held when their live heap was largest: what a plan keeps per object.
	profile_inuse="$(go tool pprof -top -sample_index=inuse_space -nodecount=14 "$work/bin/terraform-provider-dbcloud" \
		"$work"/prof/heap.*.pprof.peak 2>/dev/null | trim || true)"
	if [[ -n "${BENCH_PROFILE_DIR:-}" ]]; then # keep the profiles and the binary for go tool pprof
		mkdir -p "$BENCH_PROFILE_DIR"
		cp "$work"/prof/*.pprof* "$work/bin/terraform-provider-dbcloud" "$BENCH_PROFILE_DIR/"
		log "profiles and the provider binary kept in $BENCH_PROFILE_DIR"
	fi
fi
stop_emulator

# ---- import and query of ADOPT services ----------------------------------------------------
log "import of $ADOPT services (import blocks, one apply) and terraform query of them ($RUNS runs each)"
bench_emulator adopt -timing instant
seed_services 0 "$ADOPT"
adopt="$work/adopt"
mkdir -p "$adopt"
list_services "$work/list.json"
jq 'map({key: .name, value: .service_id}) | from_entries' "$work/list.json" >"$adopt/ids.json"
rm -f "$work/list.json"
cat >"$adopt/main.tf" <<EOF
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
locals {
  ids = jsondecode(file("\${path.module}/ids.json")) # name => id, as the API lists them
}
import {
  for_each = local.ids
  to       = dbcloud_service.s[each.key]
  id       = each.value
}
resource "dbcloud_service" "s" {
  for_each = local.ids
  name     = each.key
}
EOF
a_time=() a_cpu=() a_rss=() a_req=()
for r in $(seq "$RUNS"); do
	rm -f "$adopt/terraform.tfstate" "$adopt/terraform.tfstate.backup"
	before=$(requests)
	DBCLOUD_RUSAGE="$work/adopt-rusage-$r" timed ta "$adopt" apply -auto-approve -parallelism="$PAR"
	after=$(requests)
	grep -q "Resources: $ADOPT imported" "$adopt/out.log" || die "the import did not import $ADOPT services: see $adopt/out.log"
	read -r cpu rss _ <<<"$(rusage_sum "$work/adopt-rusage-$r")"
	a_time+=("$ta") a_cpu+=("$(calc 'c / n' c="$cpu" n="$ADOPT")") a_rss+=("$(calc 'k / 1024' k="$rss")") a_req+=("$((after - before))")
	log "  import run $r: ${ta}s, provider CPU ${cpu} ms, peak RSS $((rss / 1024)) MiB, requests $((after - before))"
done
adopt_rows="| import: \`terraform apply\` of $ADOPT \`import\` blocks (Terraform ${tfv#Terraform }) | $(stat "${a_time[@]}") s | $(stat "${a_cpu[@]}") ms | $(stat "${a_rss[@]}") MiB | $(stat "${a_req[@]}") |"$'\n'
next_tf="${TOOLS_DIR:-$repo/.tools}/terraform-${TERRAFORM_NEXT_VERSION:-1.16.4}/terraform"
if [[ -x "$next_tf" ]]; then
	query="$work/query"
	mkdir -p "$query"
	cat >"$query/main.tf" <<EOF
terraform {
  required_providers {
    dbcloud = { source = "dbcloud/dbcloud" }
  }
}
EOF
	cat >"$query/all.tfquery.hcl" <<EOF
list "dbcloud_service" "all" {
  provider         = dbcloud
  include_resource = true
  limit            = $ADOPT
}
EOF
	q_time=() q_cpu=() q_rss=() q_req=()
	for r in $(seq "$RUNS"); do
		rm -f "$query/generated.tf"
		before=$(requests)
		TF_BIN="$next_tf" DBCLOUD_RUSAGE="$work/query-rusage-$r" timed tq "$query" query -generate-config-out=generated.tf
		after=$(requests)
		found="$(grep -c '^import {' "$query/generated.tf" || true)"
		[[ "$found" == "$ADOPT" ]] || die "terraform query found $found services, not $ADOPT: see $query/out.log"
		read -r cpu rss _ <<<"$(rusage_sum "$work/query-rusage-$r")"
		q_time+=("$tq") q_cpu+=("$(calc 'c / n' c="$cpu" n="$ADOPT")") q_rss+=("$(calc 'k / 1024' k="$rss")") q_req+=("$((after - before))")
		log "  query run $r: ${tq}s, provider CPU ${cpu} ms, peak RSS $((rss / 1024)) MiB, requests $((after - before))"
	done
	adopt_rows+="| \`terraform query -generate-config-out\` of $ADOPT services ($("$next_tf" version | sed -n 1p)) | $(stat "${q_time[@]}") s | $(stat "${q_cpu[@]}") ms | $(stat "${q_rss[@]}") MiB | $(stat "${q_req[@]}") |"$'\n'
else
	log "  $next_tf is missing (make terraform-next): terraform query not measured"
	adopt_rows+="| \`terraform query\` of $ADOPT services | not measured: no Terraform >= 1.14 in .tools | | | |"$'\n'
fi
stop_emulator

# ---- 2. apply and destroy of FLEET services at D --------------------------------------------
log "apply of $FLEET services at D=${D}s, then destroy with ${DEL}s deletion, -parallelism=$PAR ($RUNS runs)"
q=$((D / 5))
bench_emulator fleet -timing instant -service-queued "${q}s" -service-configuring "$((D - q))s" -service-deleting "${DEL}s"
a_fleet=() d_fleet=()
for r in $(seq "$RUNS"); do
	fleet="$work/fleet-$r"
	services_tf "$fleet" "$FLEET"
	timed ta "$fleet" apply -auto-approve -parallelism="$PAR"
	timed tdel "$fleet" destroy -auto-approve -parallelism="$PAR"
	a_fleet+=("$ta") d_fleet+=("$tdel")
	log "  run $r: apply ${ta}s, destroy ${tdel}s"
done
stop_emulator

# ---- 3. start-up ----------------------------------------------------------------------------
log "provider start-up to the plugin handshake ($RUNS runs)"
startup=()
for _ in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	TF_PLUGIN_MAGIC_COOKIE=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2 PLUGIN_PROTOCOL_VERSIONS=6 \
		"$work/bin/terraform-provider-dbcloud" >"$work/handshake" 2>/dev/null &
	pp=$!
	for _ in $(seq 1000); do
		[[ -s "$work/handshake" ]] && break
		sleep 0.005
	done
	t1=$(date +%s.%N)
	kill "$pp" 2>/dev/null || true
	wait "$pp" 2>/dev/null || true
	: >"$work/handshake"
	startup+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')")
done
log "in-process schema (BenchmarkProviderSchema)"
schema_ms=()
while read -r ns; do
	schema_ms+=("$(awk -v n="$ns" 'BEGIN { printf "%.2f", n / 1e6 }')")
done < <(go test -run '^$' -bench '^BenchmarkProviderSchema$' -benchtime=20x -count="$RUNS" ./internal/provider |
	awk '/^BenchmarkProviderSchema/ { print $3 }')

log "waiting model (TestScheduleTable)"
DBCLOUD_SCHEDULE_TABLE="$work/schedule.md" go test -count=1 -run '^TestScheduleTable$' ./internal/wait >/dev/null
schedule_table="$(cat "$work/schedule.md")"

run_mixed

# ---- report ---------------------------------------------------------------------------------
ratio_m=$(median "${p_ratio[@]}")
cpu_m=$(median "${p_cpu[@]}")
req_m=$(median "${p_req[@]}")
apply_m=$(median "${a_fleet[@]}")
del_m=$(median "${d_fleet[@]}")
waves=$(((FLEET + PAR - 1) / PAR))
apply_target=$((waves * D + 5))
del_target=$((waves * DEL + 5))

figures="$(
	cat <<EOF
Measured by \`make bench\` with ${tfv}, the provider built from this tree and the API emulator on the
same machine (loopback, services in memory, so that the API takes exactly the times set here), and
HashiCorp's time provider ${TIME_VERSION} built from its Go module for the framework's floor. Every
figure is the median (min..max) of its rounds or runs; a ratio is formed within one round, whose
plans ran in turn (the services plan first in odd rounds, the \`time_static\` plan first in even
ones), \`-parallelism=${PAR}\`. Times are wall-clock seconds on a machine shared with other work, so
compare ratios rather than absolute values (load average of the ${NPROC}-core machine, 1, 5 and 15
minutes: ${load_before} before the plan rounds, ${load_after} after them). The whole \`make bench\`
took $((SECONDS / 60)) minutes.

The plan of a state of N services with nothing to change, against the plan of N \`time_static\`:

| objects in state | plan of the services | plan of the \`time_static\` | ratio | target <= 1.0x | CPU per object, Terraform and provider: services / \`time_static\` | provider CPU per object: this provider / the time provider | requests of the services plan | rounds |
|---|---|---|---|---|---|---|---|---|
${size_rows}
Memory of the provider process that planned (its peak resident set, VmHWM), and the growth per object
from one size to the next (the difference of the medians over the difference of the sizes):

| objects in state | this provider's peak RSS | target | | growth per added service | target | | the time provider's peak RSS | its growth per added \`time_static\` | this provider's largest live heap | allocated per service |
|---|---|---|---|---|---|---|---|---|---|---|
${mem_rows}
At ${N0} services, against \`terraform_data\` too:

| figure | measured | target | |
|---|---|---|---|
| \`terraform plan\` of ${N0} services in state | $(stat "${p_svc[@]}") s | | |
| \`terraform plan\` of ${N0} \`time_static\` (hashicorp/time: the framework's floor) | $(stat "${p_time[@]}") s | | |
| ratio of the services plan to the \`time_static\` plan | $(stat "${p_ratio_time[@]}")x | <= 1.0x | ${ratio_verdicts[0]} |
| CPU per resource in the services plan (Terraform and the provider) | $(stat "${p_allcpu[@]}") ms | | |
| CPU per resource in the \`time_static\` plan (Terraform and the time provider) | $(stat "${p_allcpu_time[@]}") ms | | |
| ratio of the two CPU figures | $(stat "${p_cpu_ratio_time[@]}")x | | |
| \`terraform plan\` of ${N0} \`terraform_data\` (no plugin at all) | $(stat "${p_data[@]}") s | | |
| ratio of the services plan to the \`terraform_data\` plan | $(stat "${p_ratio[@]}")x | <= 2x | $(verdict "$ratio_m" 2) |
| the services plan with \`-refresh=false\` (no API call) | $(stat "${p_norefresh[@]}") s | | |
| provider CPU per resource during the plan | $(stat "${p_cpu[@]}") ms | <= 2 ms | $(verdict "$cpu_m" 2) |
| provider CPU per resource, \`-refresh=false\` | $(stat "${p_cpu_nr[@]}") ms | | |
| Terraform's own CPU per resource in the services plan (all CPU minus the provider's) | $(stat "${p_tfcpu[@]}") ms | | |
| Terraform's own CPU per resource in the \`terraform_data\` plan | $(stat "${p_tfcpu_data[@]}") ms | | |
| API requests per resource during the plan | $(stat "${p_req[@]}") | <= 1 | $(verdict "$req_m" 1) |
| provider peak RSS during the plan (largest process) | $(stat "${p_rss[@]}") MiB | | |

Adopting ${ADOPT} services that exist (instant API; ${RUNS} runs):

| command | time | provider CPU per service | provider peak RSS | requests |
|---|---|---|---|---|
${adopt_rows}
Apply and destroy, start-up:

| figure | measured | target | |
|---|---|---|---|
| ${FLEET} services, \`-parallelism=${PAR}\`, D = ${D} s | $(stat "${a_fleet[@]}") s | <= ${apply_target} s (ideal $((waves * D)) s) | $(verdict "$apply_m" "$apply_target") |
| destroy of ${FLEET} services, deletion takes ${DEL} s | $(stat "${d_fleet[@]}") s | <= ${del_target} s (ideal $((waves * DEL)) s) | $(verdict "$del_m" "$del_target") |
| provider start-up to the plugin handshake | $(stat "${startup[@]}") ms | | |
| provider start-up to schema served, in process (\`BenchmarkProviderSchema\`) | $(stat "${schema_ms[@]}") ms | | |

The waiting model (\`TestScheduleTable\`, virtual clock, READY spread evenly over [D/2, 3D/2]; mean
overhead from READY to the poll that sees it / mean GETs):

${schedule_table}
EOF
)"
if $profile_done; then
	figures+="$(
		cat <<EOF


Where the provider's CPU went in ${PROFILE_PLANS} more plans of ${PROFILE_N} services (pprof, all
provider processes of the plans, merged; flat):

\`\`\`text
${profile_top}
\`\`\`

Cumulative, the provider's own code and the framework layers:

\`\`\`text
${profile_cum}
\`\`\`

The provider's own functions, cumulative (a function's time includes the framework and library code
it calls):

\`\`\`text
${profile_own}
\`\`\`

What the same plans allocated (pprof alloc_space; flat), and the provider's own functions among it
(cumulative):

\`\`\`text
${profile_alloc}
\`\`\`

\`\`\`text
${profile_alloc_own}
\`\`\`

What the same processes held when their live heap was largest (pprof inuse_space, near the end of
each plan; merged over the ${PROFILE_PLANS} plans: divide by ${PROFILE_PLANS} for one plan of ${PROFILE_N} services;
runtime/pprof's lines are the CPU profiler's own buffers):

\`\`\`text
${profile_inuse}
\`\`\`
EOF
	)"
fi

echo
echo "$figures"
echo
echo "$requests_figures"
echo

if [[ -n "${BENCH_NO_DOCS:-}" ]]; then
	log "BENCH_NO_DOCS is set: templates/ and docs/ left alone"
	exit 0
fi
printf '%s\n' "$figures" >"$work/figures.md"
write_figures bench "$work/figures.md"
printf '%s\n' "$requests_figures" >"$work/requests.md"
write_figures bench-requests "$work/requests.md"
log "regenerating docs/"
"$repo/scripts/docs.sh" || log "scripts/docs.sh failed: run make docs"
