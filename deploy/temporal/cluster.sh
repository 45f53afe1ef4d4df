#!/usr/bin/env bash
# cluster.sh up|down|status|kill-node N|start-node N|env
#
# A whole production-shaped Berth on one machine: a private PostgreSQL,
# three Temporal server nodes on 127.0.0.2, .3 and .4 sharing it (they find
# each other through the database), the Temporal UI when it is built, two
# gateways and a worker, all with mutual TLS to Temporal. State lives in
# BERTH_CLUSTER_DIR (default .berth/cluster); every process is started in
# the background with its pid in DIR/run/*.pid, and `down` ends exactly
# those. `task cluster` runs `up`.
#
# Environment: BERTH_TOOLS (.berth/bin: temporal-server, temporal-sql-tool,
# temporal, temporal-ui-server), BERTH_BIN (bin: berth, berth-supervisor),
# CLUSTER_PG_PORT (55432), CLUSTER_PORT_OFFSET (0: added to every Temporal
# port), CLUSTER_GATEWAY_PORTS ("8181 8182"), CLUSTER_UI_PORT (8280),
# TEMPORAL_RETENTION (720h), BERTH_DEFAULT_IMAGE, CLUSTER_METRICS_PORT
# (9480: the worker's /metrics, each gateway the next port, each Temporal
# node on its own address), CLUSTER_PROMETHEUS_PORT (9090: Prometheus,
# started when Debian's prometheus package is installed).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${BERTH_CLUSTER_DIR:-$root/.berth/cluster}
tools=${BERTH_TOOLS:-$root/.berth/bin}
bin=${BERTH_BIN:-$root/bin}
pg_port=${CLUSTER_PG_PORT:-55432}
offset=${CLUSTER_PORT_OFFSET:-0}
gw_ports=${CLUSTER_GATEWAY_PORTS:-8181 8182}
ui_port=${CLUSTER_UI_PORT:-8280}
metrics_port=${CLUSTER_METRICS_PORT:-9480}
prom_port=${CLUSTER_PROMETHEUS_PORT:-9090}
nodes="127.0.0.2 127.0.0.3 127.0.0.4"
frontend_port=$((7233 + offset))
run=$dir/run
mkdir -p "$dir" "$run"
dir=$(cd "$dir" && pwd)
# PostgreSQL runs as its own user and must pass through DIR to its data;
# when DIR's parents are private (.berth/ after `berth dev`), postgres.sh
# keeps the data in the postgres user's home instead (DIR/pgdata links it).
chmod 711 "$dir"
chmod 700 "$run"
# Env files and logs hold the database password and Berth's token: private.
umask 077

addresses() {
	a=""
	for ip in $nodes; do a="$a${a:+,}$ip:$frontend_port"; done
	echo "$a"
}

# node_env IP: the environment of the Temporal node on IP.
node_env() {
	echo "TEMPORAL_BIND_IP=$1"
	echo "TEMPORAL_PORT_OFFSET=$offset"
	echo "TEMPORAL_CERTS_DIR=$dir/certs"
	echo "TEMPORAL_DYNAMIC_CONFIG=$here/config/dynamicconfig.yaml"
	echo "POSTGRES_ADDR=127.0.0.1:$pg_port"
	echo "POSTGRES_PASSWORD=$(cat "$dir/postgres.password")"
	echo "TEMPORAL_METRICS_ADDR=$1:$metrics_port"
}

# client_env ROLE: how a client with ROLE's certificate reaches the cluster
# (the temporal CLI reads the same variables as berth).
client_env() {
	echo "TEMPORAL_ADDRESS=${2:-$(addresses)}"
	echo "TEMPORAL_TLS_CERT=$dir/certs/$1.pem"
	echo "TEMPORAL_TLS_KEY=$dir/certs/$1.key"
	echo "TEMPORAL_TLS_CA=$dir/certs/ca.pem"
	echo "TEMPORAL_TLS_SERVER_NAME=temporal"
}

# spawn NAME ENVFILE CMD...: starts CMD in the background, in its own
# session, with ENVFILE's variables, logging to DIR/NAME.log.
spawn() {
	name=$1 envfile=$2
	shift 2
	if alive "$name"; then
		echo "$name: already running (pid $(cat "$run/$name.pid"))"
		return 0
	fi
	(
		set -a
		. "$envfile"
		set +a
		exec setsid "$@" >>"$dir/$name.log" 2>&1 </dev/null
	) &
	echo $! >"$run/$name.pid"
}

alive() {
	[ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null
}

# stop NAME: SIGTERM, then SIGKILL after 15 s, by pid.
stop() {
	[ -f "$run/$1.pid" ] || return 0
	pid=$(cat "$run/$1.pid")
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$run/$1.pid"
}

wait_port() { # HOST PORT SECONDS
	i=0
	while ! (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge $(($3 * 5)) ] && return 1
		sleep 0.2
	done
}

start_node() { # N (1-3)
	ip=$(echo $nodes | cut -d' ' -f"$1")
	node_env "$ip" >"$run/node$1.env"
	spawn "node$1" "$run/node$1.env" "$tools/temporal-server" --config-file "$here/config/temporal.yaml" start
}

need() {
	for f in "$@"; do
		[ -x "$f" ] || { echo "cluster: $f is missing (task temporal:build, task build)" >&2; exit 1; }
	done
}

up() {
	need "$tools/temporal-server" "$tools/temporal-sql-tool" "$tools/temporal" "$bin/berth" "$bin/berth-supervisor"
	"$here/certs.sh" "$dir/certs" temporal >/dev/null
	"$here/postgres.sh" init "$dir" "$pg_port"
	"$here/postgres.sh" start "$dir"
	POSTGRES_ADDR=127.0.0.1:$pg_port POSTGRES_PASSWORD=$(cat "$dir/postgres.password") \
		TEMPORAL_SQL_TOOL=$tools/temporal-sql-tool "$here/schema.sh"
	# One node at a time: each writes the cluster's metadata as it starts,
	# and a node racing another one's write fails.
	for n in 1 2 3; do
		start_node $n
		ip=$(echo $nodes | cut -d' ' -f$n)
		wait_port "$ip" "$frontend_port" 90 || { echo "cluster: node $n did not listen; see $dir/node$n.log" >&2; exit 1; }
	done
	client_env admin "127.0.0.2:$frontend_port" >"$run/admin.env"
	(set -a && . "$run/admin.env" && TEMPORAL_ADDRESS=$(addresses) TEMPORAL_CLI=$tools/temporal "$here/namespace.sh")

	ui="(not built: task temporal:ui)"
	if [ -x "$tools/temporal-ui-server" ]; then
		{
			client_env admin "127.0.0.2:$frontend_port"
			echo "TEMPORAL_CERTS_DIR=$dir/certs"
			echo "TEMPORAL_UI_PORT=$ui_port"
		} >"$run/ui.env"
		spawn ui "$run/ui.env" "$tools/temporal-ui-server" --root "$here/config" --config ui --env berth start
		ui="http://127.0.0.1:$ui_port"
	fi

	[ -f "$dir/token" ] || head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/token"
	[ -f "$dir/secret" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret"
	[ -f "$dir/secrets-key" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secrets-key"
	chmod 600 "$dir/token" "$dir/secret" "$dir/secrets-key"
	common() {
		echo "BERTH_TOKEN=$(cat "$dir/token")"
		echo "BERTH_SECRET=$(cat "$dir/secret")"
		echo "BERTH_SECRETS_KEY=$(cat "$dir/secrets-key")"
		echo "BERTH_DATA_DIR=$dir/berth"
		echo "BERTH_HOST_ID=${BERTH_HOST_ID:-cluster}"
		echo "BERTH_SUPERVISOR=$bin/berth-supervisor"
		[ -n "${BERTH_DEFAULT_IMAGE:-}" ] && echo "BERTH_DEFAULT_IMAGE=$BERTH_DEFAULT_IMAGE"
		true
	}
	{ common; client_env worker; echo "BERTH_METRICS_LISTEN=127.0.0.1:$metrics_port"; } >"$run/worker.env"
	spawn worker "$run/worker.env" "$bin/berth" worker
	n=0
	urls=""
	for p in $gw_ports; do
		n=$((n + 1))
		{
			common
			client_env gateway
			echo "BERTH_LISTEN=127.0.0.1:$p"
			echo "BERTH_METRICS_LISTEN=127.0.0.1:$((metrics_port + n))"
		} >"$run/gateway$n.env"
		spawn "gateway$n" "$run/gateway$n.env" "$bin/berth" gateway
		wait_port 127.0.0.1 "$p" 60 || { echo "cluster: gateway $n did not listen; see $dir/gateway$n.log" >&2; exit 1; }
		urls="$urls${urls:+ }http://127.0.0.1:$p"
	done
	start_prometheus

	cat <<EOF

Berth on a three-node Temporal cluster is up.
  gateways:   $urls
  token:      $(cat "$dir/token")   (also in $dir/token)
  Temporal:   $(addresses)  (mutual TLS, server name "temporal")
  UI:         $ui
  Prometheus: $prom
  PostgreSQL: 127.0.0.1:$pg_port, role temporal, password in $dir/postgres.password, data in $(readlink -f "$dir/pgdata")
  logs:       $dir/*.log      pids: $run/*.pid
  CLI:        BERTH_URL=http://127.0.0.1:$(echo $gw_ports | cut -d' ' -f1) BERTH_TOKEN=\$(cat $dir/token) $bin/berth ls
  temporal:   (set -a; . $run/admin.env; $tools/temporal workflow list)
  fail over:  $0 kill-node 2; $0 start-node 2
  stop:       $0 down   (task cluster:down)
EOF
}

# start_prometheus scrapes the cluster with deploy/observability's
# configuration (targets written for this layout) when Prometheus is
# installed, and sets prom to say where it is.
start_prometheus() {
	prom="(not installed: apt-get install prometheus)"
	if ! command -v prometheus >/dev/null; then
		return 0
	fi
	obs=$root/deploy/observability
	cfg=$dir/prometheus
	mkdir -p "$cfg/targets" "$cfg/data"
	cp "$obs/prometheus.yml" "$obs/alerts.yml" "$cfg/"
	{
		echo "- targets:"
		n=0
		for p in $gw_ports; do n=$((n + 1)); echo "    - 127.0.0.1:$((metrics_port + n))"; done
	} >"$cfg/targets/gateways.yml"
	printf -- '- targets:\n    - 127.0.0.1:%s\n' "$metrics_port" >"$cfg/targets/workers.yml"
	{
		echo "- targets:"
		for ip in $nodes; do echo "    - $ip:$metrics_port"; done
	} >"$cfg/targets/temporal.yml"
	echo "PATH=$PATH" >"$run/prometheus.env"
	spawn prometheus "$run/prometheus.env" prometheus --config.file="$cfg/prometheus.yml" \
		--storage.tsdb.path="$cfg/data" --web.listen-address="127.0.0.1:$prom_port"
	prom="http://127.0.0.1:$prom_port (scraping the gateways, the worker and the Temporal nodes)"
}

down() {
	for name in prometheus gateway1 gateway2 gateway3 worker ui node1 node2 node3; do stop "$name"; done
	"$here/postgres.sh" stop "$dir"
	echo "cluster: stopped (state kept in $dir and $(readlink -f "$dir/pgdata"); remove both to start afresh)"
}

status() {
	for f in "$run"/*.pid; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .pid)
		if alive "$name"; then echo "$name: running (pid $(cat "$f"))"; else echo "$name: dead"; fi
	done
	"$here/postgres.sh" status "$dir" | head -1
}

case ${1:-} in
up) up ;;
down) down ;;
status) status ;;
kill-node) # SIGKILL, as a crash would
	[ -f "$run/node${2:?N}.pid" ] && kill -9 "$(cat "$run/node$2.pid")" && rm -f "$run/node$2.pid"
	echo "node$2: killed"
	;;
start-node) start_node "${2:?N}" && echo "node$2: started" ;;
env) client_env "${2:-admin}" ;;
*)
	echo "usage: cluster.sh up|down|status|kill-node N|start-node N|env [ROLE]" >&2
	exit 2
	;;
esac
