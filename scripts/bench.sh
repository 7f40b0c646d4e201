#!/usr/bin/env bash
# `make bench` (after the Go benchmarks): the provider built from this tree, the real terraform and
# the API emulator, measured end to end. It writes the figures into
# templates/guides/performance.md.tmpl (between the bench markers) and regenerates docs/ with
# scripts/docs.sh, so that docs/guides/performance.md is the template's result (make docs-check
# stays consistent; commit both).
#
# Every figure is the median (min..max) of BENCH_RUNS runs; a ratio is formed inside one run. It is
# a benchmark, not a test: a missed target is reported in the table ("missed"), never as a failure.
#
# The plan of N services is measured against two floors in the same run: N `terraform_data` (served
# inside Terraform, no plugin at all) and N `time_static` of HashiCorp's time provider, a
# terraform-plugin-framework provider like this one (with a much smaller schema): the framework's
# floor. The time provider is built from its Go module (`go install` through the Go module proxy
# into the bench's own temporary GOBIN; no binary is downloaded) and used through dev_overrides, like
# this provider. The three plans of a round run in turn, the services plan first in odd rounds and
# the time_static plan first in even rounds, so that the machine's load weighs on both alike.
#
# `scripts/bench.sh requests` runs only the request count of a no-change plan of a mixed stack (part 4
# below, at BENCH_MIXED sizes) and writes only its figures: it needs no time provider and takes a
# few minutes. `make bench` runs everything.
#
# Environment: BENCH_RUNS (3), BENCH_PLAN_RUNS (the rounds of plans: 7, at least BENCH_RUNS),
# BENCH_SERVICES (200: the plan), BENCH_FLEET (50: the apply and destroy at D), BENCH_D_SECONDS (10),
# BENCH_DELETE_SECONDS (5), BENCH_PARALLELISM (10), BENCH_PROFILE_PLANS (3: profiled plans, merged),
# BENCH_TIME_VERSION (v0.13.1: the hashicorp/time module), BENCH_MIXED ("100 1000": the sizes of the
# mixed stack, in objects, each a multiple of 10), BENCH_NO_DOCS=1 (print the figures, leave
# templates/ and docs/ alone), BENCH_PROFILE_DIR (keep the CPU profiles of the profiled plans and the
# provider binary there).
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
PROFILE_PLANS="${BENCH_PROFILE_PLANS:-3}"
NPROC="$(nproc 2>/dev/null || echo "?")"
TIME_VERSION="${BENCH_TIME_VERSION:-v0.13.1}"
N="${BENCH_SERVICES:-200}"
FLEET="${BENCH_FLEET:-50}"
D="${BENCH_D_SECONDS:-10}"
DEL="${BENCH_DELETE_SECONDS:-5}"
PAR="${BENCH_PARALLELISM:-10}"
read -r -a MIXED <<<"${BENCH_MIXED:-100 1000}"

command -v go >/dev/null 2>&1 || die "go is not on PATH."
require_terraform

work="$LIB_TMP"
mkdir -p "$work/bin"
log "building the provider and the emulator"
go build -tags benchhooks -o "$work/bin/terraform-provider-dbcloud" .
go build -o "$emu_bin" ./internal/emulator/cmd/emulator
tfv="$("$TERRAFORM" version | sed -n 1p)"
if [[ "$MODE" == all ]]; then
log "building hashicorp/time $TIME_VERSION from the Go module proxy (go install)"
mkdir -p "$work/timebin"
(cd "$work" && GOBIN="$work/timebin" GOFLAGS= go install "github.com/hashicorp/terraform-provider-time@$TIME_VERSION") ||
	die "go install github.com/hashicorp/terraform-provider-time@$TIME_VERSION failed"
# The bench's CLI config also overrides hashicorp/time with the binary just built (no terraform init).
use_cli_config "$work/bin" "registry.terraform.io/hashicorp/time=$work/timebin"
else
use_cli_config "$work/bin"
fi

# ---- emulator ------------------------------------------------------------------------------
# bench_emulator NAME ARGS...: starts an emulator (emulator-lib.sh's start_emulator) logging every
# request to $work/NAME.log. It keeps its services in memory (-postgres off, whatever
# EMULATOR_POSTGRES says), so that the API takes exactly the times the bench sets: a real database
# behind each service would add its own creation and drop times to D.
bench_emulator() {
	emu_log="$work/$1.log"
	shift
	EMULATOR_POSTGRES=off start_emulator bench-access bench-secret benchproj01 off -log "$@"
}

# requests: how many requests the emulator has logged so far.
requests() { grep -c ' -> ' "$emu_log" || true; }

# ---- helpers -------------------------------------------------------------------------------
tf() {
	local dir="$1"
	shift
	(cd "$dir" && "$TERRAFORM" "$@" -no-color -input=false >>"$dir/out.log" 2>&1)
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

# rusage_sum FILE: "cpu_ms maxrss_kib" over the provider processes that wrote FILE.
rusage_sum() { awk '{ cpu += $2 + $3; if ($4 > rss) rss = $4 } END { printf "%d %d", cpu, rss }' "$1"; }

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

# ---- 1. plan of N services vs N time_static (the framework's floor) and N terraform_data --------
log "plan: $N services vs $N time_static vs $N terraform_data ($PLAN_RUNS rounds)"
bench_emulator plan -timing instant
svc="$work/svc"
tstatic="$work/time"
data="$work/data"
services_tf "$svc" "$N"
mkdir -p "$tstatic" "$data"
cat >"$tstatic/main.tf" <<EOF
terraform {
  required_providers {
    time = { source = "hashicorp/time" }
  }
}
resource "time_static" "t" {
  count    = $N
  triggers = { name = "bench-\${count.index}" }
}
EOF
cat >"$data/main.tf" <<EOF
resource "terraform_data" "d" {
  count = $N
  input = "bench-\${count.index}"
}
EOF
timed t_setup "$svc" apply -auto-approve -parallelism="$PAR"
timed t_setup_time "$tstatic" apply -auto-approve -parallelism="$PAR"
timed t_setup_data "$data" apply -auto-approve
log "  created $N services in ${t_setup}s (instant API), $N time_static in ${t_setup_time}s"

# plan_svc R: the services plan of round R (sets t, all_cpu, cpu, rss, before, after).
plan_svc() {
	local ru="$work/rusage-$1"
	before=$(requests)
	DBCLOUD_RUSAGE="$ru" timed t "$svc" plan -parallelism="$PAR"
	after=$(requests)
	all_cpu=$(cat "$work/cpu")
	read -r cpu rss <<<"$(rusage_sum "$ru")"
}
# plan_time: the time_static plan (sets tt, time_cpu: Terraform's and the time provider's CPU).
plan_time() {
	timed tt "$tstatic" plan -parallelism="$PAR"
	time_cpu=$(cat "$work/cpu")
}

p_svc=() p_time=() p_data=() p_ratio=() p_ratio_time=() p_norefresh=() p_cpu=() p_cpu_nr=() p_rss=() p_req=()
p_tfcpu=() p_tfcpu_data=() p_allcpu=() p_allcpu_time=() p_cpu_ratio_time=()
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
load_before="$(loadavg)"
for r in $(seq "$PLAN_RUNS"); do
	if ((r % 2)); then
		plan_svc "$r"
		plan_time
	else
		plan_time
		plan_svc "$r"
	fi
	timed td "$data" plan -parallelism="$PAR"
	data_cpu=$(cat "$work/cpu")
	DBCLOUD_RUSAGE="$work/rusage-$r-nr" timed tn "$svc" plan -refresh=false -parallelism="$PAR"
	read -r cpu_nr _ <<<"$(rusage_sum "$work/rusage-$r-nr")"
	p_svc+=("$t") p_time+=("$tt") p_data+=("$td") p_norefresh+=("$tn")
	p_ratio+=("$(awk -v a="$t" -v b="$td" 'BEGIN { printf "%.2f", a / b }')")
	p_ratio_time+=("$(awk -v a="$t" -v b="$tt" 'BEGIN { printf "%.2f", a / b }')")
	p_cpu+=("$(awk -v c="$cpu" -v n="$N" 'BEGIN { printf "%.2f", c / n }')")
	p_cpu_nr+=("$(awk -v c="$cpu_nr" -v n="$N" 'BEGIN { printf "%.2f", c / n }')")
	p_rss+=("$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')")
	p_tfcpu+=("$(awk -v a="$all_cpu" -v c="$cpu" -v n="$N" 'BEGIN { printf "%.2f", (a - c) / n }')")
	p_tfcpu_data+=("$(awk -v a="$data_cpu" -v n="$N" 'BEGIN { printf "%.2f", a / n }')")
	p_allcpu+=("$(awk -v a="$all_cpu" -v n="$N" 'BEGIN { printf "%.2f", a / n }')")
	p_allcpu_time+=("$(awk -v a="$time_cpu" -v n="$N" 'BEGIN { printf "%.2f", a / n }')")
	p_cpu_ratio_time+=("$(awk -v a="$all_cpu" -v b="$time_cpu" 'BEGIN { printf "%.2f", a / b }')")
	p_req+=("$(awk -v a="$before" -v b="$after" -v n="$N" 'BEGIN { printf "%.3f", (b - a) / n }')")
	log "  round $r: services ${t}s, time_static ${tt}s (ratio ${p_ratio_time[-1]}x), terraform_data ${td}s, -refresh=false ${tn}s, provider CPU ${cpu} ms, all CPU ${all_cpu} vs ${time_cpu} ms, peak RSS ${rss} KiB, requests $((after - before))"
done

load_after="$(loadavg)"
log "profile of $PROFILE_PLANS more plans (DBCLOUD_CPUPROFILE, merged)"
mkdir -p "$work/prof"
for r in $(seq "$PROFILE_PLANS"); do
	DBCLOUD_CPUPROFILE="$work/prof/cpu.%p.pprof" timed t_prof "$svc" plan -parallelism="$PAR"
done
pprof_top() { go tool pprof -top "$@" "$work/bin/terraform-provider-dbcloud" "$work"/prof/cpu.*.pprof 2>/dev/null; }
profile_top="$(pprof_top -nodecount=20 | sed -n '/^ *flat/,$p' | sed -e 's/[[:space:]]*$//' || true)"
profile_cum="$(pprof_top -cum -nodecount=60 | sed -n '/^ *flat/,$p' |
	grep -E 'flat|dbcloud|framework/internal/fwserver|tfprotov6|fwschema|json|tflog|hclog' | head -n 25 | sed -e 's/[[:space:]]*$//' || true)"
# The provider's own functions (this module's packages), cumulative: where its code spends the plan.
profile_own="$(pprof_top -cum -nodecount=400 | sed -n '/^ *flat/,$p' |
	grep -E 'flat|terraform-provider-dbcloud/internal' | head -n 16 | sed -e 's/[[:space:]]*$//' || true)"

if [[ -n "${BENCH_PROFILE_DIR:-}" ]]; then # keep the profiles and the binary for go tool pprof
	mkdir -p "$BENCH_PROFILE_DIR"
	cp "$work"/prof/*.pprof "$work/bin/terraform-provider-dbcloud" "$BENCH_PROFILE_DIR/"
fi

log "destroy of $N services (instant API, 1 run)"
timed t_destroy_n "$svc" destroy -auto-approve -parallelism="$PAR"
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
ratio_time_m=$(median "${p_ratio_time[@]}")
cpu_m=$(median "${p_cpu[@]}")
rss_m=$(median "${p_rss[@]}")
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
HashiCorp's time provider ${TIME_VERSION} built from its Go module for the framework's floor. Each
plan figure is the median (min..max) of ${PLAN_RUNS} rounds, every other figure of ${RUNS} runs; a
ratio is formed within one round, whose plans ran in turn (the services plan first in odd rounds,
the \`time_static\` plan first in even ones).
Times are wall-clock seconds on a machine shared with other work, so compare ratios rather than absolute values
(load average of the ${NPROC}-core machine, 1, 5 and 15 minutes: ${load_before} before the plan rounds, ${load_after} after them).

| figure | measured | target | |
|---|---|---|---|
| \`terraform plan\` of ${N} services in state | $(stat "${p_svc[@]}") s | | |
| \`terraform plan\` of ${N} \`time_static\` (hashicorp/time: the framework's floor) | $(stat "${p_time[@]}") s | | |
| ratio of the services plan to the \`time_static\` plan | $(stat "${p_ratio_time[@]}")x | <= 1.1x | $(verdict "$ratio_time_m" 1.1) |
| CPU per resource in the services plan (Terraform and the provider) | $(stat "${p_allcpu[@]}") ms | | |
| CPU per resource in the \`time_static\` plan (Terraform and the time provider) | $(stat "${p_allcpu_time[@]}") ms | | |
| ratio of the two CPU figures | $(stat "${p_cpu_ratio_time[@]}")x | | |
| \`terraform plan\` of ${N} \`terraform_data\` (no plugin at all) | $(stat "${p_data[@]}") s | | |
| ratio of the services plan to the \`terraform_data\` plan | $(stat "${p_ratio[@]}")x | <= 2x | $(verdict "$ratio_m" 2) |
| the services plan with \`-refresh=false\` (no API call) | $(stat "${p_norefresh[@]}") s | | |
| provider CPU per resource during the plan | $(stat "${p_cpu[@]}") ms | <= 2 ms | $(verdict "$cpu_m" 2) |
| provider CPU per resource, \`-refresh=false\` | $(stat "${p_cpu_nr[@]}") ms | | |
| Terraform's own CPU per resource in the services plan (all CPU minus the provider's) | $(stat "${p_tfcpu[@]}") ms | | |
| Terraform's own CPU per resource in the \`terraform_data\` plan | $(stat "${p_tfcpu_data[@]}") ms | | |
| API requests per resource during the plan | $(stat "${p_req[@]}") | <= 1 | $(verdict "$req_m" 1) |
| provider peak RSS during the plan (largest process) | $(stat "${p_rss[@]}") MiB | <= 100 MiB | $(verdict "$rss_m" 100) |
| ${FLEET} services, \`-parallelism=${PAR}\`, D = ${D} s | $(stat "${a_fleet[@]}") s | <= ${apply_target} s (ideal $((waves * D)) s) | $(verdict "$apply_m" "$apply_target") |
| destroy of ${FLEET} services, deletion takes ${DEL} s | $(stat "${d_fleet[@]}") s | <= ${del_target} s (ideal $((waves * DEL)) s) | $(verdict "$del_m" "$del_target") |
| destroy of ${N} services (instant API, 1 run) | ${t_destroy_n} s | | |
| provider start-up to the plugin handshake | $(stat "${startup[@]}") ms | | |
| provider start-up to schema served, in process (\`BenchmarkProviderSchema\`) | $(stat "${schema_ms[@]}") ms | | |

The waiting model (\`TestScheduleTable\`, virtual clock, READY spread evenly over [D/2, 3D/2]; mean
overhead from READY to the poll that sees it / mean GETs):

${schedule_table}

Where the provider's CPU went in ${PROFILE_PLANS} more plans of ${N} services (pprof, all provider
processes of the plans, merged; flat):

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
EOF
)"

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
