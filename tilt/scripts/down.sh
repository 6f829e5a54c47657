#!/usr/bin/env bash
# `make down`: stops everything `make dev` started, and nothing else.
#
#   1. The `tilt up` of this clone: the pid `make dev` wrote to
#      .data/tilt-up.pid, or whatever listens on a Tilt UI port (10350, 10351)
#      from inside this clone. Tilt stops its local resources (the serve_cmd
#      process groups: services, simulators, devkafka, maildev, the Auth
#      emulator, the gateway) when it exits.
#   2. `tilt down`: deletes what Kubernetes mode deployed (with
#      AGENTIC_TILT_K8S=1, as for `make dev`); a no-op in local mode.
#   3. Any process still listening on a port of the local stack whose working
#      directory or executable is inside this clone (a child that outlived
#      Tilt, e.g. the emulator's Java or a `tilt up` killed with -9).
#      Processes of other clones or of the system are left alone.
#   4. PostgreSQL and Redis only if tilt/scripts/postgres.sh / redis.sh
#      started them (marker files in .data/); a server that already ran
#      before `make dev` (the machine's own) keeps running.
#
# Environment (tests): AGENTIC_ROOT (the clone), AGENTIC_STACK_PORTS (ports to
# sweep), AGENTIC_DOWN_SKIP_TILT=1 (no tilt command), AGENTIC_DOWN_GRACE (s).
set -uo pipefail

ROOT="$(cd "${AGENTIC_ROOT:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd -P)"
DATA="$ROOT/.data"
GRACE="${AGENTIC_DOWN_GRACE:-15}"
TILT_PORTS="10350 10351"
# The local stack (README.md, "Local ports"), PostgreSQL and Redis excluded.
STACK_PORTS="${AGENTIC_STACK_PORTS-8080 $(seq -s ' ' 8101 8112) 9092 9099 $(seq -s ' ' 9101 9107) 2525 1025 1080 4000 4400 4500 $TILT_PORTS}"

# inside_clone PID: the process runs from this clone (cwd or executable).
inside_clone() {
  local pid=$1 cwd exe
  cwd="$(readlink "/proc/$pid/cwd" 2>/dev/null)" || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
  [[ "$cwd/" == "$ROOT/"* || "$exe" == "$ROOT/"* ]]
}

# listeners PORT: pids listening on 127.0.0.1/0.0.0.0/[::]:PORT.
listeners() {
  ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u
}

# stop PID...: SIGTERM, then SIGKILL after GRACE seconds.
stop() {
  local pid alive
  [ $# -eq 0 ] && return 0
  kill -TERM "$@" 2>/dev/null || true
  for _ in $(seq 1 $((GRACE * 5))); do
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && return 0
    sleep 0.2
  done
  for pid in "$@"; do
    if kill -0 "$pid" 2>/dev/null; then
      echo "down: pid $pid ignored SIGTERM for ${GRACE}s, killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# 1. tilt up
tilt_pids=()
if [ -f "$DATA/tilt-up.pid" ]; then
  pid="$(cat "$DATA/tilt-up.pid")"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q tilt && inside_clone "$pid"; then
    tilt_pids+=("$pid")
  fi
fi
for port in $TILT_PORTS; do
  for pid in $(listeners "$port"); do
    inside_clone "$pid" && tilt_pids+=("$pid")
  done
done
if [ ${#tilt_pids[@]} -gt 0 ]; then
  mapfile -t tilt_pids < <(printf '%s\n' "${tilt_pids[@]}" | sort -u)
  echo "down: stopping tilt up (pid ${tilt_pids[*]}) and its local resources"
  stop "${tilt_pids[@]}"
fi
rm -f "$DATA/tilt-up.pid"

# 2. tilt down (Kubernetes mode)
if [ "${AGENTIC_DOWN_SKIP_TILT:-}" != 1 ] && command -v tilt >/dev/null 2>&1; then
  (cd "$ROOT" && tilt down >/dev/null 2>&1) || echo "down: tilt down failed (ignored)" >&2
fi

# 3. leftovers on the stack's ports
left=()
for port in $STACK_PORTS; do
  for pid in $(listeners "$port"); do
    if inside_clone "$pid"; then
      echo "down: port $port still served by pid $pid ($(tr '\0' ' ' < "/proc/$pid/cmdline" | cut -c1-80)), stopping it"
      left+=("$pid")
    fi
  done
done
if [ ${#left[@]} -gt 0 ]; then
  mapfile -t left < <(printf '%s\n' "${left[@]}" | sort -u)
  stop "${left[@]}"
fi

# 4. PostgreSQL and Redis, only if make dev started them
if [ -f "$DATA/redis.started" ]; then
  echo "down: stopping the Redis that make dev started"
  redis-cli -h 127.0.0.1 -p 6379 shutdown nosave >/dev/null 2>&1 || true
  rm -f "$DATA/redis.started"
fi
if [ -f "$DATA/postgres.started" ]; then
  version="$(cat "$DATA/postgres.started")"
  echo "down: stopping the PostgreSQL $version cluster that make dev started"
  pg_ctlcluster --skip-systemctl-redirect "$version" main stop 2>/dev/null || true
  rm -f "$DATA/postgres.started"
fi

# Report what is still up (not ours: other clones, the system's servers).
still=()
for port in $STACK_PORTS; do
  [ -n "$(listeners "$port")" ] && still+=("$port")
done
if [ ${#still[@]} -gt 0 ]; then
  echo "down: ports still in use by processes outside this clone: ${still[*]}"
fi
echo "down: done"
