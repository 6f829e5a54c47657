// Package devcerts makes the private CA and the per-service certificates of
// the internal gRPC mutual TLS for development and tests (docs/reliability.md,
// "Internal gRPC: mutual TLS and per-method authorization"). Production takes
// its certificates from Secrets (cert-manager), never from here.
//
// A certificate names its service twice: a URI SAN spiffe://agentic/<name>
// (what servers authorize on) and the subject CN. Every certificate is valid
// both as a server and as a client certificate and carries the loopback
// addresses, localhost, the service name and the chart's object name
// (agentic-<name>) as DNS/IP SANs.
package devcerts

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// TrustDomain is the SPIFFE trust domain of the services' identities.
const TrustDomain = "agentic"

// SPIFFEID is the URI SAN that names service name.
func SPIFFEID(name string) *url.URL {
	return &url.URL{Scheme: "spiffe", Host: TrustDomain, Path: "/" + name}
}

const (
	caValidity   = 5 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// renewBefore: Ensure reissues a certificate this close to its expiry.
	renewBefore = 30 * 24 * time.Hour
)

// CA is a private certificate authority.
type CA struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
}

// NewCA returns a fresh self-signed CA.
func NewCA() (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "agentic internal gRPC dev CA", Organization: []string{"Agentic (development)"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// Issue returns a certificate and key (PEM) for service name, signed by ca.
// Extra hosts (DNS names or IP addresses) are added to the defaults
// (name, agentic-<name>, localhost, 127.0.0.1, ::1).
func (ca *CA) Issue(name string, hosts ...string) (certPEM, keyPEM []byte, err error) {
	if name == "" {
		return nil, nil, errors.New("devcerts: empty name")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name, Organization: []string{"Agentic (development)"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		URIs:         []*url.URL{SPIFFEID(name)},
	}
	for _, h := range append(defaultHosts(name), hosts...) {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), nil
}

// defaultHosts are the DNS names and addresses of every certificate: the
// service name, the chart's object name (release "agentic": agentic-<name>,
// Tilt's cluster mode) and loopback.
func defaultHosts(name string) []string {
	return []string{name, "agentic-" + name, "localhost", "127.0.0.1", "::1"}
}

// Files are the paths of one identity's PEM files (GRPC_TLS_CA,
// GRPC_TLS_CERT, GRPC_TLS_KEY).
type Files struct {
	CA, Cert, Key string
}

// Paths returns where Ensure keeps name's files under dir.
func Paths(dir, name string) Files {
	return Files{CA: filepath.Join(dir, "ca.crt"), Cert: filepath.Join(dir, name+".crt"), Key: filepath.Join(dir, name+".key")}
}

// Write issues a certificate for name and writes it with the CA into dir
// (tests: a fresh identity per call).
func (ca *CA) Write(dir, name string, hosts ...string) (Files, error) {
	f := Paths(dir, name)
	certPEM, keyPEM, err := ca.Issue(name, hosts...)
	if err != nil {
		return f, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, err
	}
	if err := writeFile(f.CA, ca.CertPEM, 0o644); err != nil {
		return f, err
	}
	if err := writeFile(f.Cert, certPEM, 0o644); err != nil {
		return f, err
	}
	return f, writeFile(f.Key, keyPEM, 0o600)
}

// Ensure makes dir hold a CA (ca.crt, ca.key) and a certificate per name
// (<name>.crt, <name>.key), keeping whatever is already there and valid:
// run it before every start, it only writes what is missing, expiring or no
// longer signed by the CA. It returns the names it (re)issued.
func Ensure(dir string, names []string, hosts ...string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, fresh, err := loadOrCreateCA(dir)
	if err != nil {
		return nil, err
	}
	var issued []string
	for _, name := range names {
		f := Paths(dir, name)
		if !fresh && leafValid(ca, f, name) {
			continue
		}
		if _, err := ca.Write(dir, name, hosts...); err != nil {
			return issued, fmt.Errorf("devcerts: %s: %w", name, err)
		}
		issued = append(issued, name)
	}
	return issued, nil
}

func loadOrCreateCA(dir string) (*CA, bool, error) {
	certPath, keyPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	certPEM, err1 := os.ReadFile(certPath)
	keyPEM, err2 := os.ReadFile(keyPath)
	if err1 == nil && err2 == nil {
		if pair, err := tls.X509KeyPair(certPEM, keyPEM); err == nil {
			if cert, err := x509.ParseCertificate(pair.Certificate[0]); err == nil && cert.IsCA && time.Until(cert.NotAfter) > renewBefore {
				if signer, ok := pair.PrivateKey.(crypto.Signer); ok {
					return &CA{Cert: cert, Key: signer, CertPEM: certPEM}, false, nil
				}
			}
		}
	}
	ca, err := NewCA()
	if err != nil {
		return nil, false, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(ca.Key)
	if err != nil {
		return nil, false, err
	}
	if err := writeFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return nil, false, err
	}
	if err := writeFile(certPath, ca.CertPEM, 0o644); err != nil {
		return nil, false, err
	}
	return ca, true, nil
}

// leafValid: the files exist, match, are signed by ca, name the service and
// are not about to expire.
func leafValid(ca *CA, f Files, name string) bool {
	caPEM, err := os.ReadFile(f.CA)
	if err != nil || !bytes.Equal(caPEM, ca.CertPEM) {
		return false
	}
	pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return false
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil || time.Until(cert.NotAfter) < renewBefore {
		return false
	}
	if len(cert.URIs) != 1 || cert.URIs[0].String() != SPIFFEID(name).String() {
		return false
	}
	for _, h := range defaultHosts(name) {
		if cert.VerifyHostname(h) != nil {
			return false
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	return err == nil
}

// writeFile writes atomically (temporary file + rename), so a service
// reloading its certificate never reads half a file.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(err)
	}
	return n
}
