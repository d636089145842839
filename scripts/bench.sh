#!/usr/bin/env bash
# End-to-end timings of ostset on the real Docker engine, next to docker-compose and
# plain `docker run` doing the same job. Run it with `make bench` (which builds bin/ostset
# and the demo image first); the results are written up in docs/benchmarks.md.
#
#   scripts/bench.sh            every scenario BENCH_RUNS times (default 5)
#
# Each run, in this order (so that drift on the machine spreads over every scenario):
#   1. ostset up of a 10-replica set, podManagementPolicy Parallel     (returns once all are healthy)
#      ostset down SET --volumes
#   2. the same set with OrderedReady; then a rolling update of it (an env value changes,
#      ostset up again, returns once all 10 are replaced and healthy); then ostset down --volumes
#   3. docker-compose up -d --scale app=10, until all 10 are healthy; docker-compose down -v
#   4. 10 sequential docker run -d, until all 10 are healthy; docker rm -f, volume rm, network rm
# Every variant runs the image BENCH_IMAGE (default ostset/web:demo) with the same healthcheck
# (["CMD", "/web", "health"], interval 1s, timeout 1s, retries 3), on its own user-defined
# network, with a volume at /data (one per replica; compose can only share one).
#
# Prints min/median/max seconds per step, then a markdown table. Everything it creates is
# named after bench-<random> and labelled (io.ostset.set or io.ostset.bench), and removed on
# exit, failure or interrupt included; nothing else on the engine is touched.
#
# Environment: BENCH_RUNS (5), BENCH_IMAGE (ostset/web:demo), BENCH_TIMEOUT (seconds a
# step may take, 300), OSTSET (the binary, bin/ostset), DOCKER_HOST as usual.
set -euo pipefail
export LC_ALL=C # "." as the decimal point in $EPOCHREALTIME and awk

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$prog: $*" >&2; exit 1; }

case ${1:-} in
'') ;;
-h | --help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog (settings come from the environment; see $prog --help)" >&2; exit 2 ;;
esac

runs=${BENCH_RUNS:-5}
image=${BENCH_IMAGE:-ostset/web:demo}
step_timeout=${BENCH_TIMEOUT:-300}
ostset=${OSTSET:-$root/bin/ostset}
replicas=10

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, got '$runs'"
[[ $step_timeout =~ ^[1-9][0-9]*$ ]] || die "BENCH_TIMEOUT must be a positive integer, got '$step_timeout'"
[[ -x $ostset ]] || die "$ostset not found: run make build (or make bench)"
command -v docker >/dev/null || die "docker not found in PATH"
command -v docker-compose >/dev/null || die "docker-compose (v1) not found in PATH"
if ! server=$(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})' 2>&1); then
	die "cannot reach the Docker engine${DOCKER_HOST:+ at $DOCKER_HOST}: ${server##*$'\n'}"
fi
docker image inspect "$image" >/dev/null 2>&1 || die "image $image not found: run make demo-image"

# Names: the set, its network and the prefix of everything else. Random, so that two
# benchmarks (or a benchmark and the tests) never meet.
name=bench-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
project=$name-compose # compose project: containers ${project}_app_N, network ${project}_default
runnet=$name-run      # network of the docker run baseline
mark=io.ostset.bench  # label on what compose and docker run create: $mark=$name

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostset-bench.XXXXXX")
export OSTSET_STATE_DIR=$tmp/state # the set's desired spec and history live here only
setfile=$tmp/set.yaml
composefile=$tmp/compose.yaml
log=$tmp/log

# ---------------------------------------------------------------------------------------
# Cleanup: by the set's name and labels only.

# rm_labelled KIND LABEL: remove the containers or volumes carrying LABEL (key=value).
rm_labelled() {
	local kind=$1 label=$2 ids
	case $kind in
	container) ids=$(docker ps -aq --filter "label=$label") ;;
	volume) ids=$(docker volume ls -q --filter "label=$label") ;;
	esac
	if [[ -n $ids ]]; then
		# shellcheck disable=SC2086 # one ID a word
		docker "$kind" rm -f $ids >/dev/null
	fi
}

# rm_network NAME: remove the network called exactly NAME, if there is one.
rm_network() {
	local id
	for id in $(docker network ls -q --filter "name=$1"); do
		if [[ $(docker network inspect --format '{{.Name}}' "$id") == "$1" ]]; then
			docker network rm "$id" >/dev/null
		fi
	done
}

cleanup() {
	local status=$?
	trap - EXIT INT TERM
	set +e
	if ((status != 0)); then
		echo "$prog: failed (exit $status); cleaning up $name" >&2
		[[ -s $log ]] && { echo "--- last output:" >&2; tail -n 30 "$log" >&2; }
	fi
	# The tools' own teardown first, bounded; then whatever is left, by label and name.
	timeout 120 "$ostset" down "$name" --volumes >/dev/null 2>&1
	[[ -f $composefile ]] && timeout 120 docker-compose -p "$project" -f "$composefile" down -v --remove-orphans >/dev/null 2>&1
	rm_labelled container "io.ostset.set=$name"
	rm_labelled container "$mark=$name"
	rm_labelled volume "io.ostset.set=$name"
	rm_labelled volume "$mark=$name"
	rm_network "$name"
	rm_network "$runnet"
	rm_network "${project}_default"
	rm -rf "$tmp"
	exit "$status"
}

# on_signal STATUS: stop the command under way (see run), then exit (and clean up).
on_signal() {
	if [[ -n ${child:-} ]]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# A private copy of the binary: a concurrent `make build` cannot swap it mid-benchmark.
cp "$ostset" "$tmp/ostset"
ostset=$tmp/ostset

# ---------------------------------------------------------------------------------------
# Timing and results.

declare -A times=() # key -> "t1 t2 ..."
declare -A titles=()
keys=()

# record KEY TITLE START END: add END-START seconds to KEY.
record() {
	local key=$1 title=$2 t
	t=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.3f", b - a }')
	if [[ ! -v times[$key] ]]; then
		keys+=("$key")
		titles[$key]=$title
	fi
	times[$key]+="$t "
	printf '  %-58s %7.2f s\n' "$title" "$t"
}

# stats KEY: "min median max" of KEY's times.
stats() {
	# shellcheck disable=SC2086 # one time a word
	printf '%s\n' ${times[$1]} | sort -g | awk '{ a[NR] = $1 }
		END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%.2f %.2f %.2f", a[1], m, a[NR] }'
}

# run LOG-TITLE CMD...: run CMD with its output in $log; on failure show it and stop.
# CMD runs in the background and is waited for, so that a signal stops it at once
# (bash runs traps only once a foreground command is done).
child=
# timed KEY TITLE STEP CMD...: runs one step (as run does) and records its time.
timed() {
	local key=$1 title=$2 t0
	shift 2
	t0=$EPOCHREALTIME
	run "$@"
	record "$key" "$title" "$t0" "$EPOCHREALTIME"
}

run() {
	local title=$1 rc=0
	shift
	"$@" >"$log" 2>&1 &
	child=$!
	wait "$child" || rc=$?
	child=
	if ((rc != 0)); then
		echo "$prog: $title failed (exit $rc): $*" >&2
		cat "$log" >&2
		: >"$log"
		exit 1
	fi
}

# wait_healthy ID...: poll docker inspect until every container is running and healthy.
wait_healthy() {
	local deadline=$((SECONDS + step_timeout)) states
	while :; do
		states=$(docker inspect --format '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$@")
		if ! grep -qv ' running healthy$' <<<"$states"; then
			return 0
		fi
		if grep -qE ' (exited|dead) | unhealthy$' <<<"$states"; then
			echo "$prog: a container failed:" >&2
			echo "$states" >&2
			exit 1
		fi
		((SECONDS < deadline)) || die "containers not healthy after ${step_timeout}s:"$'\n'"$states"
		sleep 0.1
	done
}

# check_set VERSION: the set has exactly $replicas containers, all healthy, all with
# VERSION in their env (so `ostset up` did not return early).
check_set() {
	local ids states
	ids=$(docker ps -aq --filter "label=io.ostset.set=$name")
	[[ -n $ids ]] || die "ostset up returned but set $name has no containers"
	# shellcheck disable=SC2086 # one ID a word
	states=$(docker inspect --format '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}} {{range .Config.Env}}{{if eq . "VERSION='"$1"'"}}v-ok{{end}}{{end}}' $ids)
	[[ $(grep -c ' running healthy v-ok$' <<<"$states") -eq $replicas && $(wc -l <<<"$states") -eq $replicas ]] ||
		die "ostset up returned but the set is not $replicas healthy replicas at VERSION=$1:"$'\n'"$states"
}

# check_gone: nothing of the set is left after ostset down --volumes.
check_gone() {
	local left
	left=$(docker ps -aq --filter "label=io.ostset.set=$name")$(docker volume ls -q --filter "label=io.ostset.set=$name")
	[[ -z $left ]] || die "ostset down left containers or volumes of $name behind"
}

# ---------------------------------------------------------------------------------------
# The scenarios.

hc_yaml='{test: ["CMD", "/web", "health"], interval: 1s, timeout: 1s, retries: 3}'

# write_set POLICY VERSION
write_set() {
	cat >"$setfile" <<EOF
name: $name
replicas: $replicas
network: $name
podManagementPolicy: $1
updateStrategy: {type: RollingUpdate}
template:
  image: $image
  env: {VERSION: "$2"}
  healthcheck: $hc_yaml
volumeClaimTemplates:
  - {name: data, mountPath: /data}
EOF
}

cat >"$composefile" <<EOF
version: "2.4"
services:
  app:
    image: $image
    environment: {VERSION: "1"}
    restart: unless-stopped
    labels: {$mark: $name}
    healthcheck: $hc_yaml
    volumes: [data:/data]
volumes:
  data:
    labels: {$mark: $name}
networks:
  default:
    labels: {$mark: $name}
EOF

ostset_parallel() {
	write_set Parallel 1
	timed up-par "ostset up, Parallel (all healthy)" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
	check_set 1
	timed down-par "ostset down --volumes (after Parallel)" "ostset down" "$ostset" down "$name" --volumes
	check_gone
}

ostset_ordered() {
	write_set OrderedReady 1
	timed up-ord "ostset up, OrderedReady (all healthy)" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
	check_set 1
	write_set OrderedReady 2
	timed roll "ostset rolling update, OrderedReady (complete)" "ostset up (rolling update)" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
	check_set 2
	timed down-ord "ostset down --volumes (after rolling update)" "ostset down" "$ostset" down "$name" --volumes
	check_gone
}

compose_baseline() {
	local t0 ids
	t0=$EPOCHREALTIME # also the start of the all-healthy time
	run "docker-compose up" docker-compose -p "$project" -f "$composefile" up -d --scale "app=$replicas"
	record compose-up "docker-compose up -d --scale app=10 (returns)" "$t0" "$EPOCHREALTIME"
	mapfile -t ids < <(docker ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=$mark=$name")
	((${#ids[@]} == replicas)) || die "docker-compose made ${#ids[@]} containers, want $replicas"
	wait_healthy "${ids[@]}"
	record compose-healthy "docker-compose up -d --scale app=10 (all healthy)" "$t0" "$EPOCHREALTIME"
	timed compose-down "docker-compose down -v" "docker-compose down" docker-compose -p "$project" -f "$composefile" down -v
}

run_baseline() {
	local t0 t1 i ids=() vols=()
	t0=$EPOCHREALTIME
	run "docker network create" docker network create --label "$mark=$name" "$runnet"
	for ((i = 0; i < replicas; i++)); do
		run "docker run" docker run -d --name "$name-run-$i" --hostname "$name-run-$i" \
			--network "$runnet" --network-alias "$name-run" --label "$mark=$name" \
			--mount "type=volume,src=$name-run-data-$i,dst=/data,volume-label=$mark=$name" \
			--health-interval 1s --health-timeout 1s --health-retries 3 \
			--restart unless-stopped -e VERSION=1 "$image"
		ids+=("$(tail -n 1 "$log")")
		vols+=("$name-run-data-$i")
	done
	t1=$EPOCHREALTIME
	record run-up "10 x docker run -d, sequential (returns)" "$t0" "$t1"
	wait_healthy "${ids[@]}"
	t1=$EPOCHREALTIME
	record run-healthy "10 x docker run -d, sequential (all healthy)" "$t0" "$t1"
	t0=$EPOCHREALTIME
	run "docker rm" docker rm -f "${ids[@]}"
	run "docker volume rm" docker volume rm "${vols[@]}"
	run "docker network rm" docker network rm "$runnet"
	t1=$EPOCHREALTIME
	record run-down "docker rm -f + volume rm + network rm" "$t0" "$t1"
}

# ---------------------------------------------------------------------------------------

echo "# ostset end-to-end benchmark: $replicas replicas of $image, $runs runs"
echo "# $(nproc) CPUs, Docker engine $server, $(docker-compose version --short 2>/dev/null | sed 's/^/docker-compose /'), $("$ostset" version 2>/dev/null | head -n 1)"
echo "# names: $name (set, network), $project (compose), $name-run-N (docker run)"
for ((r = 1; r <= runs; r++)); do
	echo "run $r/$runs"
	ostset_parallel
	ostset_ordered
	compose_baseline
	run_baseline
done

echo
echo "| step ($replicas replicas, $runs runs) | min (s) | median (s) | max (s) |"
echo "| --- | ---: | ---: | ---: |"
for k in "${keys[@]}"; do
	read -r lo med hi <<<"$(stats "$k")"
	echo "| ${titles[$k]} | $lo | $med | $hi |"
done
