#!/usr/bin/env bash
# Fails (exit 1) when the committed generated code in proto/gen/go is not what
# proto/generate.sh produces from the current .proto files.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$here/generate.sh" "$tmp/go"

if ! diff -r -u "$here/gen/go" "$tmp/go" >"$tmp/diff.txt" 2>&1; then
  cat "$tmp/diff.txt" >&2
  echo >&2
  echo "proto/check.sh: generated code in proto/gen/go is stale; run 'make proto' (proto/generate.sh) and commit the result." >&2
  exit 1
fi
echo "proto/check.sh: generated code is up to date"
