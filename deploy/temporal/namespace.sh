#!/bin/sh
# namespace.sh: creates Berth's namespace with its retention period, or
# sets the retention of an existing one, and registers Berth's search
# attributes (workflows/contract/names.go: SearchAttributeNames; the worker
# registers missing ones too, but a namespace is complete before any
# worker runs). Needs a running cluster and the temporal CLI.
#
# Environment (the CLI's own): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE
# (default), TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA,
# TEMPORAL_TLS_SERVER_NAME; TEMPORAL_RETENTION (default 720h: closed runs,
# each a continued-as-new segment of a sandbox's history, are kept 30 days);
# TEMPORAL_CLI (default temporal on PATH).
set -eu
cli=${TEMPORAL_CLI:-temporal}
ns=${TEMPORAL_NAMESPACE:-default}
retention=${TEMPORAL_RETENTION:-720h}
export TEMPORAL_NAMESPACE=$ns
# The CLI takes one frontend; berth's list form names several (all are
# waited for at the end).
all=$(echo "${TEMPORAL_ADDRESS:-127.0.0.1:7233}" | tr ',' ' ')
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS%%,*}

# The cluster may have just started: wait for a frontend to answer.
i=0
until "$cli" operator cluster health >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -ge 60 ]; then
		"$cli" operator cluster health
		exit 1
	fi
	sleep 1
done

if "$cli" operator namespace describe -n "$ns" >/dev/null 2>&1; then
	"$cli" operator namespace update -n "$ns" --retention "$retention" >/dev/null
else
	"$cli" operator namespace create -n "$ns" --retention "$retention" >/dev/null
fi
# A new namespace reaches every frontend within a few seconds.
i=0
until "$cli" operator search-attribute list -n "$ns" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -ge 30 ] && break
	sleep 1
done
have=$("$cli" operator search-attribute list -n "$ns" 2>/dev/null || true)
for sa in BerthSandbox BerthStatus BerthInstanceType BerthHost; do
	echo "$have" | grep -qw "$sa" && continue
	"$cli" operator search-attribute create -n "$ns" --name "$sa" --type Keyword >/dev/null
done
# Every frontend learns of new attributes from its cache refresh (seconds):
# until then a query by them fails. Wait, so that Berth starts on a
# namespace that is ready everywhere.
for a in $all; do
	i=0
	until "$cli" workflow count --address "$a" --query "BerthStatus = 'probe' AND BerthSandbox = 'probe' AND BerthInstanceType = 'probe' AND BerthHost = 'probe'" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -ge 60 ]; then
			echo "namespace: $a does not know Berth's search attributes yet" >&2
			exit 1
		fi
		sleep 1
	done
done
echo "namespace: $ns (retention $retention), search attributes BerthSandbox BerthStatus BerthInstanceType BerthHost"
