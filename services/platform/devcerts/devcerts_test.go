package devcerts

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"os"
	"slices"
	"testing"
)

func TestEnsureIsIdempotentAndRepairs(t *testing.T) {
	dir := t.TempDir()
	names := []string{"wallet", "devtools"}
	issued, err := Ensure(dir, names)
	if err != nil || !slices.Equal(issued, names) {
		t.Fatalf("first run: %v %v", issued, err)
	}
	before, _ := os.ReadFile(Paths(dir, "wallet").Cert)

	issued, err = Ensure(dir, names)
	if err != nil || len(issued) != 0 {
		t.Fatalf("second run reissued %v (%v)", issued, err)
	}
	if after, _ := os.ReadFile(Paths(dir, "wallet").Cert); !bytes.Equal(before, after) {
		t.Fatal("second run rewrote wallet.crt")
	}

	// A missing key is reissued, the rest kept.
	if err := os.Remove(Paths(dir, "devtools").Key); err != nil {
		t.Fatal(err)
	}
	issued, err = Ensure(dir, names)
	if err != nil || !slices.Equal(issued, []string{"devtools"}) {
		t.Fatalf("repair run: %v %v", issued, err)
	}

	// The certificate names the service, verifies against the CA for both
	// uses, and covers loopback.
	f := Paths(dir, "wallet")
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _ := os.ReadFile(f.CA)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	leaf := pair.Leaf
	if got := leaf.URIs[0].String(); got != "spiffe://agentic/wallet" {
		t.Fatalf("URI SAN %s", got)
	}
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Fatalf("verify %v: %v", usage, err)
		}
	}
	if info, _ := os.Stat(f.Key); info.Mode().Perm() != 0o600 {
		t.Fatalf("key mode %v", info.Mode())
	}
}
