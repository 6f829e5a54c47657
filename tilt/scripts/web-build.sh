#!/usr/bin/env bash
# The `web` resource: a production build of the SPA into web/dist, skipped
# when web/dist was built from exactly these sources (a warm `make dev`
# restart then waits on nothing here; a Vite build takes 30–60 s on two
# cores). The fingerprint is the content of every file the build reads and
# the VITE_* environment; it is kept beside web/dist, not served.
#
# The build goes beside the served copy and is swapped in, so the gateway
# never serves a half-emptied web/dist while a rebuild runs.
set -euo pipefail
cd "$(dirname "$0")/../../web"

fingerprint() {
  find src public index.html vite.config.ts .env.emulator package.json package-lock.json tsconfig*.json \
    -type f -print0 2>/dev/null | LC_ALL=C sort -z | xargs -0 sha256sum
  env | grep '^VITE_' | LC_ALL=C sort || true
}

want=$(fingerprint | sha256sum | cut -d' ' -f1)
if [ -f dist/index.html ] && [ "$(cat .dist-fingerprint 2>/dev/null)" = "$want" ]; then
  echo "web/dist is up to date with the sources ($want); not rebuilt"
  exit 0
fi
rm -f .dist-fingerprint
rm -rf dist.next
npm run build -- --mode emulator --outDir dist.next
rm -rf dist.old
(mv dist dist.old 2>/dev/null || true)
mv dist.next dist
rm -rf dist.old
echo "$want" > .dist-fingerprint
