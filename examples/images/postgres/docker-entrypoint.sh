#!/bin/sh
# The part of the official postgres image's entrypoint the examples rely on.
set -e
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA"
	chown postgres:postgres "$PGDATA"
	chmod 700 "$PGDATA"
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
	: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set (or POSTGRES_HOST_AUTH_METHOD=trust)}"
	user=${POSTGRES_USER:-postgres}
	pwfile=$(mktemp)
	printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
	# shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words
	initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" $POSTGRES_INITDB_ARGS
	rm -f "$pwfile"
	echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
	echo "host all all all ${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >>"$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
	if [ -n "$POSTGRES_DB" ] && [ "$POSTGRES_DB" != postgres ]; then
		psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
	fi
	for f in /docker-entrypoint-initdb.d/*; do
		case $f in
		*.sh) echo "running $f"; . "$f" ;;
		*.sql) echo "running $f"; psql -v ON_ERROR_STOP=1 -U "$user" -d "${POSTGRES_DB:-postgres}" -f "$f" ;;
		esac
	done
	pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@"
