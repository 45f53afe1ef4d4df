#!/bin/sh
# postgres.sh init|start|stop|status DIR [PORT]
#
# A private PostgreSQL cluster (Debian's postgresql package) for Temporal,
# under DIR/pgdata, listening on 127.0.0.1:PORT (default 55432) and a Unix
# socket in DIR/pgdata; it runs as the postgres user and is not the system
# service. `init` creates it once, with the role temporal (its password in
# DIR/postgres.password) owning the databases temporal and
# temporal_visibility; the schemas are schema.sh's job.
#
# On a host where PostgreSQL is the system service, do the same by hand
# (README.md, "PostgreSQL").
set -eu
cmd=${1:?usage: postgres.sh init|start|stop|status DIR [PORT]}
dir=$(cd "${2:?DIR}" 2>/dev/null && pwd || { mkdir -p "$2" && cd "$2" && pwd; })
port=${3:-55432}
pgbin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$pgbin/initdb" ] || { echo "postgres.sh: no PostgreSQL server binaries (apt-get install -y postgresql)" >&2; exit 1; }
data=$dir/pgdata
# After init the port is the one in postgresql.conf.
if [ -z "${3:-}" ] && [ -f "$data/postgresql.conf" ]; then
	port=$(sed -n 's/^port = //p' "$data/postgresql.conf" | tail -1)
fi

# as_pg runs a command as the postgres user (PostgreSQL refuses root).
as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $cmd in
init)
	if [ -f "$data/PG_VERSION" ]; then
		echo "postgres: $data exists"
		exit 0
	fi
	mkdir -p "$data"
	# The postgres user must reach DIR: the path to it must be traversable.
	[ "$(id -u)" = 0 ] && chown postgres:postgres "$data"
	chmod 700 "$data"
	umask 077
	[ -f "$dir/postgres.password" ] || head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$dir/postgres.password"
	as_pg "$pgbin/initdb" -D "$data" -U postgres --auth-local=peer --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
	cat >>"$data/postgresql.conf" <<CONF
# Temporal's database (deploy/temporal/postgres.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$data'
max_connections = 300
shared_buffers = 256MB
CONF
	as_pg "$pgbin/pg_ctl" -D "$data" -l "$data/postgres.log" -w start >/dev/null
	pw=$(cat "$dir/postgres.password")
	as_pg "$pgbin/psql" -h "$data" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q <<SQL
CREATE ROLE temporal LOGIN PASSWORD '$pw';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
SQL
	as_pg "$pgbin/pg_ctl" -D "$data" -w stop >/dev/null
	echo "postgres: initialised $data (port $port, role temporal)"
	;;
start)
	as_pg "$pgbin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t 60 status >/dev/null 2>&1 && exit 0
	as_pg "$pgbin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t 60 start >/dev/null
	echo "postgres: running on 127.0.0.1:$port (log $data/postgres.log)"
	;;
stop)
	as_pg "$pgbin/pg_ctl" -D "$data" -w -m fast stop >/dev/null 2>&1 || true
	;;
status)
	as_pg "$pgbin/pg_ctl" -D "$data" status
	;;
*)
	echo "usage: postgres.sh init|start|stop|status DIR [PORT]" >&2
	exit 2
	;;
esac
