#!/usr/bin/env bash
# The stages before `tilt up`, run side by side with their names and elapsed
# times (issue 26, "a faster front door").
#
# On a fresh machine `make dev` used to run them one after the other: Tilt
# built from source, then the two npm tools, then the two npm installs, and
# only then Tilt started the seven services' first builds. Most of that is
# waiting on the network (module proxy, npm registry) or on one core, so it
# overlaps well even on two cores. The Go stage downloads the workspace's
# modules and compiles every binary Tilt will build in one `go build`, which
# schedules the shared packages once; Tilt's own builds are then cache hits.
#
# Each stage is the Makefile target that does it alone (`make tools`, `make
# deps` still work); its output goes to .data/prepare/<stage>.log, printed
# when the stage fails. Usage: prepare.sh [--no-go] (skip the Go stage).
set -euo pipefail
cd "$(dirname "$0")/../.."

logdir=.data/prepare
mkdir -p "$logdir"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
say() { printf '[make dev %4ss] %s\n' "$(elapsed)" "$*"; }

declare -A pids=() begun=()
stage() { # name, command...
  local name=$1
  shift
  begun[$name]=$(date +%s)
  ("$@") >"$logdir/$name.log" 2>&1 &
  pids[$name]=$!
  say "$name: started"
}

# What Tilt builds (tilt/lib.tilt, Tiltfile), compiled together.
go_binaries() {
  local pkgs=(./gateway/cmd/gateway ./tilt/cmd/devkafka ./services/platform/cmd/devcerts)
  local svc
  for svc in identity catalog documents wallet analytics conversations mail; do
    pkgs+=("./services/$svc/cmd/$svc")
  done
  pkgs+=(./services/wallet/cmd/stripesim ./services/documents/cmd/drivesim ./services/conversations/cmd/llmsim)
  mkdir -p bin
  go build -o bin/ "${pkgs[@]}"
}

say "preparing (stages run side by side; logs in $logdir/)"
stage tilt make --no-print-directory "$PWD/bin/tilt"
stage npm-tools make --no-print-directory "$PWD/bin/firebase" "$PWD/bin/maildev"
stage npm-web make --no-print-directory web/node_modules/.stamp
stage npm-e2e make --no-print-directory e2e/node_modules/.stamp
if [ "${1:-}" != "--no-go" ]; then
  stage go-build go_binaries
fi

failed=0
next_report=$(($(date +%s) + 15))
while [ ${#pids[@]} -gt 0 ]; do
  for name in "${!pids[@]}"; do
    kill -0 "${pids[$name]}" 2>/dev/null && continue
    took=$(($(date +%s) - begun[$name]))
    if wait "${pids[$name]}"; then
      say "$name: done in ${took}s"
    else
      say "$name: FAILED after ${took}s; the end of $logdir/$name.log:"
      tail -n 30 "$logdir/$name.log" | sed 's/^/    /'
      failed=1
    fi
    unset "pids[$name]"
  done
  # A line every 15 s while something runs, so a cold start never looks stuck.
  if [ ${#pids[@]} -gt 0 ] && [ "$(date +%s)" -ge "$next_report" ]; then
    running=""
    for name in "${!pids[@]}"; do running+=" $name ($(($(date +%s) - begun[$name]))s)"; done
    say "running:$running"
    next_report=$(($(date +%s) + 15))
  fi
  sleep 0.5
done
[ "$failed" = 0 ] || exit 1
say "prepared; starting tilt up (UI on http://localhost:10350, the app on http://localhost:8080 once every resource is ready)"
