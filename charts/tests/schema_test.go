package tests

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// values.schema.json refuses wrong types, unknown keys (typos) and values
// out of range, naming the offending path; the shipped profiles pass it
// (every profile renders in the other tests).
func TestValuesSchemaRejectsBadValues(t *testing.T) {
	root := repoRoot(t)
	chart := filepath.Join(root, chartDir)
	for _, c := range []struct {
		set  string
		path string // in Helm's error message
	}{
		{"envoy.replicas=two", "/envoy/replicas"},
		{"serviceDefaults.autoscaling.enabled=maybe", "/serviceDefaults/autoscaling/enabled"},
		{"envoy.rateLimit.perUser.maxTokens=0", "/envoy/rateLimit/perUser/maxTokens"},
		{"services.wallet.redsi=true", "/services/wallet"},
		{"imagse.tag=x", "additional properties 'imagse'"},
		{"envoy.service.type=Magic", "/envoy/service/type"},
		{"services.wallet.secretEnv.STRIPE_SECRET_KEY.secretName=", "/services/wallet/secretEnv/STRIPE_SECRET_KEY/secretName"},
	} {
		t.Run(c.set, func(t *testing.T) {
			cmd := exec.Command(helmBinary(t), "template", release, chart, "--namespace", namespace,
				"--values", filepath.Join(root, "charts/agentic/values-production.yaml"), "--set", c.set)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err == nil {
				t.Fatalf("--set %s rendered; the schema should refuse it", c.set)
			}
			if msg := stderr.String(); !strings.Contains(msg, "schema") || !strings.Contains(msg, c.path) {
				t.Errorf("--set %s: error does not name %q:\n%s", c.set, c.path, msg)
			}
		})
	}
	// A correct override of the same kind still renders.
	cmd := exec.Command(helmBinary(t), "template", release, chart, "--namespace", namespace, "--set", "envoy.replicas=3", "--set", "envoy.rateLimit.perUser.maxTokens=5")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valid overrides refused: %v\n%s", err, out)
	}
}
