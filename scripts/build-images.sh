#!/usr/bin/env bash
# Build the images of the web example (examples/web) without any registry:
# a static Go binary in a FROM scratch image, built with the legacy builder.
#
#   scripts/build-images.sh demo   ostset/web:demo                   (the demo, examples/web/set.yaml)
#   scripts/build-images.sh test   ostset-test/web:v1, ostset-test/web:v2 (for ostset's tests)
#   scripts/build-images.sh [all]  all three
#
# v1 and v2 hold the same binary but differ in a label, so they have different image IDs:
# ostset's revision hash uses the image ID, so a set can be rolled from v1 to v2.
# Idempotent: with nothing changed, go and docker hit their caches and the IDs stay the same.
# Prints one line per image: "<tag> <image ID>".
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "$prog: $*" >&2; exit 1; }

what=${1:-all}
case $what in
demo | test | all) ;;
-h | --help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog [demo|test|all]" >&2; exit 2 ;;
esac
[[ $# -le 1 ]] || { echo "usage: $prog [demo|test|all]" >&2; exit 2; }

command -v go >/dev/null || die "go not found in PATH"
command -v docker >/dev/null || die "docker not found in PATH"
# The engine may be remote (DOCKER_HOST): build for its architecture.
if ! arch=$(docker version --format '{{.Server.Arch}}' 2>&1); then
	die "cannot reach the Docker engine${DOCKER_HOST:+ at $DOCKER_HOST}: ${arch##*$'\n'}"
fi

ctx=$(mktemp -d "${TMPDIR:-/tmp}/ostset-web.XXXXXX")
trap 'rm -rf "$ctx"' EXIT

(cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch \
	go build -trimpath -ldflags='-s -w' -o "$ctx/web" ./examples/web) ||
	die "go build ./examples/web failed"
cp "$root/examples/web/Dockerfile" "$ctx/Dockerfile"

# build TAG VERSION-LABEL: build the context under TAG and print "TAG ID".
# (Newer CLIs warn that the legacy builder is deprecated: stderr is shown only on failure.)
build() {
	local tag=$1 version=$2 id
	if ! id=$(DOCKER_BUILDKIT=0 docker build --quiet \
		--label org.opencontainers.image.title=ostset-web \
		--label "org.opencontainers.image.version=$version" \
		--tag "$tag" "$ctx" 2>"$ctx/build.err"); then
		cat "$ctx/build.err" >&2
		die "docker build of $tag failed"
	fi
	echo "$tag $id"
}

if [[ $what == demo || $what == all ]]; then
	build ostset/web:demo demo
fi
if [[ $what == test || $what == all ]]; then
	build ostset-test/web:v1 v1
	build ostset-test/web:v2 v2
fi
