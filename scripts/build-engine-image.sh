#!/usr/bin/env bash
# Build ostset-test/dockerd:20: a Docker engine in a container (Debian's
# docker.io on the project's Debian base image, scripts/images/dockerd), for
# the tests of an engine whose files are not this machine's, as Docker
# Desktop's VM or a remote host is (integration/remoteengine_test.go).
#
#   scripts/build-engine-image.sh
#
# The base image (ostset-test/debian:bookworm, OSTSET_TEST_BASE to name
# another) is made by scripts/build-db-images.sh when it is missing. About
# 30 s the first time (apt inside docker build); later runs hit the cache.
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${OSTSET_TEST_BASE:-ostset-test/debian:bookworm}
tag=ostset-test/dockerd:20

case ${1:-} in
-h | --help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
"") ;;
*) echo "usage: $prog" >&2; exit 2 ;;
esac

if ! docker image inspect "$base" >/dev/null 2>&1; then
	"$root/scripts/build-db-images.sh" etcd >/dev/null
fi
log=$(mktemp "${TMPDIR:-/tmp}/ostset-build.XXXXXX")
trap 'rm -f "$log"' EXIT
if ! id=$(DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE=$base" --tag "$tag" "$root/scripts/images/dockerd" 2>"$log"); then
	cat "$log" >&2
	echo "$prog: docker build of $tag failed" >&2
	exit 1
fi
echo "$tag $id"
