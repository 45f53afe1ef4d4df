#!/bin/sh
# postgres.sh init|start|stop|status DIR [PORT]
#
# A private PostgreSQL cluster (Debian's postgresql package) for Temporal,
# under DIR/pgdata, listening on 127.0.0.1:PORT (default 55432) and a Unix
# socket in its data directory; it runs as the postgres user and is not the
# system service. `init` creates it once, with the role temporal (its
# password in DIR/postgres.password) owning the databases temporal and
# temporal_visibility; the schemas are schema.sh's job.
#
# The postgres user must reach its data directory. When it cannot reach DIR
# (DIR is under a private directory: .berth/, 0700 since `berth dev` keeps
# the token there, or a 0700 home), the data goes to the postgres user's own
# home instead, /var/lib/postgresql/berth/<DIR's name>-<hash of DIR's path>,
# and DIR/pgdata is a symbolic link to it; DIR itself stays private.
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
# A data directory moved out of DIR (see above) is reached by its real path.
[ -L "$data" ] && data=$(readlink -f "$data")
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
	if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$dir"; then
		# DIR is private: the data lives where its user can reach it.
		home=$(getent passwd postgres | cut -d: -f6)
		real=$home/berth/$(basename "$dir")-$(printf %s "$dir" | sha256sum | cut -c1-12)
		if [ -e "$real" ] && [ -n "$(ls -A "$real")" ]; then
			echo "postgres.sh: $real holds the data of an earlier cluster in $dir; remove it to start afresh" >&2
			exit 1
		fi
		mkdir -p "$real"
		chown postgres:postgres "$home/berth"
		chmod 700 "$home/berth"
		rm -f "$data"
		ln -s "$real" "$data"
		data=$real
	fi
	mkdir -p "$data"
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
