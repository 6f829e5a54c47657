#!/usr/bin/env bash
# Makes sure the local PostgreSQL server runs and every service database
# exists, then watches it so Tilt shows the resource as down if it stops.
set -euo pipefail
PGHOST=${PGHOST:-127.0.0.1}; PGPORT=${PGPORT:-5432}; PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER

if ! pg_isready -q; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "starting PostgreSQL"
    version="$(ls /etc/postgresql | sort -V | tail -1)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    # make down stops only a server that make dev (not --once: CI) started.
    if [ "${1:-}" != "--once" ]; then
      data="$(dirname "$0")/../../.data"; mkdir -p "$data" && echo "$version" > "$data/postgres.started"
    fi
  fi
  for _ in $(seq 1 30); do pg_isready -q && break; sleep 1; done
fi
pg_isready

for svc in identity catalog documents wallet analytics; do
  db="agentic_${svc}"
  if [ "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '${db}'")" != "1" ]; then
    psql -d postgres -qc "CREATE DATABASE ${db}"
    echo "created database ${db}"
  fi
done
echo "PostgreSQL ready with agentic_* databases"

[ "${1:-}" = "--once" ] && exit 0
# The port, not pg_isready: that client costs about 20 ms of CPU a call
# (libpq's start-up), a burst on the cores the services' answers need.
while (exec 3<>"/dev/tcp/${PGHOST}/${PGPORT}") 2>/dev/null; do sleep 5; done
echo "PostgreSQL stopped" >&2
exit 1
