#!/usr/bin/env bash
# The experiment behind parallelLimit (engine/execute.go): how many Docker calls a Parallel
# plan may have in flight. Builds ostset twice from the checked-out commit, once as it is and
# once with parallelLimit set to BENCH_LIMIT (default 4, the limit before it was raised), and
# runs the Parallel steps of scripts/bench.sh (an up of 20 replicas and its down, against the
# floor) with each, BENCH_RUNS runs apiece (default 6). Prints both tables; compare the
# ratios to the floor.
#
#   scripts/bench-parallel.sh
#
# Environment: BENCH_LIMIT (4), BENCH_RUNS (6), and what scripts/bench.sh reads
# (BENCH_HEALTH_INTERVAL, BENCH_IMAGE, FLOOR, DOCKER_HOST).
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }

case ${1:-} in
'') ;;
-h | --help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog (settings come from the environment; see $prog --help)" >&2; exit 2 ;;
esac

limit=${BENCH_LIMIT:-4}
[[ $limit =~ ^[1-9][0-9]*$ ]] || die "BENCH_LIMIT must be a positive integer, got '$limit'"
export BENCH_RUNS=${BENCH_RUNS:-6}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostset-bench-parallel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Both binaries from the same commit; only the constant differs in the second.
mkdir "$tmp/src"
git -C "$root" archive HEAD | tar -x -C "$tmp/src"
(cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/ostset" ./cmd/ostset && CGO_ENABLED=0 go build -trimpath -o "$tmp/floor" ./bench/floor)
sed -i -E "s/^const parallelLimit = [0-9]+$/const parallelLimit = $limit/" "$tmp/src/engine/execute.go"
grep -q "^const parallelLimit = $limit$" "$tmp/src/engine/execute.go" || die "no 'const parallelLimit = N' line in engine/execute.go"
(cd "$tmp/src" && CGO_ENABLED=0 go build -trimpath -o "$tmp/ostset-limit" ./cmd/ostset)
current=$(git -C "$root" show HEAD:engine/execute.go | sed -nE 's/^const parallelLimit = ([0-9]+)$/\1/p')

for variant in "$limit:$tmp/ostset-limit" "$current:$tmp/ostset"; do
	echo "## parallelLimit = ${variant%%:*}"
	OSTSET=${variant#*:} FLOOR=${FLOOR:-$tmp/floor} BENCH_STEPS=parallel BENCH_BASELINE_RUNS=0 BENCH_PLANNER_COUNT=0 \
		"$root/scripts/bench.sh"
	echo
done
