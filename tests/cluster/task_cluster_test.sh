#!/usr/bin/env bash
# task_cluster_test.sh: `task cluster` after `berth dev`, from a clone, as a
# new user runs them. The clone is of this repository's HEAD (commit what
# you want tested), under a private directory like a home (0700), so
# neither it nor its .berth/ (0700 once `berth dev` made the token) is
# reachable by the postgres user.
#
# The tools `task cluster` would build (the temporal CLI, versitygw, the
# Temporal server, temporal-sql-tool, the UI server) are linked from
# BERTH_TOOLS (default this checkout's .berth/bin), as if built before;
# the images must exist (task image). Ports are free ones, so a cluster or
# `berth dev` already running here is left alone; every process this
# starts is ended by its pid. Needs root, Docker, Debian's postgresql.
# Exit 0: `task cluster` came up and its gateway answers `berth ls`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tools=${BERTH_TOOLS:-$repo/.berth/bin}
task_cmd=${TASK:-}
if [ -z "$task_cmd" ]; then
	if command -v task >/dev/null; then task_cmd=task; else task_cmd="go run github.com/go-task/task/v3/cmd/task@v3.54.0"; fi
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
for t in temporal versitygw temporal-server temporal-sql-tool temporal-ui-server; do
	[ -x "$tools/$t" ] || { echo "SKIP: $tools/$t is missing (task tools temporal:build temporal:ui)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the worker, PostgreSQL's own user)"; exit 77; }

home=$(mktemp -d /tmp/berth-user-XXXXXX)
chmod 700 "$home"
clone=$home/berth
dev_pid=""
cleanup() {
	set +e
	if [ -n "$dev_pid" ] && kill -0 "$dev_pid" 2>/dev/null; then
		kill -INT "$dev_pid"
		for _ in $(seq 150); do kill -0 "$dev_pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$dev_pid" 2>/dev/null
	fi
	if [ -x "$clone/deploy/temporal/cluster.sh" ]; then
		"$clone/deploy/temporal/cluster.sh" down >/dev/null 2>&1
		real=$(readlink -f "$clone/.berth/cluster/pgdata" 2>/dev/null)
		case $real in /var/lib/postgresql/berth/*) rm -rf "$real" ;; esac
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$home"
}
trap cleanup EXIT

# free_port: a loopback port nothing listens on.
free_port() {
	while :; do
		p=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}
wait_port() { # PORT SECONDS PID
	for _ in $(seq $(($2 * 5))); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

git -c advice.detachedHead=false clone --quiet "$repo" "$clone"
cd "$clone"
# The user's own CLI config is not touched: this "user" has its own (Go's
# caches stay where they are).
export GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE)
export HOME=$home XDG_CONFIG_HOME=$home/.config
# Other stacks on this machine keep their host-wide nftables tables.
export BERTH_NETGUARD=off
go build -o bin/berth ./cmd/berth

# 1. berth dev, until its gateway answers; then Ctrl-C.
dev_listen=$(free_port)
BERTH_HOST_ID=dev$$ BERTH_TEMPORAL_CLI=$tools/temporal setsid bin/berth dev --listen "127.0.0.1:$dev_listen" \
	--temporal-port "$(free_port)" --ui-port "$(free_port)" >"$home/dev.log" 2>&1 &
dev_pid=$!
wait_port "$dev_listen" 300 "$dev_pid" || { tail -30 "$home/dev.log" >&2; fail "berth dev did not come up"; }
kill -INT "$dev_pid"
wait "$dev_pid" || true
dev_pid=""
[ "$(stat -c %a .berth)" = 700 ] || fail ".berth is $(stat -c %a .berth) after berth dev, not 700"
[ -f .berth/token ] || fail "berth dev made no .berth/token"

# 2. task cluster, with the tools it would build linked in.
mkdir -p .berth/bin
for t in temporal versitygw temporal-server temporal-sql-tool temporal-ui-server; do ln -sf "$tools/$t" .berth/bin/$t; done
gw1=$(free_port) gw2=$(free_port)
export CLUSTER_PG_PORT=$(free_port) CLUSTER_GATEWAY_PORTS="$gw1 $gw2" CLUSTER_UI_PORT=$(free_port)
export CLUSTER_PORT_OFFSET=$((1000 + RANDOM % 4000)) BERTH_HOST_ID=tc$$
if ! $task_cmd cluster >"$home/cluster.log" 2>&1; then
	tail -30 "$home/cluster.log" >&2
	fail "task cluster failed after berth dev"
fi
grep -q "is up" "$home/cluster.log" || fail "task cluster did not say it is up"

# 3. What the user checks: the printed CLI line works, the token is private.
BERTH_URL=http://127.0.0.1:$gw1 BERTH_TOKEN=$(cat .berth/cluster/token) bin/berth ls >"$home/ls.out" 2>&1 ||
	{ cat "$home/ls.out" >&2; fail "berth ls against the cluster's gateway"; }
[ "$(stat -c %a .berth)" = 700 ] || fail ".berth is $(stat -c %a .berth) after task cluster, not 700"
for f in .berth/token .berth/cluster/token; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f"), not 600"
	runuser -u postgres -- cat "$f" >/dev/null 2>&1 && fail "the postgres user can read $f"
done
echo "ok: task cluster after berth dev, from a clone in $home"
