#!/usr/bin/env bash
# Installs the pinned Helm into a tool cache outside the clone and links it
# into <repo>/bin/helm (git-ignored). Idempotent: the first call builds Helm
# from the Go module proxy (a few minutes); later calls only refresh the link.
#
#   bash charts/install-helm.sh          # prints the path of bin/helm
#   TOOLS_CACHE=/some/dir bash charts/install-helm.sh
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_CACHE="${TOOLS_CACHE:-$HOME/.cache/agentic-tools}"
dir="$TOOLS_CACHE/helm-$HELM_VERSION"
cached="$dir/helm"
export PATH="/usr/local/go/bin:$PATH"

if [ ! -x "$cached" ]; then
  echo "building helm $HELM_VERSION once into $cached (a few minutes)" >&2
  mkdir -p "$dir"
  tmp="$(mktemp -d "$dir/.build.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  # Outside the workspace, so go.work and the repo's go.mod files play no part.
  # The -X flags are those of Helm's own Makefile: without them the binary
  # reports version "v3.x" and assumes Kubernetes v1.20 for
  # .Capabilities.KubeVersion and the lint deprecation checks.
  gomod="$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "helm.sh/helm/v3@$HELM_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  k8s="$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$gomod" | head -n1)"
  [ -n "$k8s" ] || { echo "cannot find the client-go version of helm $HELM_VERSION" >&2; exit 1; }
  ldflags="-w -s -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    ldflags="$ldflags -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$k8s"
  done
  (cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod GOBIN="$tmp" \
    go install -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
  mv "$tmp/helm" "$cached.tmp" && mv "$cached.tmp" "$cached"
fi

mkdir -p "$ROOT/bin"
if [ "$(readlink "$ROOT/bin/helm" 2>/dev/null || true)" != "$cached" ]; then
  ln -sfn "$cached" "$ROOT/bin/helm"
fi
echo "$ROOT/bin/helm"
