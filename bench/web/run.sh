#!/usr/bin/env bash
# Lighthouse (desktop preset, performance only) against the running app: prints the performance
# score, LCP, TBT, CLS (and FCP) per page. Target: performance >= 95 (docs/web-landing.md).
#
#   cd bench/web && npm ci && ./run.sh                # http://localhost:8080/ and /auth
#   BASE_URL=http://localhost:4173 ./run.sh / /auth    # another server, chosen paths
#   MIN_SCORE=95 ./run.sh                              # exit 1 when a page scores below
#
# Uses Debian's Chromium (CHROME_PATH, default /usr/bin/chromium); JSON reports go to reports/.
set -euo pipefail
cd "$(dirname "$0")"

BASE_URL="${BASE_URL:-http://localhost:8080}"
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
MIN_SCORE="${MIN_SCORE:-0}"
CHROME_FLAGS="--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking --disable-component-update --disable-sync --no-first-run --disable-quic"
paths=("$@")
[ ${#paths[@]} -eq 0 ] && paths=(/ /auth)

[ -x node_modules/.bin/lighthouse ] || npm ci --no-audit --no-fund >/dev/null
mkdir -p reports

status=0
for path in "${paths[@]}"; do
  name="$(echo "$path" | sed 's#[^A-Za-z0-9]#_#g')"
  report="reports/lighthouse${name}.json"
  node_modules/.bin/lighthouse "${BASE_URL}${path}" \
    --preset=desktop \
    --only-categories=performance \
    --chrome-flags="$CHROME_FLAGS" \
    --output=json --output-path="$report" --quiet
  node summarize.mjs "$report" "$MIN_SCORE" || status=1
done
exit $status
