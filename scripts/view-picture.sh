#!/usr/bin/env bash
# Makes docs/view.svg, the README's picture of `ostset view` during a rolling
# update, from the real view: examples/web runs in a state directory of its own,
# `ostset up` changes its VERSION, and the view, in a tmux pane, is captured with
# its colours (tmux capture-pane -e) once a replica runs the new revision while
# others still run the old, and drawn by scripts/ansisvg.
# Needs tmux, Docker, the demo image (make demo-image) and no containers named
# web-0..web-2. Usage: scripts/view-picture.sh [OUT.svg]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/view.svg}
cols=${COLS:-120} rows=${ROWS:-30}
bin=$PWD/bin/ostset
make -s build
docker image inspect ostset/web:demo >/dev/null 2>&1 || make -s demo-image
work=$(mktemp -d)
export OSTSET_STATE_DIR=$work/state
session=ostset-picture-$$
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  if [ -n "${up_pid:-}" ]; then kill "$up_pid" 2>/dev/null || true; wait "$up_pid" 2>/dev/null || true; fi
  "$bin" down web --volumes >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

sed 's/VERSION: "1"/VERSION: "2"/' examples/web/set.yaml >"$work/set-v2.yaml"
"$bin" up -f examples/web/set.yaml --progress plain >/dev/null
tmux new-session -d -s "$session" -x "$cols" -y "$rows" \
  "env OSTSET_STATE_DIR=$OSTSET_STATE_DIR TERM=xterm-256color COLORTERM=truecolor $bin view web"
"$bin" up -f "$work/set-v2.yaml" --progress plain >"$work/up.log" 2>&1 &
up_pid=$!

# Wait until the rollout is half way: web-2 updated and ready, web-1 being replaced or
# still at the old revision, as the view shows it.
for _ in $(seq 1 600); do
  updated=$("$bin" get -o 'jsonpath={.items[?(@.name=="web")].updatedReplicas}' 2>/dev/null || echo 0)
  ready=$("$bin" get -o 'jsonpath={.items[?(@.name=="web")].readyReplicas}' 2>/dev/null || echo 0)
  if [ "${updated:-0}" -ge 1 ] && [ "${updated:-0}" -lt 3 ] && [ "${ready:-0}" -ge 2 ]; then
    break
  fi
  sleep 0.2
done
sleep 1 # the view redraws on the change
tmux capture-pane -t "$session" -e -p >"$work/screen.ansi"
go run ./scripts/ansisvg -cols "$cols" -rows "$rows" <"$work/screen.ansi" >"$out"
echo "wrote $out (updatedReplicas=$updated readyReplicas=$ready)"
