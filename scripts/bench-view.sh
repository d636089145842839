#!/usr/bin/env bash
# What `ostset view` costs idle, and how soon it redraws after a Docker event.
#
# BENCH_VIEW_SETS sets (default 10) of 10 replicas of BENCH_IMAGE with a healthcheck every
# BENCH_VIEW_INTERVAL (default 10s), Parallel. `ostset view` runs in a tmux session (200x60).
# Idle: once all are healthy, the view's CPU time (utime + stime in /proc/PID/stat) over
# BENCH_VIEW_SECONDS (default 60) as a percentage of one core, and its RSS (VmRSS).
# Redraw: BENCH_VIEW_EVENTS times (default 10), `docker kill` of a replica of the first set
# shown by `ostset view SET` (no daemon runs, so nothing recreates it): the time from the `die`
# event (Docker's own timestamp) to the first tmux capture-pane (polled every 10 ms) that shows
# the row exited; then `docker start` it again.
#
# Everything is named after lvb<random> and labelled (io.ostset.set), and removed on exit.
# Environment: BENCH_IMAGE (ostset-test/web:v1), OSTSET (bin/ostset), DOCKER_HOST as usual.
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ostset=${OSTSET:-$root/bin/ostset}
image=${BENCH_IMAGE:-ostset-test/web:v1}
sets=${BENCH_VIEW_SETS:-10}
seconds=${BENCH_VIEW_SECONDS:-60}
events=${BENCH_VIEW_EVENTS:-10}
interval=${BENCH_VIEW_INTERVAL:-10s}
prefix=lvb$(head -c3 /dev/urandom | od -An -tx1 | tr -d ' \n')
state=$(mktemp -d)
export OSTSET_STATE_DIR=$state
cleanup() {
  tmux kill-session -t "$prefix" 2>/dev/null || true
  tmux kill-session -t "$prefix-r" 2>/dev/null || true
  for i in $(seq 0 $((sets - 1))); do
    ids=$(docker ps -aq --filter "label=io.ostset.set=$prefix-$i")
    [ -z "$ids" ] || docker rm -f $ids >/dev/null
  done
  docker network rm "$prefix-net" >/dev/null 2>&1 || true
  rm -rf "$state"
}
trap cleanup EXIT
for i in $(seq 0 $((sets - 1))); do
  cat > "$state/$i.yaml" <<YAML
name: $prefix-$i
replicas: 10
network: $prefix-net
podManagementPolicy: Parallel
terminationGracePeriodSeconds: 1
template:
  image: $image
  healthcheck: {test: ["CMD", "/web", "health"], interval: $interval, timeout: 5s, retries: 3}
YAML
  "$ostset" up -f "$state/$i.yaml" --progress plain >/dev/null
done
echo "$sets sets of 10 replicas healthy"

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tmux new-session -d -s "$prefix" -x 200 -y 60 "OSTSET_STATE_DIR=$state $ostset view"
sleep 5
pid=$(pgrep -f "^$ostset view$" | head -1)
hz=$(getconf CLK_TCK)
t0=$(cpu "$pid"); sleep "$seconds"; t1=$(cpu "$pid")
rss=$(awk '/VmRSS/ {print $2 / 1024 " MiB"}' "/proc/$pid/status")
echo "idle: cpu $(awk -v a="$t0" -v b="$t1" -v s="$seconds" -v hz="$hz" 'BEGIN {printf "%.2f", 100 * (b - a) / hz / s}')% of one core over ${seconds}s, rss $rss"
tmux kill-session -t "$prefix"

tmux new-session -d -s "$prefix-r" -x 200 -y 60 "OSTSET_STATE_DIR=$state $ostset view $prefix-0"
sleep 3
for n in $(seq 1 "$events"); do
  name=$prefix-0-$((n % 10))
  docker events --filter "container=$name" --filter event=die --format '{{.TimeNano}}' > "$state/ev" &
  evpid=$!
  sleep 1 # the events client has subscribed by then
  docker kill "$name" >/dev/null
  while ! tmux capture-pane -p -t "$prefix-r" | grep -q "$name  *exited"; do sleep 0.01; done
  seen=$(date +%s%N)
  kill "$evpid"; wait "$evpid" 2>/dev/null || true
  at=$(head -1 "$state/ev")
  echo "redraw $n: $(( (seen - at) / 1000000 )) ms"
  docker start "$name" >/dev/null
  while tmux capture-pane -p -t "$prefix-r" | grep -q "$name  *exited"; do sleep 0.01; done
done
