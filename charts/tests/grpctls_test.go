package tests

import (
	"strings"
	"testing"
)

// Every service gets its internal gRPC certificate from the Secret
// <fullname>-grpc-tls (cert-manager layout), mounted read-only, with
// GRPC_TLS_* pointing at the files: the services refuse to start in
// production without them (docs/reliability.md).
func TestServicesMountTheirGRPCCertificates(t *testing.T) {
	for _, p := range []profile{production, allServices, allServicesLoc} {
		ty := decodeAll(t, p)
		for _, svc := range []string{"identity", "catalog", "documents", "wallet", "analytics", "conversations", "mail"} {
			name := release + "-" + svc
			d := ty.deployment(name)
			if d == nil {
				continue // not enabled in this profile
			}
			cm := ty.configMap(name)
			for k, want := range map[string]string{
				"GRPC_TLS_CA":   "/var/run/secrets/agentic/grpc-tls/ca.crt",
				"GRPC_TLS_CERT": "/var/run/secrets/agentic/grpc-tls/tls.crt",
				"GRPC_TLS_KEY":  "/var/run/secrets/agentic/grpc-tls/tls.key",
			} {
				if cm == nil || cm.Data[k] != want {
					t.Errorf("%s %s: %s is not %q", p.name, svc, k, want)
				}
			}
			var secret string
			var keys []string
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == "grpc-tls" && v.Secret != nil {
					secret = v.Secret.SecretName
					for _, it := range v.Secret.Items {
						keys = append(keys, it.Key)
					}
				}
			}
			if secret != name+"-grpc-tls" || len(keys) != 3 {
				t.Errorf("%s %s: grpc-tls volume from %q with keys %v, want %s-grpc-tls (ca.crt, tls.crt, tls.key)", p.name, svc, secret, keys, name)
			}
			mounted := false
			for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
				if m.Name == "grpc-tls" && m.MountPath == "/var/run/secrets/agentic/grpc-tls" && m.ReadOnly {
					mounted = true
				}
			}
			if !mounted {
				t.Errorf("%s %s: grpc-tls not mounted read-only at /var/run/secrets/agentic/grpc-tls", p.name, svc)
			}
		}
	}
}

// grpcTLS.enabled=false (development only) renders neither the volume nor the variables.
func TestGRPCTLSCanBeDisabled(t *testing.T) {
	off := profile{name: "local-grpc-tls-off", valuesFiles: []string{"charts/agentic/values-local.yaml", "charts/tests/testdata/values-grpc-tls-off.yaml"}}
	for _, o := range render(t, off) {
		if (o.Kind == "Deployment" || o.Kind == "ConfigMap") && (strings.Contains(string(o.YAML), "grpc-tls") || strings.Contains(string(o.YAML), "GRPC_TLS_")) {
			t.Errorf("%s still carries the gRPC TLS settings", o)
		}
	}
}
