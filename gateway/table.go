// Package gateway holds the browser-facing route table. The YAML file is the
// single source for the local gateway and for the Envoy configuration that
// the Helm chart renders, so both always agree on which service owns a path.
package gateway

import _ "embed"

// RoutesYAML is the content of routes.yaml.
//
//go:embed routes.yaml
var RoutesYAML []byte
