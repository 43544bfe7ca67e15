#!/bin/sh
# One-shot (temporal-schema service): create Temporal's two Postgres databases and bring their schemas
# up to date. Idempotent: existing databases are kept and only missing schema versions are applied.
set -eu

: "${POSTGRES_SEEDS:=postgresql}"
: "${DB_PORT:=5432}"
: "${POSTGRES_USER:=temporal}"
SCHEMA=/etc/temporal/schema/postgresql/v12

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}
  dir=${pair#*:}
  echo "schema: database $db"
  sql --db "$db" create
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$SCHEMA/$dir/versioned"
done
echo "schema: done"
