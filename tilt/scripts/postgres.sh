#!/usr/bin/env bash
# Makes sure the local PostgreSQL server runs and every service database
# exists, then watches it so Tilt shows the resource as down if it stops.
set -euo pipefail
# --once: start and create, then exit (.ci/run). --fresh: drop this stack's
# databases first (tilt ci runs on agentic_ci_*, made anew for each run).
mode="${1:-}"
prefix="${AGENTIC_DB_PREFIX:-agentic_}"
PGHOST=${PGHOST:-127.0.0.1}; PGPORT=${PGPORT:-5432}; PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER

if ! pg_isready -q; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "starting PostgreSQL"
    version="$(ls /etc/postgresql | sort -V | tail -1)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    # make down stops only a server that make dev (not --once: CI) started.
    if [ "$mode" != "--once" ]; then
      data="$(dirname "$0")/../../.data"; mkdir -p "$data" && echo "$version" > "$data/postgres.started"
    fi
  fi
  for _ in $(seq 1 30); do pg_isready -q && break; sleep 1; done
fi
pg_isready

if [ "$mode" = "--fresh" ]; then
  for db in $(psql -d postgres -tAc "SELECT datname FROM pg_database WHERE datname LIKE '${prefix//_/\\_}%' AND datname NOT LIKE '%\\_test\\_%'"); do
    psql -d postgres -qc "DROP DATABASE \"${db}\" WITH (FORCE)"
    echo "dropped database ${db}"
  done
fi

for svc in identity catalog documents wallet analytics; do
  db="${prefix}${svc}"
  if [ "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '${db}'")" != "1" ]; then
    psql -d postgres -qc "CREATE DATABASE ${db}"
    echo "created database ${db}"
  fi
done
echo "PostgreSQL ready with ${prefix}* databases"

[ "$mode" = "--once" ] && exit 0

# A stand-in for autovacuum while the server has it off (CI machines' servers
# are set up that way). Without it nothing ever ANALYZEs the service
# databases: the planner goes on assuming each table is as small as when it
# was created, and a statement the services prepared then keeps a plan that
# reads the whole table, slower with every row (docs/local-stack.md). Once a
# minute, this does what autovacuum would: VACUUM (ANALYZE) the tables past
# its dead-row threshold, ANALYZE those past its changed-row threshold (the
# defaults: 50 rows + 20 % / 10 % of the table), throttled as autovacuum is
# (vacuum_cost_delay 2 ms: unthrottled, a pass over tables of tens of
# thousands of rows held up the answers of the seconds it ran), in the
# agentic_* databases of make dev (not the throwaway *_test_* ones of go test).
maintain() {
  local db
  for db in $(psql -d postgres -tAc "SELECT datname FROM pg_database
      WHERE datname LIKE 'agentic\_%' AND datname NOT LIKE '%\_test\_%'"); do
    psql -d "$db" -qAt <<'SQL' || echo "maintenance of ${db} failed" >&2
SET vacuum_cost_delay = '2ms';
SELECT CASE WHEN s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) THEN 'VACUUM (ANALYZE) ' ELSE 'ANALYZE ' END
       || format('%I.%I', s.schemaname, s.relname)
FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
   OR s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
\gexec
SQL
  done
}
standin=false
if [ "$(psql -d postgres -tAc 'SHOW autovacuum')" = "off" ]; then
  standin=true
  echo "the server's autovacuum is off: VACUUM and ANALYZE as it would, once a minute"
fi

# The port, not pg_isready: that client costs about 20 ms of CPU a call
# (libpq's start-up), a burst on the cores the services' answers need.
ticks=0
while (exec 3<>"/dev/tcp/${PGHOST}/${PGPORT}") 2>/dev/null; do
  sleep 5
  ticks=$((ticks + 1))
  if $standin && [ $((ticks % 12)) -eq 0 ]; then maintain; fi
done
echo "PostgreSQL stopped" >&2
exit 1
