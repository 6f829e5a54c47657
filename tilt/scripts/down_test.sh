#!/usr/bin/env bash
# Test of tilt/scripts/down.sh on a scratch "clone" and ephemeral ports
# (never the local stack's own): a fake `tilt up` named by the pidfile and a
# leftover listener inside the clone are stopped; a listener on the same
# kind of port but outside the clone, and a pidfile naming a non-tilt
# process, are left alone.
#
#   bash tilt/scripts/down_test.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/clone/.data" "$tmp/elsewhere"

# listen DIR PORTFILE: a TCP listener on an ephemeral port, started in DIR.
listen() {
  (cd "$1" && exec python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(300)' "$2") &
  pids+=($!); disown $!
  for _ in $(seq 1 50); do [ -s "$2" ] && return 0; sleep 0.1; done
  echo "listener did not start" >&2; exit 1
}
listen "$tmp/clone" "$tmp/p-inside"; inside_pid=${pids[-1]}
listen "$tmp/elsewhere" "$tmp/p-outside"; outside_pid=${pids[-1]}
# A fake `tilt up` (argv[0] contains "tilt") run from the clone.
(cd "$tmp/clone" && exec -a tilt-up-fake sleep 300) & pids+=($!); tilt_pid=$!; disown $!
echo "$tilt_pid" > "$tmp/clone/.data/tilt-up.pid"

AGENTIC_ROOT="$tmp/clone" AGENTIC_STACK_PORTS="$(cat "$tmp/p-inside") $(cat "$tmp/p-outside")" \
  AGENTIC_DOWN_SKIP_TILT=1 AGENTIC_DOWN_GRACE=3 bash "$here/down.sh" > "$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }

fail=0
gone() { for _ in $(seq 1 20); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
gone "$tilt_pid" || { echo "FAIL: the tilt up named by .data/tilt-up.pid still runs"; fail=1; }
gone "$inside_pid" || { echo "FAIL: a listener started inside the clone still runs"; fail=1; }
kill -0 "$outside_pid" 2>/dev/null || { echo "FAIL: a listener outside the clone was stopped"; fail=1; }
[ ! -e "$tmp/clone/.data/tilt-up.pid" ] || { echo "FAIL: pidfile left behind"; fail=1; }

# A stale pidfile naming a process that is not tilt is not followed.
(cd "$tmp/clone" && exec sleep 300) & pids+=($!); other=$!; disown $!
echo "$other" > "$tmp/clone/.data/tilt-up.pid"
AGENTIC_ROOT="$tmp/clone" AGENTIC_STACK_PORTS="" AGENTIC_DOWN_SKIP_TILT=1 AGENTIC_DOWN_GRACE=1 bash "$here/down.sh" >> "$tmp/out" 2>&1
kill -0 "$other" 2>/dev/null || { echo "FAIL: a stale pidfile made down.sh kill a non-tilt process"; fail=1; }

if [ $fail -ne 0 ]; then echo "--- down.sh output"; cat "$tmp/out"; exit 1; fi
echo "down_test: ok"
