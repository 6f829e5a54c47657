#!/usr/bin/env bash
# Installs stripe-mock (github.com/stripe/stripe-mock), the API double the wallet's
# Stripe contract test runs against, into ${TOOLS_CACHE:-$HOME/.cache/agentic-tools}/stripe-mock-<version>/
# and links it to <repo>/bin/stripe-mock. Idempotent: does nothing when the pinned
# version is already installed and linked.
set -euo pipefail

STRIPE_MOCK_VERSION="${STRIPE_MOCK_VERSION:-v0.203.0}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
cache="${TOOLS_CACHE:-$HOME/.cache/agentic-tools}"
dir="$cache/stripe-mock-$STRIPE_MOCK_VERSION"
link="$repo/bin/stripe-mock"

if [ ! -x "$dir/stripe-mock" ]; then
  echo "installing stripe-mock@$STRIPE_MOCK_VERSION into $dir" >&2
  mkdir -p "$dir"
  # GOWORK=off: install from the module proxy, outside this repository's workspace.
  GOBIN="$dir" GOWORK=off GOFLAGS=-mod=mod go install "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION"
fi
mkdir -p "$repo/bin"
if [ "$(readlink "$link" 2>/dev/null || true)" != "$dir/stripe-mock" ]; then
  ln -sfn "$dir/stripe-mock" "$link"
fi
echo "stripe-mock $STRIPE_MOCK_VERSION: $link -> $dir/stripe-mock" >&2
