#!/usr/bin/env bash
# Build local stand-ins for the database images the examples use, with no
# registry: a Debian bookworm rootfs made by debootstrap and imported once as
# ostset-test/debian:bookworm, then ordinary Dockerfiles (examples/images/<db>)
# that install Debian's packages on it and mimic the official image's paths.
#
#   scripts/build-db-images.sh [etcd|redis|postgres|all]
#
# Images: ostset-test/etcd:3, ostset-test/redis:7, ostset-test/postgres:15.
# Needs root (debootstrap) the first time, and Debian's mirror. Later runs hit
# the caches: the base image is kept, and docker build reuses its layers.
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }

base=ostset-test/debian:bookworm
what=${1:-all}
case $what in
etcd | redis | postgres) dbs=("$what") ;;
all) dbs=(etcd redis postgres) ;;
-h | --help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog [etcd|redis|postgres|all]" >&2; exit 2 ;;
esac

command -v docker >/dev/null || die "docker not found in PATH"

# The Debian mirror this machine's apt uses (the build containers reach it too).
mirror() {
	local m
	m=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		head -n1 | awk '{print $2}')
	echo "${m:-http://deb.debian.org/debian}"
}

build_base() {
	command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
	[[ $(id -u) -eq 0 ]] || die "debootstrap needs root to build $base"
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ostset-rootfs.XXXXXX")
	trap 'rm -rf "$dir"' RETURN
	echo "$prog: debootstrap bookworm from $(mirror) (about 30 s, once per machine)" >&2
	debootstrap --variant=minbase bookworm "$dir/rootfs" "$(mirror)" >"$dir/log" 2>&1 ||
		{ tail -n 20 "$dir/log" >&2; die "debootstrap failed"; }
	local r=$dir/rootfs
	# No service starts when a package is installed; no docs, man pages or locales.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod +x "$r/usr/sbin/policy-rc.d"
	cat >"$r/etc/dpkg/dpkg.cfg.d/01-nodoc" <<-'EOF'
		path-exclude /usr/share/doc/*
		path-exclude /usr/share/man/*
		path-exclude /usr/share/locale/*
		path-exclude /usr/share/info/*
	EOF
	printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$r/etc/apt/apt.conf.d/01-norecommends"
	rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r"/usr/share/doc/* "$r"/usr/share/man/*
	tar -C "$r" -c . | docker import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
	echo "$base $(docker image inspect -f '{{.Id}}' "$base")"
}

docker image inspect "$base" >/dev/null 2>&1 || build_base

declare -A tag=([etcd]=ostset-test/etcd:3 [redis]=ostset-test/redis:7 [postgres]=ostset-test/postgres:15)
for db in "${dbs[@]}"; do
	ctx=$root/examples/images/$db
	[[ -f $ctx/Dockerfile ]] || die "no $ctx/Dockerfile"
	log=$(mktemp "${TMPDIR:-/tmp}/ostset-build.XXXXXX")
	if ! id=$(DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE=$base" --tag "${tag[$db]}" "$ctx" 2>"$log"); then
		cat "$log" >&2
		rm -f "$log"
		die "docker build of ${tag[$db]} failed"
	fi
	rm -f "$log"
	echo "${tag[$db]} $id"
done
