#!/usr/bin/env bash
# Makes sure the local Redis server runs, then watches it.
set -euo pipefail
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir "${REDIS_DIR:-/var/lib/redis}" --logfile "${REDIS_LOG:-/var/log/redis/ci.log}"
  # make down stops only a server that make dev (not --once: CI) started.
  if [ "${1:-}" != "--once" ]; then
    data="$(dirname "$0")/../../.data"; mkdir -p "$data" && touch "$data/redis.started"
  fi
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping
echo "Redis ready"
[ "${1:-}" = "--once" ] && exit 0
while redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; do sleep 5; done
echo "Redis stopped" >&2
exit 1
