#!/usr/bin/env bash
# Two experiments behind the prober's settings (docs/benchmarks.md, "Readiness at the speed of
# the app"), on an app that answers its healthcheck 2 s after it starts (START_DELAY=2s):
#
# 1. probe-starting on against off: an OrderedReady up of 5 with the healthcheck every 1 s
#    (where Docker's own check is nearly as soon as ostset's), BENCH_RUNS pairs, the order
#    alternating. Prints each up's time and the ratios on / off: whether the probes cost time
#    where there is little to win.
# 2. prober.MaxInFlight: builds ostset from the checked-out commit as it is and with
#    MaxInFlight set to BENCH_SLOTS (default 4), and runs a Parallel up of 20 (healthcheck
#    every 10 s) with each, BENCH_RUNS pairs, alternating: for each up, the p50 and max over
#    the 20 of the time from a replica's start + 2 s to the "<replica> ready" event of the
#    pass that saw it.
#
#   scripts/bench-prober.sh
#
# Everything is named after pb-<random> and removed on exit (ostset down --volumes).
# Environment: BENCH_RUNS (3), BENCH_SLOTS (4), BENCH_IMAGE (ostset-test/web:v1),
# OSTSET (bin/ostset), DOCKER_HOST as usual.
set -euo pipefail
export LC_ALL=C

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }

case ${1:-} in
'') ;;
-h | --help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog (settings come from the environment; see $prog --help)" >&2; exit 2 ;;
esac

runs=${BENCH_RUNS:-3}
slots=${BENCH_SLOTS:-4}
image=${BENCH_IMAGE:-ostset-test/web:v1}
ostset=${OSTSET:-$root/bin/ostset}
[[ $runs =~ ^[1-9][0-9]*$ && $slots =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS and BENCH_SLOTS must be positive integers"
[[ -x $ostset ]] || die "$ostset not found: run make build"
command -v jq >/dev/null || die "jq not found in PATH"
docker image inspect "$image" >/dev/null 2>&1 || die "image $image not found: run make test-images"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostset-bench-prober.XXXXXX")
name=
cleanup() {
	local status=$?
	[[ -n $name ]] && OSTSET_STATE_DIR=$tmp/state-$name "$ostset" down "$name" --volumes >/dev/null 2>&1
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT

# The second binary: the same commit with another MaxInFlight.
mkdir "$tmp/src"
git -C "$root" archive HEAD | tar -x -C "$tmp/src"
current=$(sed -nE 's/^const MaxInFlight = ([0-9]+)$/\1/p' "$tmp/src/engine/prober/prober.go")
[[ -n $current ]] || die "no 'const MaxInFlight = N' line in engine/prober/prober.go"
sed -i -E "s/^const MaxInFlight = [0-9]+$/const MaxInFlight = $slots/" "$tmp/src/engine/prober/prober.go"
(cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/ostset-slots" ./cmd/ostset)

# up BIN POLICY REPLICAS INTERVAL [ENV...]: a new set ($name), up until it returns; its
# seconds in $took_s.
took_s=
up() {
	local bin=$1 policy=$2 n=$3 interval=$4 t0 t1
	shift 4
	name=pb-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
	mkdir "$tmp/state-$name"
	cat >"$tmp/$name.yaml" <<YAML
name: $name
replicas: $n
network: $name
podManagementPolicy: $policy
template:
  image: $image
  env: {START_DELAY: "2s"}
  healthcheck: {test: ["CMD", "/web", "health"], interval: $interval, timeout: 5s, retries: 3}
volumeClaimTemplates:
  - {name: data, mountPath: /data}
YAML
	t0=$EPOCHREALTIME
	env "$@" OSTSET_STATE_DIR="$tmp/state-$name" "$bin" up -f "$tmp/$name.yaml" --timeout 300s >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; die "up of $name failed"; }
	t1=$EPOCHREALTIME
	took_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

# down BIN: removes the set up made.
down() {
	OSTSET_STATE_DIR=$tmp/state-$name "$1" down "$name" --volumes >/dev/null 2>&1
	name=
}

# delays BIN: per replica of the set, its start + 2 s -> its "ready" event, in ms, sorted.
delays() {
	local id s rd
	OSTSET_STATE_DIR=$tmp/state-$name "$1" events "$name" -o json |
		jq -r 'select(.message | test("^[^ ]+ ready")) | "\(.replica) \(.time)"' >"$tmp/readyat"
	for id in $(docker ps -q --no-trunc --filter "label=io.ostset.set=$name"); do
		s=$(docker inspect --format '{{.Name}} {{.State.StartedAt}}' "$id")
		rd=$(awk -v n="${s%% *}" '"/" $1 == n { print $2; exit }' "$tmp/readyat")
		[[ -n $rd ]] || die "no ready event of ${s%% *}"
		echo "$(date -d "${s#* }" +%s%N) $(date -d "$rd" +%s%N)"
	done | awk '{ printf "%.0f\n", ($2 - $1) / 1e6 - 2000 }' | sort -g
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "# $prog: $(nproc) CPUs, Docker $(docker version -f '{{.Server.Version}} (API {{.Server.APIVersion}})'), $("$ostset" version | head -n 1), load $(load)"
echo
echo "1. OrderedReady up of 5, healthcheck every 1s: probe-starting on / off, $runs pairs"
ratios=()
for ((r = 1; r <= runs; r++)); do
	order=(true false)
	((r % 2)) || order=(false true)
	declare -A took=()
	for p in "${order[@]}"; do
		up "$ostset" OrderedReady 5 1s OSTSET_PROBE_STARTING="$p"
		took[$p]=$took_s
		down "$ostset"
	done
	ratios+=("$(awk -v a="${took[true]}" -v b="${took[false]}" 'BEGIN { printf "%.2f", a / b }')")
	echo "  pair $r: on ${took[true]} s, off ${took[false]} s, ratio ${ratios[-1]} (load $(load))"
done
echo "  ratios on / off, sorted: $(printf '%s\n' "${ratios[@]}" | sort -g | tr '\n' ' ')"

echo
echo "2. Parallel up of 20, healthcheck every 10s: MaxInFlight $current / $slots, $runs pairs"
for ((r = 1; r <= runs; r++)); do
	bins=("$ostset" "$tmp/ostset-slots")
	labels=("$current" "$slots")
	if ! ((r % 2)); then bins=("${bins[1]}" "${bins[0]}"); labels=("${labels[1]}" "${labels[0]}"); fi
	for i in 0 1; do
		up "${bins[$i]}" Parallel 20 10s
		delays "${bins[$i]}" >"$tmp/d"
		echo "  run $r, MaxInFlight ${labels[$i]}: up $took_s s, start + 2 s -> ready p50 $(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' "$tmp/d") ms, max $(tail -n 1 "$tmp/d") ms (load $(load))"
		down "${bins[$i]}"
	done
done
