package benchstack

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// GRPCTransport returns the transport credentials for the services'
// internal gRPC APIs. The local stack serves them with mutual TLS
// (docs/reliability.md, "Internal gRPC: mutual TLS and per-method
// authorization"), and the wallet admits the development-only "devtools"
// identity for funding. The certificate is GRPC_TLS_CA / GRPC_TLS_CERT /
// GRPC_TLS_KEY when set, else .data/certs/devtools.{crt,key} of the
// repository (made by `make dev`); without either it dials plaintext (a
// stack started with APP_ENV=development and no certificates).
func GRPCTransport() (grpc.DialOption, string, error) {
	ca, cert, key := os.Getenv("GRPC_TLS_CA"), os.Getenv("GRPC_TLS_CERT"), os.Getenv("GRPC_TLS_KEY")
	if ca == "" && cert == "" && key == "" {
		if dir := devCertDir(); dir != "" {
			ca, cert, key = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "devtools.crt"), filepath.Join(dir, "devtools.key")
		}
	}
	if ca == "" {
		return grpc.WithTransportCredentials(insecure.NewCredentials()), "plaintext", nil
	}
	caPEM, err := os.ReadFile(ca)
	if err != nil {
		return nil, "", fmt.Errorf("grpc tls: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, "", fmt.Errorf("grpc tls: %s holds no certificate", ca)
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, "", fmt.Errorf("grpc tls: %w", err)
	}
	creds := credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS13, RootCAs: pool, Certificates: []tls.Certificate{pair}})
	return grpc.WithTransportCredentials(creds), "mutual TLS as " + cert, nil
}

// devCertDir finds .data/certs (with devtools.crt) in the working directory
// or one of its parents (the bench programs run from bench/<name> or the root).
func devCertDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		c := filepath.Join(dir, ".data", "certs")
		if _, err := os.Stat(filepath.Join(c, "devtools.crt")); err == nil {
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
