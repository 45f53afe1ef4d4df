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

# versioned DB: true when DB already has temporal-sql-tool's version table.
versioned() {
	PGPASSWORD=$SQL_PASSWORD psql -h "$SQL_HOST" -p "$SQL_PORT" -U "$SQL_USER" -d "$1" -tAq \
		-c "select to_regclass('schema_version') is not null" 2>/dev/null | grep -qx t
}

for pair in "${POSTGRES_DB:-temporal}:postgresql/v12/temporal" "${POSTGRES_VISIBILITY_DB:-temporal_visibility}:postgresql/v12/visibility"; do
	db=${pair%%:*}
	schema=${pair#*:}
	if ! versioned "$db"; then
		"$tool" --plugin postgres12 --db "$db" setup-schema -v 0.0
	fi
	"$tool" --plugin postgres12 --db "$db" update-schema --schema-name "$schema"
	echo "schema: $db at $(PGPASSWORD=$SQL_PASSWORD psql -h "$SQL_HOST" -p "$SQL_PORT" -U "$SQL_USER" -d "$db" -tAq -c 'select curr_version from schema_version')"
done
