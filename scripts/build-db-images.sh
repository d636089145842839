#!/usr/bin/env bash
# Build local stand-ins for the database images the examples use, with no
# registry: a Debian bookworm rootfs made by debootstrap and imported once as
# ostset-test/debian:bookworm, then ordinary Dockerfiles (examples/images/<db>)
# that install Debian's packages on it and mimic the official image's paths.
#
#   scripts/build-db-images.sh [etcd|redis|postgres|all|base]
#
# Images: ostset-test/etcd:3, ostset-test/redis:7, ostset-test/postgres:15
# (base: only the base image, OSTSET_TEST_BASE to name it otherwise).
# Needs root (debootstrap) the first time, and Debian's mirror. Later runs hit
# the caches: the base image is kept (built again when its recipe changed),
# and docker build reuses its layers. It says how long debootstrap and the
# whole took; debootstrap's output goes to a log, shown (its end, and where
# the whole is) only when it fails.
set -euo pipefail

prog=$(basename "$0")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "$prog: $*" >&2; exit 1; }
exec 3>&2 # progress goes here, also where a command's stderr goes to a log

base=${OSTSET_TEST_BASE:-ostset-test/debian:bookworm}
what=${1:-all}
case $what in
etcd | redis | postgres) dbs=("$what") ;;
all) dbs=(etcd redis postgres) ;;
base) dbs=() ;;
-h | --help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "usage: $prog [etcd|redis|postgres|all|base]" >&2; exit 2 ;;
esac

command -v docker >/dev/null || die "docker not found in PATH"

# The Debian mirror this machine's apt uses (the build containers reach it too).
mirror() {
	local m
	m=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		head -n1 | awk '{print $2}')
	echo "${m:-http://deb.debian.org/debian}"
}

# dots runs a command, printing a dot every 10 s while it runs (to the
# script's stderr, also when the command's goes to a log), and returns its
# status.
dots() {
	"$@" &
	local pid=$!
	while ! wait_for "$pid" 10; do printf . >&3; done
	printf '\n' >&3
	wait "$pid"
}

# wait_for waits up to n seconds for pid to end; false if it still runs.
wait_for() {
	local pid=$1 n=$2 i
	for ((i = 0; i < n * 2; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	! kill -0 "$pid" 2>/dev/null
}

# baseVersion is the recipe of the base image, in its label: a base built by an
# earlier recipe is built again (1: /usr/share/man emptied of its directories
# too, so that a JRE's postinst, which links its man page in man1, failed).
baseVersion=2

build_base() {
	command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
	[[ $(id -u) -eq 0 ]] || die "debootstrap needs root to build $base"
	local dir log start=$SECONDS
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ostset-rootfs.XXXXXX")
	log=$(mktemp "${TMPDIR:-/tmp}/ostset-debootstrap.XXXXXX.log")
	trap 'rm -rf "$dir"' RETURN
	# Measured on a 2-core machine shared with other builds, near a Debian
	# mirror: debootstrap 28 s and 81 s, the whole of make test-images 163 s;
	# a far mirror takes longer.
	echo "$prog: building $base: debootstrap bookworm from $(mirror), once per machine (measured: 30 to 80 s on 2 shared cores near a mirror; a dot every 10 s)" >&2
	if ! dots debootstrap --variant=minbase bookworm "$dir/rootfs" "$(mirror)" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "debootstrap failed after $((SECONDS - start)) s; its whole output is in $log"
	fi
	echo "$prog: debootstrap: $(grep -c '^I: Retrieving ' "$log") packages installed in $((SECONDS - start)) s" >&2
	rm -f "$log"
	local r=$dir/rootfs
	# No service starts when a package is installed; no docs, man pages or
	# locales. The directories of the man sections stay, empty: a package's
	# scripts may link a page there (update-alternatives --slave, as a JRE's
	# does), which fails without the directory; dpkg keeps a directory that a
	# path-include names.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod +x "$r/usr/sbin/policy-rc.d"
	cat >"$r/etc/dpkg/dpkg.cfg.d/01-nodoc" <<-'EOF'
		path-exclude /usr/share/doc/*
		path-exclude /usr/share/man/*
		path-include /usr/share/man/man[1-9]
		path-exclude /usr/share/locale/*
		path-exclude /usr/share/info/*
	EOF
	printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$r/etc/apt/apt.conf.d/01-norecommends"
	rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r"/usr/share/doc/*
	mkdir -p "$r"/usr/share/man/man{1..9}
	find "$r/usr/share/man" ! -type d -delete
	tar -C "$r" -c . | docker import --change 'CMD ["/bin/bash"]' --change "LABEL io.ostset.test.base=$baseVersion" - "$base" >/dev/null
	echo "$base $(docker image inspect -f '{{.Id}}' "$base")"
}

[[ $(docker image inspect -f '{{index .Config.Labels "io.ostset.test.base"}}' "$base" 2>/dev/null) == "$baseVersion" ]] || build_base
[[ $what != base ]] || exit 0

declare -A tag=([etcd]=ostset-test/etcd:3 [redis]=ostset-test/redis:7 [postgres]=ostset-test/postgres:15)
for db in "${dbs[@]}"; do
	ctx=$root/examples/images/$db
	[[ -f $ctx/Dockerfile ]] || die "no $ctx/Dockerfile"
	log=$(mktemp "${TMPDIR:-/tmp}/ostset-build.XXXXXX")
	if ! docker image inspect "${tag[$db]}" >/dev/null 2>&1; then
		# Measured on 2 cores: etcd and redis about 10 s each, postgres about a minute.
		echo "$prog: building ${tag[$db]}: Debian's packages installed on $base (a dot every 10 s)" >&2
	fi
	if ! id=$(dots env DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE=$base" --tag "${tag[$db]}" "$ctx" 2>"$log"); then
		cat "$log" >&2
		rm -f "$log"
		die "docker build of ${tag[$db]} failed"
	fi
	rm -f "$log"
	echo "${tag[$db]} $id"
done
echo "$prog: done in $SECONDS s" >&2
