#!/usr/bin/env bash
# How fast `ostset daemon` heals a replica removed behind its back, and one that exited, next to
# the floor program (bench/floor, mode react: on Docker's `destroy` event, one ContainerCreate and
# one ContainerStart with the same configuration, nothing else; with -on die, on `die` a forced
# ContainerRemove first), and what the daemon costs idle.
# Run by `make bench`; the results are written up in docs/benchmarks.md ("Daemon").
#
#   scripts/bench-daemon.sh         reaction to removals (BENCH_REMOVALS per side), to exits
#                                   (BENCH_CRASHES per side), then idle cost
#
# Reaction: two 5-replica sets of BENCH_IMAGE with the same template (healthcheck every 1 s, a
# volume per ordinal), one kept by `ostset daemon`, the other by `floor react`, each with its own
# state directory. Then BENCH_REMOVALS times, alternating: `docker rm -f` of a random replica of
# the daemon's set, wait until it is back and running; the same on the floor's set. The latency of
# one removal is read from Docker's own event timestamps: `destroy` of the container to the next
# `create` of the same name. Prints p50 and p99 of each side and their ratios. The daemon's side
# is then split at its `action` log line, written just before it calls ContainerCreate: destroy ->
# action is ostset's own part (event, queue, lock, state, observation, plan), action -> create
# Docker's create call.
#
# Exits: the floor is restarted in mode react -on die. Then BENCH_CRASHES times, alternating:
# `docker stop -t 1` of a random replica of the daemon's set (Docker does not restart an
# unless-stopped container stopped by hand), wait until a new one runs; the same on the floor's
# set. The latency is from Docker's `die` of the container to the next `create` of the name. On
# the daemon's side each exit is followed, outside the measured span, by `ostset recreate` of the
# replica (--wait=false, then until the daemon made it again): that starts its crash-loop
# back-off again, as deleting a pod does, so that every exit measured is a first one, answered at
# once (a second exit within 10 minutes is held back 10 s). The daemon's side is split at the
# `action` log line of its delete, written just before it calls ContainerRemove; the same pass
# then creates the replacement.
#
# Idle: BENCH_IDLE_SETS sets (default 10) of 10 replicas with a healthcheck every
# BENCH_IDLE_INTERVAL (default 10s), kept by the daemon (`up --wait=false`: the daemon creates
# them); once all are healthy, the daemon's CPU time (utime + stime in /proc/PID/stat) over
# BENCH_IDLE_SECONDS (default 60) as a percentage of one core, its RSS (VmRSS), the passes it ran
# meanwhile (ostset_reconciles_total from its /metrics) and the health_status events Docker sent
# for the benchmark's containers (each one wakes the daemon for a pass of its set).
#
# Everything is named after BENCH_PREFIX-<random> and labelled (io.ostset.set), and removed on
# exit, failure or interrupt included; nothing else on the engine is touched.
#
# Environment: BENCH_REMOVALS (300), BENCH_CRASHES (100), BENCH_IMAGE (ostset/web:demo),
# BENCH_IDLE_SETS (10), BENCH_IDLE_SECONDS (60), BENCH_IDLE_INTERVAL (10s), BENCH_SKIP_IDLE
# (unset), BENCH_PREFIX (bd), OSTSET (bin/ostset), DOCKER_HOST as usual.
set -euo pipefail
export LC_ALL=C

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }

case ${1:-} in
'') ;;
-h | --help) sed -n '2,46s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog (settings come from the environment; see $prog --help)" >&2; exit 2 ;;
esac

removals=${BENCH_REMOVALS:-300}
crashes=${BENCH_CRASHES:-100}
image=${BENCH_IMAGE:-ostset/web:demo}
idle_sets=${BENCH_IDLE_SETS:-10}
idle_secs=${BENCH_IDLE_SECONDS:-60}
idle_interval=${BENCH_IDLE_INTERVAL:-10s}
ostset=${OSTSET:-$root/bin/ostset}
[[ $removals =~ ^[1-9][0-9]*$ && $crashes =~ ^[1-9][0-9]*$ ]] || die "BENCH_REMOVALS and BENCH_CRASHES must be positive integers"
[[ $idle_sets =~ ^[1-9][0-9]*$ && $idle_secs =~ ^[1-9][0-9]*$ ]] || die "BENCH_IDLE_SETS and BENCH_IDLE_SECONDS must be positive integers"
[[ $idle_interval =~ ^[1-9][0-9]*(ms|s|m)$ ]] || die "BENCH_IDLE_INTERVAL must be a duration such as 10s"
[[ -x $ostset ]] || die "$ostset not found: run make build (or make bench)"
docker version >/dev/null 2>&1 || die "cannot reach the Docker engine${DOCKER_HOST:+ at $DOCKER_HOST}"
docker image inspect "$image" >/dev/null 2>&1 || die "image $image not found: run make demo-image"

name=${BENCH_PREFIX:-bd}-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostset-bench-daemon.XXXXXX")
dset=$name-d # kept by the daemon
fset=$name-f # kept by the floor
daemon_pid= floor_pid= events_pid=

cleanup() {
	local status=$? ids err
	trap - EXIT INT TERM
	set +e
	[[ -n $daemon_pid ]] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	[[ -n $floor_pid ]] && kill -TERM "$floor_pid" 2>/dev/null && wait "$floor_pid" 2>/dev/null
	[[ -n $events_pid ]] && kill "$events_pid" 2>/dev/null && wait "$events_pid" 2>/dev/null
	if ((status != 0)) && [[ -s $tmp/daemon.log ]]; then
		echo "--- daemon log (last lines):" >&2
		tail -n 20 "$tmp/daemon.log" >&2
	fi
	ids=$(docker ps -aq --filter "label=bench.ostset=$name")
	# shellcheck disable=SC2086 # one ID a word
	[[ -n $ids ]] && docker rm -f $ids >/dev/null
	ids=$(docker volume ls -q --filter "label=bench.ostset=$name")
	for v in $(docker volume ls -q); do
		[[ $v == *-"$name"-* ]] && docker volume inspect -f '{{index .Labels "io.ostset.set"}}' "$v" | grep -q "^$name-" && ids+=" $v"
	done
	# shellcheck disable=SC2086
	[[ -n ${ids// /} ]] && docker volume rm -f $ids >/dev/null
	ids=$(docker network ls -q --filter "name=^$name\$" --filter "label=io.ostset.managed=true")
	# Docker 20.10 can keep stale endpoints on a network whose containers were removed and made
	# again at once, as here; it then refuses to remove the network until the engine restarts.
	# That is Docker's, not a failed benchmark: say so and go on.
	if [[ -n $ids ]] && ! err=$(docker network rm "$ids" 2>&1 >/dev/null); then
		echo "$prog: warning: network $name left behind: $err" >&2
		echo "$prog: (Docker kept endpoints of removed containers; restarting the engine clears them, then: docker network rm $name)" >&2
	fi
	rm -rf "$tmp"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cp "$ostset" "$tmp/ostset"
ostset=$tmp/ostset
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/floor" ./bench/floor) || die "go build ./bench/floor failed"

# write_set FILE SET REPLICAS INTERVAL
write_set() {
	cat >"$1" <<EOF
name: $2
replicas: $3
network: $name
podManagementPolicy: Parallel
terminationGracePeriodSeconds: 1
template:
  image: $image
  labels: {bench.ostset: $name}
  healthcheck: {test: ["CMD", "/web", "health"], interval: $4, timeout: 5s, retries: 3}
volumeClaimTemplates:
  - {name: data, mountPath: /data}
EOF
}

# wait_running CONTAINER: until it exists and runs (120 s at most).
wait_running() {
	local deadline=$((SECONDS + 120))
	until [[ $(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null) == true ]]; do
		((SECONDS < deadline)) || die "$1 not back and running after 120 s"
		sleep 0.05
	done
}

# wait_replaced CONTAINER OLD-ID: until a container of that name other than OLD-ID runs (120 s at most).
wait_replaced() {
	local deadline=$((SECONDS + 120)) got
	while got=$(docker inspect -f '{{.Id}} {{.State.Running}}' "$1" 2>/dev/null) || true; [[ $got != *" true" || $got == "$2 "* ]]; do
		((SECONDS < deadline)) || die "$1 not replaced and running after 120 s"
		sleep 0.05
	done
}

# wait_all_healthy N: until N containers of the benchmark are healthy (15 min at most).
wait_all_healthy() {
	local deadline=$((SECONDS + 900))
	until (($(docker ps -q --filter "label=bench.ostset=$name" --filter health=healthy | wc -l) >= $1)); do
		((SECONDS < deadline)) || die "fewer than $1 containers healthy after 15 min"
		sleep 1
	done
}

# pct P: the P-th percentile (nearest rank) of the numbers on stdin.
pct() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { i = int((p * NR + 99) / 100); if (i < 1) i = 1; print a[i] }'; }

echo "# ostset daemon benchmark: $(nproc) CPUs, Docker $(docker version -f '{{.Server.Version}} (API {{.Server.APIVersion}})'), $("$ostset" version | head -n 1)"
echo "# names: $name-*; $removals removals, then $crashes exits per side, alternating; load: $(cut -d' ' -f1-3 /proc/loadavg)"

write_set "$tmp/d.yaml" "$dset" 5 1s
write_set "$tmp/f.yaml" "$fset" 5 1s
OSTSET_STATE_DIR=$tmp/daemon-state "$ostset" up -f "$tmp/d.yaml" --timeout 600s >/dev/null
OSTSET_STATE_DIR=$tmp/floor-state "$ostset" up -f "$tmp/f.yaml" --timeout 600s >/dev/null
# TZ=UTC: the log's timestamps are compared with Docker's below.
TZ=UTC OSTSET_STATE_DIR=$tmp/daemon-state "$ostset" daemon --metrics-addr 127.0.0.1:0 2>"$tmp/daemon.log" &
daemon_pid=$!
"$tmp/floor" react -label "io.ostset.set=$fset" 2>"$tmp/floor.log" &
floor_pid=$!
# await_line FILE TEXT: until FILE holds TEXT (30 s at most): both say when they are subscribed.
await_line() {
	local deadline=$((SECONDS + 30))
	until grep -q "$2" "$1"; do
		((SECONDS < deadline)) || die "no '$2' in $1 after 30 s: $(tail -n 5 "$1")"
		sleep 0.1
	done
}
await_line "$tmp/daemon.log" "docker events subscribed"
await_line "$tmp/floor.log" "watching"

# Docker's events, recorded as they come: the engine keeps only its last 256, and a busy engine
# (healthchecks are events too) would have dropped the first removals' by the end.
docker events --filter type=container --filter "label=bench.ostset=$name" --filter event=destroy --filter event=create \
	--format '{{.TimeNano}} {{.Action}} {{index .Actor.Attributes "name"}}' >"$tmp/events" &
events_pid=$!
sleep 1 # subscribed
for ((i = 1; i <= removals; i++)); do
	for set in "$dset" "$fset"; do
		c=$set-$((RANDOM % 5))
		docker rm -f "$c" >/dev/null
		wait_running "$c"
	done
done
sleep 1 # the last create's event is written
kill "$events_pid" && wait "$events_pid" || true
events_pid=

# destroy -> next create of the same name, from Docker's timestamps (ns).
awk -v d="$dset" -v f="$fset" '
	$2 == "destroy" { gone[$3] = $1 }
	$2 == "create" && ($3 in gone) { side = index($3, d "-") == 1 ? "daemon" : "floor"; printf "%s %.3f\n", side, ($1 - gone[$3]) / 1e6; delete gone[$3] }
' "$tmp/events" >"$tmp/lat"
for side in daemon floor; do
	n=$(grep -c "^$side " "$tmp/lat" || true)
	((n == removals)) || die "$side: $n of $removals removals seen recreated in Docker's events"
	declare "p50_$side=$(awk -v s="$side" '$1 == s { print $2 }' "$tmp/lat" | pct 50)"
	declare "p99_$side=$(awk -v s="$side" '$1 == s { print $2 }' "$tmp/lat" | pct 99)"
done
echo
echo "| destroy -> create ($removals removals each) | p50 (ms) | p99 (ms) |"
echo "| --- | ---: | ---: |"
echo "| ostset daemon | $p50_daemon | $p99_daemon |"
echo "| floor (create + start on destroy) | $p50_floor | $p99_floor |"
awk -v a="$p50_daemon" -v b="$p50_floor" -v c="$p99_daemon" -v e="$p99_floor" \
	'BEGIN { printf "| ratio daemon / floor | %.2fx | %.2fx |\n", a / b, c / e }'

# The daemon's side split at its `action` log line: the first create action for the replica after
# its destroy. The log's timestamps are in milliseconds: a line stamped M was written in [M, M+1);
# it is taken at M+1 (less 1 ns), so that one written in the millisecond of the destroy still
# follows it. ostset's part is over-stated by up to 1 ms, never under-stated.
grep 'msg=action ' "$tmp/daemon.log" | grep "action=\"create $dset-" |
	sed -E 's/^time=([^ ]+) .*action="create ([^ ]+) .*/\1 \2/' |
	while read -r ts replica; do echo "$(($(date -u -d "$ts" +%s%N) + 999999)) action $replica"; done >"$tmp/actions"
sort -n -s -k1,1 "$tmp/events" "$tmp/actions" | awk -v d="$dset" '
	index($3, d "-") != 1 { next }
	$2 == "destroy" { gone[$3] = $1; acted[$3] = 0 }
	$2 == "action" && ($3 in gone) && !acted[$3] { acted[$3] = $1 }
	$2 == "create" && ($3 in gone) { if (acted[$3]) printf "%.3f %.3f\n", (acted[$3] - gone[$3]) / 1e6, ($1 - acted[$3]) / 1e6; delete gone[$3] }
' >"$tmp/split"
n=$(wc -l <"$tmp/split")
echo
echo "| daemon, split at its create call ($n of $removals removals) | p50 (ms) | p99 (ms) |"
echo "| --- | ---: | ---: |"
echo "| destroy -> action (ostset) | $(awk '{ print $1 }' "$tmp/split" | pct 50) | $(awk '{ print $1 }' "$tmp/split" | pct 99) |"
echo "| action -> create (Docker's create call) | $(awk '{ print $2 }' "$tmp/split" | pct 50) | $(awk '{ print $2 }' "$tmp/split" | pct 99) |"

# Exits. The floor answers die now; the daemon is the same process.
kill -TERM "$floor_pid" && wait "$floor_pid" || true
: >"$tmp/floor.log"
"$tmp/floor" react -on die -label "io.ostset.set=$fset" 2>"$tmp/floor.log" &
floor_pid=$!
await_line "$tmp/floor.log" "watching"
docker events --filter type=container --filter "label=bench.ostset=$name" --filter event=die --filter event=create \
	--format '{{.TimeNano}} {{.Action}} {{index .Actor.Attributes "name"}}' >"$tmp/xevents" &
events_pid=$!
sleep 1 # subscribed
# Each exit's span, from before the stop to after the replacement runs, is written to
# $tmp/spans ("NS open NAME", "NS close NAME"): only the events inside it count, not those of
# the recreate that follows on the daemon's side.
for ((i = 1; i <= crashes; i++)); do
	for set in "$dset" "$fset"; do
		c=$set-$((RANDOM % 5))
		old=$(docker inspect -f '{{.Id}}' "$c")
		echo "$(date +%s%N) open $c" >>"$tmp/spans"
		docker stop -t 1 "$c" >/dev/null 2>&1 || true # the floor may remove it before stop returns
		wait_replaced "$c" "$old"
		echo "$(date +%s%N) close $c" >>"$tmp/spans"
		if [[ $set == "$dset" ]]; then
			old=$(docker inspect -f '{{.Id}}' "$c")
			OSTSET_STATE_DIR=$tmp/daemon-state "$ostset" recreate "$c" --wait=false >/dev/null ||
				die "recreate $c failed"
			wait_replaced "$c" "$old"
		fi
	done
done
sleep 1 # the last create's event is written
kill "$events_pid" && wait "$events_pid" || true
events_pid=

# die -> next create of the same name within the exit's span. The daemon's side is split at the
# `action` line of the delete, written before it calls ContainerRemove (the pass then creates the
# replacement as soon as the removal returns).
grep 'msg=action ' "$tmp/daemon.log" | grep "action=\"delete $dset-" |
	sed -E 's/^time=([^ ]+) .*action="delete ([^:]+): .*/\1 \2/' |
	while read -r ts replica; do echo "$(($(date -u -d "$ts" +%s%N) + 999999)) action $replica"; done >"$tmp/actions"
sort -n -s -k1,1 "$tmp/xevents" "$tmp/spans" "$tmp/actions" | awk -v d="$dset" '
	$2 == "open" { open[$3] = 1; dead[$3] = 0; acted[$3] = 0; next }
	$2 == "close" { delete open[$3]; next }
	!($3 in open) { next }
	$2 == "die" && !dead[$3] { dead[$3] = $1 }
	$2 == "action" && dead[$3] && !acted[$3] { acted[$3] = $1 }
	$2 == "create" && dead[$3] {
		side = index($3, d "-") == 1 ? "daemon" : "floor"
		printf "%s %.3f %.3f %.3f\n", side, ($1 - dead[$3]) / 1e6, acted[$3] ? (acted[$3] - dead[$3]) / 1e6 : -1, acted[$3] ? ($1 - acted[$3]) / 1e6 : -1
		delete open[$3]
	}
' >"$tmp/xlat"
for side in daemon floor; do
	n=$(grep -c "^$side " "$tmp/xlat" || true)
	((n == crashes)) || die "$side: $n of $crashes exits seen recreated in Docker's events"
	declare "p50_$side=$(awk -v s="$side" '$1 == s { print $2 }' "$tmp/xlat" | pct 50)"
	declare "p99_$side=$(awk -v s="$side" '$1 == s { print $2 }' "$tmp/xlat" | pct 99)"
done
echo
echo "| die -> create ($crashes exits each, docker stop -t 1) | p50 (ms) | p99 (ms) |"
echo "| --- | ---: | ---: |"
echo "| ostset daemon | $p50_daemon | $p99_daemon |"
echo "| floor (remove + create + start on die) | $p50_floor | $p99_floor |"
awk -v a="$p50_daemon" -v b="$p50_floor" -v c="$p99_daemon" -v e="$p99_floor" \
	'BEGIN { printf "| ratio daemon / floor | %.2fx | %.2fx |\n", a / b, c / e }'
awk '$1 == "daemon" && $3 >= 0 { print $3, $4 }' "$tmp/xlat" >"$tmp/xsplit"
n=$(wc -l <"$tmp/xsplit")
echo
echo "| daemon, split at its remove call ($n of $crashes exits) | p50 (ms) | p99 (ms) |"
echo "| --- | ---: | ---: |"
echo "| die -> action (ostset, the inspect of the container that died included) | $(awk '{ print $1 }' "$tmp/xsplit" | pct 50) | $(awk '{ print $1 }' "$tmp/xsplit" | pct 99) |"
echo "| action -> create (Docker's remove, then create calls) | $(awk '{ print $2 }' "$tmp/xsplit" | pct 50) | $(awk '{ print $2 }' "$tmp/xsplit" | pct 99) |"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

[[ -n ${BENCH_SKIP_IDLE:-} ]] && exit 0

echo
echo "# idle: $idle_sets sets x 10 replicas, healthcheck every $idle_interval, $idle_secs s"
kill -TERM "$floor_pid" && wait "$floor_pid" || true
floor_pid=
for ((s = 0; s < idle_sets; s++)); do
	write_set "$tmp/i$s.yaml" "$name-i$s" 10 "$idle_interval"
	OSTSET_STATE_DIR=$tmp/daemon-state "$ostset" up -f "$tmp/i$s.yaml" --wait=false >/dev/null
done
wait_all_healthy "$((idle_sets * 10 + 10))" # the daemon creates them; both 5-replica sets too
sleep 15                                    # the last passes and health events settle
hz=$(getconf CLK_TCK)
metrics=$(grep -o 'http://127.0.0.1:[0-9]*/metrics' "$tmp/daemon.log" | head -n 1)
[[ -n $metrics ]] || die "the daemon did not say where it serves /metrics"
cpu() { awk '{ print $14 + $15 }' "/proc/$daemon_pid/stat"; }
passes() { curl -fsS "$metrics" | awk '/^ostset_reconciles_total/ { n += $NF } END { print n + 0 }'; }
docker events --filter type=container --filter "label=bench.ostset=$name" --filter event=health_status \
	--format '{{.TimeNano}}' >"$tmp/health" &
events_pid=$!
sleep 1 # subscribed
p0=$(passes) c0=$(cpu) t0=$(date +%s.%N)
sleep "$idle_secs"
c1=$(cpu) t1=$(date +%s.%N) p1=$(passes)
kill "$events_pid" && wait "$events_pid" || true
events_pid=
health=$(wc -l <"$tmp/health")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$daemon_pid/status")
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v rss="$rss" -v n="$((idle_sets * 10 + 5))" \
	-v passes="$((p1 - p0))" -v health="$health" 'BEGIN {
	printf "| idle daemon, %d replicas | %.3f %% of a core over %.0f s | RSS %.1f MiB | %d passes | %d health_status events |\n",
		n, 100 * (c1 - c0) / hz / (t1 - t0), t1 - t0, rss / 1024, passes, health }'
