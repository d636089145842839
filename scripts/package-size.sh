#!/usr/bin/env bash
# Fails when a package of the product holds more than MAX (default 3500) non-test lines:
# a package that outgrows one room gets split by responsibility (docs/architecture.md).
set -euo pipefail
cd "$(dirname "$0")/.."
max=${MAX:-3500}
status=0
for dir in $(go list -f '{{.Dir}}' ./... | sed "s|^$PWD/||"); do
  files=$(ls "$dir"/*.go 2>/dev/null | grep -v '_test\.go$' || true)
  [ -n "$files" ] || continue
  n=$(cat $files | wc -l)
  if [ "$n" -gt "$max" ]; then
    echo "$dir: $n non-test lines, more than $max: split it by responsibility (docs/architecture.md)" >&2
    status=1
  fi
done
exit $status
