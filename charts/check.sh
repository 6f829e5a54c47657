#!/usr/bin/env bash
# Chart checks that need no cluster: the route table copy is current, and
# `helm lint --strict` + `helm template` succeed for every values profile.
# The deeper checks (strict API decoding, policies, Envoy validation, route
# ownership) are the Go tests in charts/tests.
#
#   bash charts/check.sh            # installs the pinned helm first if needed
#   HELM=/path/to/helm bash charts/check.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
HELM="${HELM:-$(bash charts/install-helm.sh)}"
CHART=charts/agentic

if ! cmp -s gateway/routes.yaml "$CHART/files/routes.yaml"; then
  echo "charts/agentic/files/routes.yaml differs from gateway/routes.yaml; run:" >&2
  echo "  cp gateway/routes.yaml charts/agentic/files/routes.yaml" >&2
  exit 1
fi

# name|helm flags
profiles=(
  "defaults|"
  "production|-f $CHART/values-production.yaml"
  "production+prometheus-operator|-f $CHART/values-production.yaml --api-versions monitoring.coreos.com/v1"
  "local|-f $CHART/values-local.yaml"
  "all-services|-f $CHART/values-production.yaml -f charts/tests/testdata/values-all-services.yaml"
  "all-services-local|-f $CHART/values-local.yaml -f charts/tests/testdata/values-all-services.yaml"
  "identity-only|-f $CHART/values-production.yaml -f charts/tests/testdata/values-identity-only.yaml"
)
for p in "${profiles[@]}"; do
  name="${p%%|*}"
  read -r -a flags <<< "${p#*|}"
  lint_flags=()
  for f in "${flags[@]}"; do
    case "$f" in --api-versions|monitoring.coreos.com/*) ;; *) lint_flags+=("$f") ;; esac
  done
  echo "== $name"
  "$HELM" lint --strict --quiet "$CHART" --namespace agentic "${lint_flags[@]}"
  "$HELM" template agentic "$CHART" --namespace agentic "${flags[@]}" > /dev/null
done
echo "chart checks passed"
