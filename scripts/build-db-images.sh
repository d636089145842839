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
exec 3>&2 # progress goes here, also where a command's stderr goes to a log

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

# stages prints, from the "I: <Verb> …" lines of debootstrap on its input,
# the first line of each new stage, with the seconds since it began, and a
# line every 20 s when a stage runs long; the rest is left to the log.
stages() {
	local what=$1 start=$SECONDS last=$SECONDS stage="" line verb
	while true; do
		if IFS= read -r -t 20 line; then
			[[ $line == "I: "* ]] || continue
			verb=${line#I: }
			verb=${verb%% *}
			[[ $verb != "$stage" ]] || continue
			stage=$verb
			printf '%s: %s: %s (%ds)\n' "$prog" "$what" "${line#I: }" $((SECONDS - start)) >&2
			last=$SECONDS
		elif (($? > 128)); then # read timed out: still going
			((SECONDS - last < 20)) || {
				printf '%s: %s: still %s (%ds)\n' "$prog" "$what" "${stage:-starting}" $((SECONDS - start)) >&2
				last=$SECONDS
			}
		else
			break # end of input
		fi
	done
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

build_base() {
	command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
	[[ $(id -u) -eq 0 ]] || die "debootstrap needs root to build $base"
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ostset-rootfs.XXXXXX")
	trap 'rm -rf "$dir"' RETURN
	echo "$prog: debootstrap bookworm from $(mirror): about 5 to 6 minutes on 2 cores, once per machine" >&2
	# Its stages as they begin (retrieving, validating, extracting, unpacking,
	# configuring), with the time so far; the whole output goes to the log.
	if ! debootstrap --variant=minbase bookworm "$dir/rootfs" "$(mirror)" 2>&1 | tee "$dir/log" | stages debootstrap; then
		tail -n 20 "$dir/log" >&2
		die "debootstrap failed"
	fi
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
	if ! docker image inspect "${tag[$db]}" >/dev/null 2>&1; then
		echo "$prog: building ${tag[$db]}: Debian's packages installed on $base, a minute or two the first time (a dot every 10 s)" >&2
	fi
	if ! id=$(dots env DOCKER_BUILDKIT=0 docker build --quiet --build-arg "BASE=$base" --tag "${tag[$db]}" "$ctx" 2>"$log"); then
		cat "$log" >&2
		rm -f "$log"
		die "docker build of ${tag[$db]} failed"
	fi
	rm -f "$log"
	echo "${tag[$db]} $id"
done
