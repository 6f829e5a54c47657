#!/usr/bin/env bash
# How long `make dev` takes to a usable app: cold (a fresh clone and an empty
# HOME: no Go module or build cache, no tools cache, no npm cache, as on a
# fresh machine) and warm (`make down`, then `make dev` again). Prints the
# stage lines `make dev` itself prints and the two totals. Not part of
# `make test`; needs the ports of the local stack free (`make down` first)
# and the module proxy and npm registry. Several minutes of both cores.
#
#   bench/devstart/run.sh               # cold, then warm
#   WORK=/tmp/x bench/devstart/run.sh   # keep the clone and HOME there
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${WORK:-$(mktemp -d /tmp/devstart.XXXXXX)}"
mkdir -p "$work"
rm -rf "$work/agentic" "$work/home"
git clone -q "$repo" "$work/agentic"
# ../shared beside the clone, as in the repository's own checkout.
[ -e "$work/shared" ] || ln -s "$repo/../shared" "$work/shared"

# A fresh user: nothing cached. The machine's npm settings (registry, nodedir
# for native modules offline) are configuration, not cache: kept.
export HOME="$work/home"
mkdir -p "$HOME"
[ -f /root/.npmrc ] && cp /root/.npmrc "$HOME/.npmrc"
unset GOCACHE GOMODCACHE GOPATH TOOLS_CACHE
cd "$work/agentic"

# Usable: the gateway serves the app and every service, the Auth emulator
# and the simulators answer.
usable() {
  local u
  for u in http://127.0.0.1:8080/_gateway/healthz http://127.0.0.1:9099/ \
    http://127.0.0.1:8101/readyz http://127.0.0.1:8102/readyz http://127.0.0.1:8103/readyz \
    http://127.0.0.1:8104/readyz http://127.0.0.1:8105/readyz http://127.0.0.1:8106/readyz \
    http://127.0.0.1:8107/readyz http://127.0.0.1:8110/healthz http://127.0.0.1:8111/healthz \
    http://127.0.0.1:8112/healthz; do
    curl -fs -o /dev/null --max-time 2 "$u" || return 1
  done
}

run() { # label
  local label=$1 start
  start=$(date +%s)
  make dev >"$work/$label.log" 2>&1 &
  until usable; do
    if ! kill -0 $! 2>/dev/null; then
      echo "$label: make dev exited; the end of $work/$label.log:" >&2
      tail -n 40 "$work/$label.log" >&2
      exit 1
    fi
    sleep 1
  done
  local took=$(($(date +%s) - start))
  grep '^\[make dev' "$work/$label.log" | grep -v 'running:' | sed "s/^/  $label /" || true
  echo "$label: usable app after ${took}s"
  make down >/dev/null 2>&1 || true
}

echo "== cold make dev (fresh clone, empty HOME; load average $(cut -d' ' -f1-3 /proc/loadavg))"
run cold
echo "== warm make dev (the same clone again)"
run warm
echo "(logs and the clone in $work)"
