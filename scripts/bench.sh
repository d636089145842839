#!/usr/bin/env bash
# Benchmarks of ostset on the real Docker engine, each figure next to the floor: bench/floor,
# which makes the same containers with the fewest API calls and learns of health from
# Docker's events. Also docker-compose and plain `docker run` doing the same job. Run it
# with `make bench` (which builds bin/ostset, bin/floor and the demo image first); the
# results are written up in docs/benchmarks.md.
#
#   scripts/bench.sh            every part, with the settings below
#
# 1. The planner: `go test -bench` of plan.MakePlan (BENCH_PLANNER_COUNT times each).
# 2. ostset against the floor, BENCH_RUNS runs. Each run, for ostset and for the floor:
#      an OrderedReady up of 10 replicas (returns once all are healthy); from the Docker
#      events of that up, the time from health_status: healthy of replica i to the create
#      of replica i+1; a rolling update of the 10 (an env value changes; returns once all
#      are replaced and healthy); a down (--volumes); a Parallel up of 20; a down.
#    Each step runs for ostset and for the floor back to back, ostset first in odd runs and
#    the floor first in even ones, so that drift and other load on the machine hit both
#    alike. Ratios are ostset / floor, taken run by run (the median of the paired ratios).
#    With BENCH_STEPS naming readiness (not by default: the floor's part alone takes about
#    2 min a run), an app ready 2 s after it starts (START_DELAY=2s) with a healthcheck
#    every 10 s, whose first check Docker runs 10 s after each start: an OrderedReady up
#    of 5, a rolling update of the 5, and an OrderedReady up of 5 with the healthcheck every
#    1 s, for ostset and the floor; and for ostset alone a Parallel up of 20 of that app:
#    the time from each replica's start + 2 s to the pass that saw it ready (p50 and p99
#    over the 20), taken apart from Docker's exec events, the set's state and its events
#    (see decompose), and the CPU used meanwhile by the ostset process (which runs the
#    probes) and by dockerd + containerd (which run the execs).
# 3. The baselines, BENCH_BASELINE_RUNS runs spread among those of part 2: ostset up of 10,
#      Parallel, and its down; docker-compose up -d --scale app=10 until all are healthy,
#      and down -v; 10 sequential docker run -d until all are healthy, and rm -f.
# Every variant runs the image BENCH_IMAGE (default ostset/web:demo) with the same
# healthcheck (["CMD", "/web", "health"], interval BENCH_HEALTH_INTERVAL, timeout 5s,
# retries 3), on its own user-defined network, with a volume at /data (one per replica;
# compose can only share one). The timeout only bounds a probe: on a loaded machine a probe
# can take over a second, and a shorter timeout would turn replicas unhealthy and abort the
# run; while probes pass, it changes no time measured.
#
# Prints each step as it goes, then markdown tables. Everything it creates is named after
# bench-<random> and labelled (io.ostset.set or io.ostset.bench), and removed on exit,
# failure or interrupt included; nothing else on the engine is touched.
#
# Environment: BENCH_RUNS (20), BENCH_BASELINE_RUNS (5), BENCH_PLANNER_COUNT (5; 0 skips
# the planner), BENCH_STEPS (which steps of part 2: "ordered parallel"; also "readiness"), BENCH_HEALTH_INTERVAL
# (500ms), BENCH_IMAGE (ostset/web:demo), BENCH_TIMEOUT (seconds a step may take, 300),
# OSTSET (bin/ostset), FLOOR (bin/floor), DOCKER_HOST as usual.
set -euo pipefail
export LC_ALL=C # "." as the decimal point in $EPOCHREALTIME and awk

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$prog: $*" >&2; exit 1; }

case ${1:-} in
'') ;;
-h | --help) sed -n '2,40s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog (settings come from the environment; see $prog --help)" >&2; exit 2 ;;
esac

runs=${BENCH_RUNS:-20}
base_runs=${BENCH_BASELINE_RUNS:-5}
planner_count=${BENCH_PLANNER_COUNT:-5}
read -ra steps <<<"${BENCH_STEPS:-ordered parallel}"
interval=${BENCH_HEALTH_INTERVAL:-500ms}
image=${BENCH_IMAGE:-ostset/web:demo}
step_timeout=${BENCH_TIMEOUT:-300}
ostset=${OSTSET:-$root/bin/ostset}
floor=${FLOOR:-$root/bin/floor}
ordered=10   # replicas of the OrderedReady up and the rolling update
parallel=20  # replicas of the Parallel up against the floor
replicas=10  # replicas of the baselines

[[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, got '$runs'"
[[ $base_runs =~ ^[0-9]+$ ]] || die "BENCH_BASELINE_RUNS must be a non-negative integer, got '$base_runs'"
[[ $planner_count =~ ^[0-9]+$ ]] || die "BENCH_PLANNER_COUNT must be a non-negative integer, got '$planner_count'"
((${#steps[@]})) || die "BENCH_STEPS must name ordered, parallel or readiness"
for s in "${steps[@]}"; do
	[[ $s == ordered || $s == parallel || $s == readiness ]] || die "BENCH_STEPS: '$s' is not ordered, parallel or readiness"
done
[[ $interval =~ ^[0-9]+(ms|s)$ ]] || die "BENCH_HEALTH_INTERVAL must be like 500ms or 1s, got '$interval'"
[[ $step_timeout =~ ^[1-9][0-9]*$ ]] || die "BENCH_TIMEOUT must be a positive integer, got '$step_timeout'"
[[ -x $ostset ]] || die "$ostset not found: run make build (or make bench)"
[[ -x $floor ]] || die "$floor not found: run go build -o bin/floor ./bench/floor (or make bench)"
command -v docker >/dev/null || die "docker not found in PATH"
if ((base_runs > 0)); then
	command -v docker-compose >/dev/null || die "docker-compose (v1) not found in PATH (or set BENCH_BASELINE_RUNS=0)"
fi
if ((planner_count > 0)); then
	command -v go >/dev/null || die "go not found in PATH (or set BENCH_PLANNER_COUNT=0)"
fi
if ! server=$(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})' 2>&1); then
	die "cannot reach the Docker engine${DOCKER_HOST:+ at $DOCKER_HOST}: ${server##*$'\n'}"
fi
docker image inspect "$image" >/dev/null 2>&1 || die "image $image not found: run make demo-image"

# Names: the set, its network and the prefix of everything else. Random, so that two
# benchmarks (or a benchmark and the tests) never meet.
name=bench-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
fname=$name-floor     # the floor's set: containers $fname-N, network $fname
project=$name-compose # compose project: containers ${project}_app_N, network ${project}_default
runnet=$name-run      # network of the docker run baseline
mark=io.ostset.bench  # label on what the floor, compose and docker run create: $mark=$name

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostset-bench.XXXXXX")
export OSTSET_STATE_DIR=$tmp/state # the set's desired spec and history live here only
setfile=$tmp/set.yaml
composefile=$tmp/compose.yaml
log=$tmp/log

# ---------------------------------------------------------------------------------------
# Cleanup: by the sets' names and labels only.

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
	[[ -n ${evpid:-} ]] && kill "$evpid" 2>/dev/null
	if ((status != 0)); then
		echo "$prog: failed (exit $status); cleaning up $name" >&2
		[[ -s $log ]] && { echo "--- last output:" >&2; tail -n 30 "$log" >&2; }
	fi
	# The tools' own teardown first, bounded; then whatever is left, by label and name.
	timeout 120 "$ostset" down "$name" --volumes >/dev/null 2>&1
	[[ -f $composefile ]] && timeout 120 docker-compose -p "$project" -f "$composefile" down -v --remove-orphans >/dev/null 2>&1
	for set in "$name" "$fname"; do
		rm_labelled container "io.ostset.set=$set"
		rm_labelled volume "io.ostset.set=$set"
		rm_network "$set"
	done
	rm_labelled container "$mark=$name"
	rm_labelled volume "$mark=$name"
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

# Private copies of the binaries: a concurrent build cannot swap them mid-benchmark.
cp "$ostset" "$tmp/ostset"
cp "$floor" "$tmp/floor"
ostset=$tmp/ostset
floor=$tmp/floor

# ---------------------------------------------------------------------------------------
# Timing and results.

declare -A times=() # key -> "v1 v2 ..." (one value per run, in run order)
declare -A titles=()
keys=()

# add KEY TITLE VALUE: append VALUE to KEY.
add() {
	if [[ ! -v times[$1] ]]; then
		keys+=("$1")
		titles[$1]=$2
	fi
	times[$1]+="$3 "
}

# record KEY TITLE START END: add END-START seconds to KEY.
record() {
	local key=$1 title=$2 t
	t=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.3f", b - a }')
	add "$key" "$title" "$t"
	printf '  %-58s %7.2f s\n' "$title" "$t"
}

# stats VALUE...: "min median max".
stats() {
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 }
		END { m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      printf "%.3f %.3f %.3f", a[1], m, a[NR] }'
}

# ratios A B: the ratios of A's values to B's, pair by pair (run by run).
ratios() {
	local -a a b
	read -ra a <<<"${times[$1]}"
	read -ra b <<<"${times[$2]}"
	((${#a[@]} == ${#b[@]})) || die "$1 has ${#a[@]} values and $2 ${#b[@]}"
	paste -d' ' <(printf '%s\n' "${a[@]}") <(printf '%s\n' "${b[@]}") |
		awk '{ if ($2 > 0) printf "%.4f\n", $1 / $2 }'
}

child=
# run LOG-TITLE CMD...: run CMD with its output in $log; on failure show it and stop.
# CMD runs in the background and is waited for, so that a signal stops it at once
# (bash runs traps only once a foreground command is done).
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

# timed KEY TITLE STEP CMD...: runs one step (as run does) and records its time.
timed() {
	local key=$1 title=$2 t0
	shift 2
	t0=$EPOCHREALTIME
	run "$@"
	record "$key" "$title" "$t0" "$EPOCHREALTIME"
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

# check_set SET VERSION N: SET has exactly N containers, all healthy, all with VERSION in
# their env (so that the up or update did not return early).
check_set() {
	local set=$1 version=$2 n=$3 ids states
	ids=$(docker ps -aq --filter "label=io.ostset.set=$set")
	[[ -n $ids ]] || die "set $set has no containers"
	# shellcheck disable=SC2086 # one ID a word
	states=$(docker inspect --format '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}} {{range .Config.Env}}{{if eq . "VERSION='"$version"'"}}v-ok{{end}}{{end}}' $ids)
	[[ $(grep -c ' running healthy v-ok$' <<<"$states") -eq $n && $(wc -l <<<"$states") -eq $n ]] ||
		die "set $set is not $n healthy replicas at VERSION=$version:"$'\n'"$states"
}

# check_gone SET: nothing of SET is left after a down.
check_gone() {
	local left
	left=$(docker ps -aq --filter "label=io.ostset.set=$1")$(docker volume ls -q --filter "label=io.ostset.set=$1")
	[[ -z $left ]] || die "the down of $1 left containers or volumes behind"
}

# watch_events SET: start recording the engine's create and health_status events of SET's
# containers into $tmp/events, live: the engine keeps only its last 256 events for a later
# `docker events --since`, and healthcheck probes alone (exec_* events) overflow that in
# seconds. gaps stops the recording.
evpid=
watch_events() {
	docker events --since "$EPOCHREALTIME" --filter type=container --filter "label=io.ostset.set=$1" \
		--filter event=create --filter event=health_status \
		--format '{{.TimeNano}}|{{.Action}}|{{index .Actor.Attributes "name"}}' >"$tmp/events" 2>&1 &
	evpid=$!
}

# gaps KEY TITLE SET N: stops the recording (watch_events) and takes from it the time from
# health_status: healthy of SET-i to the create of SET-(i+1), i < N-1, in ms. Adds their
# median to KEY (one value per run) and each of them to KEY-all.
gaps() {
	local key=$1 title=$2 set=$3 n=$4 all g
	sleep 0.2 # the last events reach the recorder
	kill "$evpid" 2>/dev/null || true
	wait "$evpid" 2>/dev/null || true
	evpid=
	all=$(awk -F'|' -v set="$set" -v n="$n" '
			$2 == "create" && !($3 in created) { created[$3] = $1 }
			$2 == "health_status: healthy" && !($3 in healthy) { healthy[$3] = $1 }
			END {
				for (i = 0; i < n - 1; i++) {
					a = set "-" i; b = set "-" (i + 1)
					if (!(a in healthy) || !(b in created)) { print "missing " a " or " b; exit 1 }
					printf "%.3f\n", (created[b] - healthy[a]) / 1e6
				}
			}' "$tmp/events") || die "no healthy -> create events for set $set: $all"$'\n'"$(cat "$tmp/events")"
	for g in $all; do
		add "$key-all" "$title, each" "$g"
	done
	# shellcheck disable=SC2086 # one gap a word
	read -r _ g _ <<<"$(stats $all)"
	add "$key" "$title" "$g"
	printf '  %-58s %7.1f ms (median of %d)\n' "$title" "$g" $((n - 1))
}

# ---------------------------------------------------------------------------------------
# The scenarios.

hc_yaml="{test: [\"CMD\", \"/web\", \"health\"], interval: $interval, timeout: 5s, retries: 3}"
hc_flags=(-health-cmd "/web health" -health-interval "$interval" -health-timeout 5s -health-retries 3)

# write_set POLICY VERSION REPLICAS
write_set() {
	cat >"$setfile" <<EOF
name: $name
replicas: $3
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

# floor_cmd MODE REPLICAS VERSION [FLAG...]: sets fcmd to the floor doing MODE to its set.
fcmd=()
floor_cmd() {
	local mode=$1 n=$2 version=$3
	shift 3
	fcmd=("$floor" "$mode" -name "$fname" -replicas "$n" -image "$image" -label "$mark=$name"
		-env "VERSION=$version" -timeout "${step_timeout}s" "$@")
}

# ordered TOOL: an OrderedReady up of $ordered, its healthy -> create gaps, a rolling
# update, a down.
ordered() {
	if [[ $1 == ostset ]]; then
		write_set OrderedReady 1 $ordered
		watch_events "$name"
		timed os-up-ord "ostset up, OrderedReady, $ordered" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		gaps os-gap "ostset healthy(i) -> create(i+1)" "$name" $ordered
		check_set "$name" 1 $ordered
		write_set OrderedReady 2 $ordered
		timed os-roll "ostset rolling update, $ordered" "ostset up (rolling update)" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		check_set "$name" 2 $ordered
		timed os-down-ord "ostset down --volumes, $ordered" "ostset down" "$ostset" down "$name" --volumes
		check_gone "$name"
	else
		floor_cmd up $ordered 1 "${hc_flags[@]}" -policy OrderedReady
		watch_events "$fname"
		timed fl-up-ord "floor up, OrderedReady, $ordered" "floor up" "${fcmd[@]}"
		gaps fl-gap "floor healthy(i) -> create(i+1)" "$fname" $ordered
		check_set "$fname" 1 $ordered
		floor_cmd update $ordered 2 "${hc_flags[@]}"
		timed fl-roll "floor rolling update, $ordered" "floor update" "${fcmd[@]}"
		check_set "$fname" 2 $ordered
		floor_cmd down $ordered 2
		timed fl-down-ord "floor down, $ordered" "floor down" "${fcmd[@]}"
		check_gone "$fname"
	fi
}

# parallel TOOL: a Parallel up of $parallel, a down.
parallel() {
	if [[ $1 == ostset ]]; then
		write_set Parallel 1 $parallel
		timed os-up-par "ostset up, Parallel, $parallel" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		check_set "$name" 1 $parallel
		timed os-down-par "ostset down --volumes, $parallel" "ostset down" "$ostset" down "$name" --volumes
		check_gone "$name"
	else
		floor_cmd up $parallel 1 "${hc_flags[@]}" -policy Parallel
		timed fl-up-par "floor up, Parallel, $parallel" "floor up" "${fcmd[@]}"
		check_set "$fname" 1 $parallel
		floor_cmd down $parallel 1
		timed fl-down-par "floor down, $parallel" "floor down" "${fcmd[@]}"
		check_gone "$fname"
	fi
}

# The readiness step: an app ready 2 s after it starts, with a slow healthcheck.
rd_n=5     # replicas of its OrderedReady up and rolling update
rd_par=20  # replicas of its Parallel up (start -> ready delays, CPU)
rd_delay=2 # seconds after its start that the app answers (START_DELAY)

# write_rset POLICY VERSION REPLICAS INTERVAL
write_rset() {
	cat >"$setfile" <<EOF
name: $name
replicas: $3
network: $name
podManagementPolicy: $1
updateStrategy: {type: RollingUpdate}
template:
  image: $image
  env: {VERSION: "$2", START_DELAY: "${rd_delay}s"}
  healthcheck: {test: ["CMD", "/web", "health"], interval: $4, timeout: 5s, retries: 3}
volumeClaimTemplates:
  - {name: data, mountPath: /data}
EOF
}

# check_ready SET VERSION N: SET has exactly N containers at VERSION, all ready in
# ostset's status (Docker may still say starting: ostset's probe made them ready).
check_ready() {
	local ready ids
	ready=$("$ostset" status "$1" -o json | jq '[.containers[] | select(.ready)] | length')
	ids=$(docker ps -aq --filter "label=io.ostset.set=$1")
	# shellcheck disable=SC2086 # one ID a word
	[[ $ready -eq $3 && $(docker inspect --format '{{range .Config.Env}}{{if eq . "VERSION='"$2"'"}}v-ok{{end}}{{end}}' $ids | grep -c v-ok) -eq $3 ]] ||
		die "set $1 is not $3 ready replicas at VERSION=$2"
}

# cpu_ticks PID...: the user + system clock ticks the processes used so far.
cpu_ticks() {
	local p t=0 v
	for p in "$@"; do # a process that just exited counts for nothing
		v=$(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null) && [[ -n $v ]] && t=$((t + v))
	done
	echo "$t"
}

# pct P VALUE...: the P-th percentile (nearest rank).
pct() {
	local p=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v p="$p" '{ a[NR] = $1 } END { r = int((p * NR + 99) / 100); if (r < 1) r = 1; print a[r] }'
}

# readiness TOOL: the readiness step (see the header).
readiness() {
	local -a flags=(-health-cmd "/web health" -health-timeout 5s -health-retries 3 -env "START_DELAY=${rd_delay}s")
	if [[ $1 == ostset ]]; then
		write_rset OrderedReady 1 $rd_n 10s
		timed os-rd-up "ostset up, OrderedReady, $rd_n, ready at 2 s, interval 10s" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		check_ready "$name" 1 $rd_n
		write_rset OrderedReady 2 $rd_n 10s
		timed os-rd-roll "ostset rolling update, $rd_n, interval 10s" "ostset up (rolling update)" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		check_ready "$name" 2 $rd_n
		run "ostset down" "$ostset" down "$name" --volumes
		write_rset OrderedReady 1 $rd_n 1s
		timed os-rd1-up "ostset up, OrderedReady, $rd_n, interval 1s" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
		check_ready "$name" 1 $rd_n
		run "ostset down" "$ostset" down "$name" --volumes
		rd_parallel
	else
		floor_cmd up $rd_n 1 "${flags[@]}" -health-interval 10s -policy OrderedReady
		timed fl-rd-up "floor up, OrderedReady, $rd_n, ready at 2 s, interval 10s" "floor up" "${fcmd[@]}"
		floor_cmd update $rd_n 2 "${flags[@]}" -health-interval 10s
		timed fl-rd-roll "floor rolling update, $rd_n, interval 10s" "floor update" "${fcmd[@]}"
		floor_cmd down $rd_n 2
		run "floor down" "${fcmd[@]}"
		floor_cmd up $rd_n 1 "${flags[@]}" -health-interval 1s -policy OrderedReady
		timed fl-rd1-up "floor up, OrderedReady, $rd_n, interval 1s" "floor up" "${fcmd[@]}"
		floor_cmd down $rd_n 1
		run "floor down" "${fcmd[@]}"
	fi
}

# rd_parallel: ostset's Parallel up of $rd_par of the app: the delays from the app's
# readiness (start + 2 s) to ostset's probe finding it ready, taken apart (see decompose),
# and the CPU used meanwhile.
rd_parallel() {
	local t0 c1=0 e0 e1 pid engine delays d hz
	hz=$(getconf CLK_TCK)
	engine=$(pgrep -x dockerd; pgrep -x containerd) || true
	write_rset Parallel 1 $rd_par 10s
	# The execs of the set's replicas: ostset's probes (exec_create, then exec_start) and
	# Docker's own checks (exec_start alone), and their exits.
	docker events --since "$EPOCHREALTIME" --filter type=container --filter "label=io.ostset.set=$name" \
		--filter event=exec_create --filter event=exec_start --filter event=exec_die \
		--format '{{.TimeNano}}|{{.Action}}|{{index .Actor.Attributes "name"}}|{{index .Actor.Attributes "execID"}}|{{index .Actor.Attributes "exitCode"}}' >"$tmp/execs" 2>&1 &
	evpid=$!
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086 # one PID a word
	e0=$(cpu_ticks $engine)
	"$ostset" up -f "$setfile" --timeout "${step_timeout}s" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do # the ostset process's own ticks, until it exits
		c1=$(cpu_ticks "$pid")
		sleep 0.05
	done
	wait "$pid" || { cat "$log" >&2; die "ostset up (Parallel, $rd_par) failed"; }
	# shellcheck disable=SC2086
	e1=$(cpu_ticks $engine)
	record os-rd-par "ostset up, Parallel, $rd_par, ready at 2 s, interval 10s" "$t0" "$EPOCHREALTIME"
	sleep 0.2 # the last events reach the recorder
	kill "$evpid" 2>/dev/null || true
	wait "$evpid" 2>/dev/null || true
	evpid=
	check_ready "$name" 1 $rd_par
	add os-rd-cpu "CPU of the ostset process (s)" "$(awk -v t="$c1" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')"
	add os-rd-ecpu "CPU of dockerd + containerd (s)" "$(awk -v t=$((e1 - e0)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')"
	decompose
	delays=$(awk '{ print $2 }' "$tmp/parts")
	[[ $(wc -w <<<"$delays") -eq $rd_par ]] || die "$(wc -w <<<"$delays") replicas ready, want $rd_par"
	# shellcheck disable=SC2086
	printf '  %-58s %s ms, %s ms (%s of %s by probe)\n' "start + 2 s -> ready, p50, p99" "$(pct 50 $delays)" "$(pct 99 $delays)" \
		"$(awk 'NF > 2' "$tmp/parts" | wc -l)" "$rd_par"
	run "ostset down" "$ostset" down "$name" --volumes
}

# Where the time from a replica's start to the planner seeing it ready goes, per replica
# (milliseconds; columns of $tmp/parts, each added to a key os-rd-<column>):
#   ready  the app's readiness (StartedAt + 2 s) -> the event "<replica> ready" of the pass
#          that saw it (every replica: ostset's probe or Docker's own check made it ready)
#   delay  the app's readiness -> ostset's verdict (the set's state, probed); the columns
#          below are of the replicas ostset's probe made ready
#   first  StartedAt -> ostset's first probe of it (its first exec_create)
#   wait   the app's readiness -> the exec_create of the probe that passed: the gaps
#          between probes and the wait for a free probe slot
#   exec   that probe's exec_create -> its exec_die: the engine runs it
#   read   its exec_die -> ostset's verdict: the exec's end reaching ostset
#   plan   ostset's verdict -> the event "<replica> ready"
#   probes how many probes ostset ran on it; dexec: every ostset probe's exec time
decompose() {
	local id started since ready
	"$ostset" events "$name" -o json | jq -r 'select(.message | test("^[^ ]+ ready")) | "\(.replica) \(.time)"' >"$tmp/readyat"
	jq -r '.probed // {} | to_entries[] | "\(.key) \(.value)"' "$OSTSET_STATE_DIR/sets/$name.json" >"$tmp/probed"
	for id in $(docker ps -q --no-trunc --filter "label=io.ostset.set=$name"); do
		started=$(docker inspect --format '{{.Name}} {{.State.StartedAt}}' "$id")
		since=$(awk -v id="$id" 'index(id, $1) == 1 { print $2; exit }' "$tmp/probed")
		ready=$(awk -v n="${started%% *}" '"/" $1 == n { print $2; exit }' "$tmp/readyat")
		[[ -n $ready ]] || die "no ready event of ${started%% *}"
		echo "${started%% *} $(date -d "${started#* }" +%s%N) $([[ -n $since ]] && date -d "$since" +%s%N || echo -) $(date -d "$ready" +%s%N)"
	done >"$tmp/verdicts"
	awk -v d="$rd_delay" -F'|' '
		FNR == NR { split($0, f, " "); n = substr(f[1], 2); st[n] = f[2]; pr[n] = f[3]; rd[n] = f[4]; next }
		$2 ~ /^exec_create/ { os[$4] = $1; if (!($3 in first)) first[$3] = $1; probes[$3]++ }
		$2 == "exec_die" && ($4 in os) {
			print "dexec", ($1 - os[$4]) / 1e6 > "/dev/stderr"
			if ($5 == "0" && !($3 in pass)) { pass[$3] = $1; passc[$3] = os[$4] }
		}
		END {
			for (n in st) {
				app = st[n] + d * 1e9
				if (pr[n] == "-") { printf "%s %.0f\n", n, (rd[n] - app) / 1e6; continue }
				printf "%s %.0f %.0f %.0f %.0f %.0f %.0f %.0f %d\n", n, (rd[n] - app) / 1e6, (pr[n] - app) / 1e6,
					(first[n] - st[n]) / 1e6, (passc[n] - app) / 1e6, (pass[n] - passc[n]) / 1e6,
					(pr[n] - pass[n]) / 1e6, (rd[n] - pr[n]) / 1e6, probes[n]
			}
		}' "$tmp/verdicts" "$tmp/execs" >"$tmp/parts" 2>"$tmp/dexec"
	local i col d
	i=1
	for col in ready delay first wait exec read plan probes; do
		i=$((i + 1))
		for d in $(awk -v c=$i 'NF >= c { print $c }' "$tmp/parts"); do
			add "os-rd-$col" "$col" "$d"
		done
	done
	for d in $(awk '{ printf "%.0f\n", $2 }' "$tmp/dexec"); do
		add os-rd-dexec "dexec" "$d"
	done
	add os-rd-byprobe "made ready by ostset's probe" "$(awk 'NF > 2' "$tmp/parts" | wc -l)"
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

ostset_baseline() {
	write_set Parallel 1 $replicas
	timed b-up-par "ostset up, Parallel, $replicas (all healthy)" "ostset up" "$ostset" up -f "$setfile" --timeout "${step_timeout}s"
	check_set "$name" 1 $replicas
	timed b-down-par "ostset down --volumes, $replicas" "ostset down" "$ostset" down "$name" --volumes
	check_gone "$name"
}

compose_baseline() {
	local t0 ids
	t0=$EPOCHREALTIME # also the start of the all-healthy time
	run "docker-compose up" docker-compose -p "$project" -f "$composefile" up -d --scale "app=$replicas"
	record compose-up "docker-compose up -d --scale app=$replicas (returns)" "$t0" "$EPOCHREALTIME"
	mapfile -t ids < <(docker ps -aq --filter "label=com.docker.compose.project=$project" --filter "label=$mark=$name")
	((${#ids[@]} == replicas)) || die "docker-compose made ${#ids[@]} containers, want $replicas"
	wait_healthy "${ids[@]}"
	record compose-healthy "docker-compose up -d --scale app=$replicas (all healthy)" "$t0" "$EPOCHREALTIME"
	timed compose-down "docker-compose down -v" "docker-compose down" docker-compose -p "$project" -f "$composefile" down -v
}

# The image's own healthcheck (exec form: the image has no shell, and --health-cmd would
# run through /bin/sh) with the run's interval, timeout and retries.
run_baseline() {
	local t0 t1 i ids=() vols=()
	t0=$EPOCHREALTIME
	run "docker network create" docker network create --label "$mark=$name" "$runnet"
	for ((i = 0; i < replicas; i++)); do
		run "docker run" docker run -d --name "$name-run-$i" --hostname "$name-run-$i" \
			--network "$runnet" --network-alias "$name-run" --label "$mark=$name" \
			--mount "type=volume,src=$name-run-data-$i,dst=/data,volume-label=$mark=$name" \
			--health-interval "$interval" --health-timeout 5s --health-retries 3 \
			--restart unless-stopped -e VERSION=1 "$image"
		ids+=("$(tail -n 1 "$log")")
		vols+=("$name-run-data-$i")
	done
	t1=$EPOCHREALTIME
	record run-up "$replicas x docker run -d, sequential (returns)" "$t0" "$t1"
	wait_healthy "${ids[@]}"
	t1=$EPOCHREALTIME
	record run-healthy "$replicas x docker run -d, sequential (all healthy)" "$t0" "$t1"
	t0=$EPOCHREALTIME
	run "docker rm" docker rm -f "${ids[@]}"
	run "docker volume rm" docker volume rm "${vols[@]}"
	run "docker network rm" docker network rm "$runnet"
	t1=$EPOCHREALTIME
	record run-down "docker rm -f + volume rm + network rm" "$t0" "$t1"
}

# ---------------------------------------------------------------------------------------
# The planner.

planner_out=$tmp/planner.txt
planner() {
	echo "planner: go test -run '^\$' -bench . -benchmem -count $planner_count ./engine/plan/"
	(cd "$root" && go test -run '^$' -bench . -benchmem -count "$planner_count" ./engine/plan/) >"$planner_out" 2>&1 ||
		{ cat "$planner_out" >&2; die "the planner benchmarks failed"; }
	grep '^Benchmark' "$planner_out" | sed 's/^/  /'
}

# planner_median NAME: the median ns/op of benchmark NAME (without the -GOMAXPROCS suffix).
planner_median() {
	local v
	# shellcheck disable=SC2046 # one value a word
	v=$(awk -v b="$1" '{ n = $1; sub(/-[0-9]+$/, "", n) } n == b { print $3 }' "$planner_out")
	[[ -n $v ]] || return 1
	# shellcheck disable=SC2086
	read -r _ v _ <<<"$(stats $v)"
	echo "$v"
}

# ---------------------------------------------------------------------------------------

started=$SECONDS
echo "# ostset benchmark: $image, healthcheck every $interval; $runs runs against the floor, $base_runs baseline runs"
echo "# $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), Docker engine $server, $(docker-compose version --short 2>/dev/null | sed 's/^/docker-compose /'), $("$ostset" version 2>/dev/null | head -n 1)"
echo "# names: $name (set, network), $fname (floor), $project (compose), $name-run-N (docker run)"
((planner_count == 0)) || planner
baselines_done=0
for ((r = 1; r <= runs; r++)); do
	echo "run $r/$runs (load $(cut -d' ' -f1-3 /proc/loadavg))"
	if ((r % 2)); then order=(ostset floor); else order=(floor ostset); fi
	for s in "${steps[@]}"; do
		"$s" "${order[0]}"
		"$s" "${order[1]}"
	done
	# The baselines, spread evenly over the runs.
	for (( ; baselines_done < r * base_runs / runs; baselines_done++)); do
		echo " baseline $((baselines_done + 1))/$base_runs"
		ostset_baseline
		compose_baseline
		run_baseline
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# row TITLE OSTSET-KEY FLOOR-KEY UNIT SCALE: one line of the ostset / floor table.
row() {
	local os fl ra lo med hi flo fmed fhi rlo rmed rhi
	[[ -v times[$2] ]] || return 0 # a step BENCH_STEPS left out
	# shellcheck disable=SC2086
	read -r lo med hi <<<"$(stats ${times[$2]})"
	# shellcheck disable=SC2086
	read -r flo fmed fhi <<<"$(stats ${times[$3]})"
	# shellcheck disable=SC2046
	read -r rlo rmed rhi <<<"$(stats $(ratios "$2" "$3"))"
	os=$(awk -v a="$med" -v b="$lo" -v c="$hi" -v s="$5" 'BEGIN { printf "%.*f (%.*f–%.*f)", s, a, s, b, s, c }')
	fl=$(awk -v a="$fmed" -v b="$flo" -v c="$fhi" -v s="$5" 'BEGIN { printf "%.*f (%.*f–%.*f)", s, a, s, b, s, c }')
	ra=$(awk -v a="$rmed" -v b="$rlo" -v c="$rhi" 'BEGIN { printf "**%.2fx** (%.2f–%.2f)", a, b, c }')
	echo "| $1 | $os $4 | $fl $4 | $ra |"
}

echo
echo "Finished in $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s; load at the end $load_end."
echo
echo "ostset against the floor, $runs runs: median (min–max); ratio: ostset / floor, the median of the $runs paired runs (min–max)."
echo
echo "| step | ostset | floor | ratio |"
echo "| --- | ---: | ---: | ---: |"
row "healthy(i) -> create(i+1), OrderedReady up (median per run)" os-gap fl-gap ms 1
row "up, OrderedReady, $ordered replicas (all healthy)" os-up-ord fl-up-ord s 2
row "rolling update, $ordered replicas (all replaced and healthy)" os-roll fl-roll s 2
row "down, $ordered replicas" os-down-ord fl-down-ord s 2
row "up, Parallel, $parallel replicas (all healthy)" os-up-par fl-up-par s 2
row "down, $parallel replicas" os-down-par fl-down-par s 2
row "up, OrderedReady, $rd_n, app ready at 2 s, healthcheck every 10s" os-rd-up fl-rd-up s 2
row "rolling update, $rd_n, app ready at 2 s, healthcheck every 10s" os-rd-roll fl-rd-roll s 2
row "up, OrderedReady, $rd_n, app ready at 2 s, healthcheck every 1s" os-rd1-up fl-rd1-up s 2
if [[ -v times[os-rd-ready] ]]; then
	# shellcheck disable=SC2086
	read -r lo med hi <<<"$(stats ${times[os-rd-par]})"
	echo
	echo "ostset up, Parallel, $rd_par of the app ready at 2 s (healthcheck every 10s): $med s ($lo–$hi)."
	# shellcheck disable=SC2086
	echo "From the app's readiness (start + 2 s) to the pass that saw it ready, $(wc -w <<<"${times[os-rd-ready]}") replicas: p50 $(pct 50 ${times[os-rd-ready]}) ms, p99 $(pct 99 ${times[os-rd-ready]}) ms, max $(pct 100 ${times[os-rd-ready]}) ms; made ready by ostset's probe: $(echo ${times[os-rd-byprobe]}) per run."
	# shellcheck disable=SC2086
	read -r lo med hi <<<"$(stats ${times[os-rd-cpu]})"
	# shellcheck disable=SC2086
	read -r flo fmed fhi <<<"$(stats ${times[os-rd-ecpu]})"
	echo "CPU during that up: the ostset process $med s ($lo–$hi), dockerd + containerd $fmed s ($flo–$fhi)."
	echo
	echo "Taken apart, ms (p50, p90, max; see decompose in $prog):"
	echo
	echo "| part | p50 | p90 | max |"
	echo "| --- | ---: | ---: | ---: |"
	for col in ready delay first wait exec read plan probes dexec; do
		# shellcheck disable=SC2086
		echo "| $col | $(pct 50 ${times[os-rd-$col]}) | $(pct 90 ${times[os-rd-$col]}) | $(pct 100 ${times[os-rd-$col]}) |"
	done
fi
fmed=
if [[ -v times[os-gap-all] ]]; then
	# shellcheck disable=SC2086
	read -r lo med hi <<<"$(stats ${times[os-gap-all]})"
	# shellcheck disable=SC2086
	read -r flo fmed fhi <<<"$(stats ${times[fl-gap-all]})"
	echo
	echo "Every healthy(i) -> create(i+1) gap ($(wc -w <<<"${times[os-gap-all]}") each): ostset $med ms ($lo–$hi), floor $fmed ms ($flo–$fhi)."
fi

if ((planner_count > 0)); then
	echo
	echo "The planner, $planner_count runs each: median ns/op, and as a share of the floor's median healthy -> create gap ($fmed ms)."
	echo
	echo "| benchmark | ns/op | allocs/op | / floor's gap |"
	echo "| --- | ---: | ---: | ---: |"
	for b in $(awk '/^Benchmark/ { n = $1; sub(/-[0-9]+$/, "", n); if (!seen[n]++) print n }' "$planner_out"); do
		ns=$(planner_median "$b")
		allocs=$(awk -v b="$b" '{ n = $1; sub(/-[0-9]+$/, "", n) } n == b { a = $7 } END { print a }' "$planner_out")
		share=- # no gap measured: BENCH_STEPS left out ordered
		[[ -z $fmed ]] || share=$(awk -v ns="$ns" -v ms="$fmed" 'BEGIN { printf "%.4fx", ns / 1e6 / ms }')
		echo "| ${b#Benchmark} | $ns | $allocs | $share |"
	done
fi

if ((base_runs > 0)); then
	echo
	echo "| baseline step ($replicas replicas, $base_runs runs) | min (s) | median (s) | max (s) |"
	echo "| --- | ---: | ---: | ---: |"
	for k in b-up-par b-down-par compose-up compose-healthy compose-down run-up run-healthy run-down; do
		# shellcheck disable=SC2086
		read -r lo med hi <<<"$(stats ${times[$k]})"
		echo "| ${titles[$k]} | $(printf '%.2f | %.2f | %.2f' "$lo" "$med" "$hi") |"
	done
fi
