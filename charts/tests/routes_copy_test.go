package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Helm's .Files only sees files inside the chart, so the chart carries a
// copy of the route table. It must be byte-for-byte gateway/routes.yaml.
func TestChartRouteTableIsGatewayRouteTable(t *testing.T) {
	root := repoRoot(t)
	want, err := os.ReadFile(filepath.Join(root, "gateway", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "charts", "agentic", "files", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("charts/agentic/files/routes.yaml differs from gateway/routes.yaml; run:\n" +
			"  cp gateway/routes.yaml charts/agentic/files/routes.yaml")
	}
}
