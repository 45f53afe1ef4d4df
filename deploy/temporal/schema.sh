#!/bin/sh
# schema.sh: creates or upgrades Temporal's schemas in PostgreSQL with
# temporal-sql-tool (its schemas are built into it: postgresql/v12/temporal
# and postgresql/v12/visibility, SQL visibility, no Elasticsearch).
#
# Safe to run on every start and after every server upgrade: a new
# database gets the versioning tables, then update-schema applies whatever
# versions are missing and nothing else. Upgrade the schema BEFORE starting
# a newer server, one minor server version at a time.
#
# Environment: POSTGRES_ADDR (127.0.0.1:5432), POSTGRES_USER (temporal),
# POSTGRES_PASSWORD, POSTGRES_DB (temporal), POSTGRES_VISIBILITY_DB
# (temporal_visibility), TEMPORAL_SQL_TOOL (temporal-sql-tool on PATH).
set -eu
tool=${TEMPORAL_SQL_TOOL:-temporal-sql-tool}
addr=${POSTGRES_ADDR:-127.0.0.1:5432}
export SQL_HOST=${addr%:*} SQL_PORT=${addr##*:} SQL_USER=${POSTGRES_USER:-temporal} SQL_PASSWORD=${POSTGRES_PASSWORD:-}
export SQL_PLUGIN=postgres12

# update DB SCHEMA: applies the missing versions. A database that has
# never been versioned (update-schema finds no schema_version table) gets
# the version tables first; any other failure stops here, so an existing
# database is never re-initialised.
update() {
	# A PostgreSQL that was just started listens before it accepts
	# sessions ("the database system is starting up", 57P03): wait for it.
	i=0
	while :; do
		if out=$("$tool" --db "$1" update-schema --schema-name "$2" 2>&1); then
			return 0
		fi
		case $out in
		*57P03*)
			if [ $i -lt 60 ]; then
				i=$((i + 1))
				sleep 1
				continue
			fi
			;;
		esac
		break
	done
	case $out in
	*schema_version*'does not exist'*) ;;
	*)
		echo "$out" >&2
		return 1
		;;
	esac
	"$tool" --db "$1" setup-schema -v 0.0 >/dev/null 2>&1 || { "$tool" --db "$1" setup-schema -v 0.0; return 1; }
	"$tool" --db "$1" update-schema --schema-name "$2" >/dev/null 2>&1 || "$tool" --db "$1" update-schema --schema-name "$2"
}

update "${POSTGRES_DB:-temporal}" postgresql/v12/temporal
echo "schema: ${POSTGRES_DB:-temporal} up to date (postgresql/v12/temporal)"
update "${POSTGRES_VISIBILITY_DB:-temporal_visibility}" postgresql/v12/visibility
echo "schema: ${POSTGRES_VISIBILITY_DB:-temporal_visibility} up to date (postgresql/v12/visibility)"
