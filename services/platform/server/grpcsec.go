package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/observability"
)

// Internal gRPC security (docs/reliability.md, "Internal gRPC: mutual TLS and
// per-method authorization"): every service serves and dials its peers over
// mutual TLS with certificates of one private CA; the certificate's URI SAN
// spiffe://agentic/<service> names the caller, and each server authorizes
// every method against its own GRPCPolicy.

// SPIFFETrustDomain is the trust domain of the callers' URI SANs.
const SPIFFETrustDomain = "agentic"

// GRPCTLS is the internal gRPC TLS configuration: PEM file paths of the CA
// that signs every service's certificate, and of this service's certificate
// and key (GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY).
//
// The zero value is plaintext without authorization; LoadGRPCTLS refuses it
// in production, so only development and tests that build their Config by
// hand run that way.
type GRPCTLS struct {
	CAFile, CertFile, KeyFile string
	// Development is APP_ENV=development: plaintext is allowed when no files
	// are configured, and servers may admit development-only callers
	// ("devtools": the bench programs and the end-to-end suite).
	Development bool
}

// Enabled reports whether mutual TLS is configured.
func (c GRPCTLS) Enabled() bool { return c.CAFile != "" || c.CertFile != "" || c.KeyFile != "" }

// LoadGRPCTLS reads GRPC_TLS_CA, GRPC_TLS_CERT, GRPC_TLS_KEY and APP_ENV.
// In production (APP_ENV unset or "production") all three files are
// required; in development they are optional (plaintext, logged loudly by
// NewGRPCSecurity). Setting only some of them is always an error.
func LoadGRPCTLS() (GRPCTLS, error) {
	c := GRPCTLS{
		CAFile:   config.String("GRPC_TLS_CA", ""),
		CertFile: config.String("GRPC_TLS_CERT", ""),
		KeyFile:  config.String("GRPC_TLS_KEY", ""),
	}
	env, err := config.Env()
	if err != nil {
		return c, err
	}
	c.Development = env == config.EnvDevelopment
	if c.Enabled() && (c.CAFile == "" || c.CertFile == "" || c.KeyFile == "") {
		return c, errors.New("config: GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY must be set together")
	}
	if !c.Enabled() && !c.Development {
		return c, &config.ProductionError{Key: "GRPC_TLS_CERT", Reason: "GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY must be set: " +
			"internal gRPC needs mutual TLS in production (see docs/deploy.md, \"Internal gRPC certificates\")"}
	}
	return c, nil
}

// GRPCPolicy lists, per full method name ("/agentic.wallet.v1.WalletService/Credit"),
// the callers (service names from their certificates) allowed to call it.
// The health service is open to every authenticated caller; any method not
// listed is refused (codes.PermissionDenied), so a new RPC is closed until
// its server lists who may call it.
type GRPCPolicy map[string][]string

// Allows reports whether caller may call method.
func (p GRPCPolicy) Allows(method, caller string) bool {
	if strings.HasPrefix(method, "/"+healthpb.Health_ServiceDesc.ServiceName+"/") {
		return true
	}
	return slices.Contains(p[method], caller)
}

// GRPCSecurity is one service's loaded internal gRPC security: server
// options (mTLS + authorization) and client dial options (mTLS with its own
// certificate). A nil *GRPCSecurity is plaintext without authorization.
type GRPCSecurity struct {
	service string
	logger  *slog.Logger
	server  *tls.Config
	client  *tls.Config
	denied  *prometheus.CounterVec
}

// NewGRPCSecurity loads the CA and this service's certificate (reloaded
// from disk when the files change, so a rotated Secret needs no restart).
// Without files it returns nil (plaintext) and logs a warning: LoadGRPCTLS
// has already refused that outside development.
func NewGRPCSecurity(cfg GRPCTLS, service string, logger *slog.Logger, reg prometheus.Registerer) (*GRPCSecurity, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if !cfg.Enabled() {
		logger.Warn("internal gRPC is PLAINTEXT and UNAUTHENTICATED: any process that reaches the gRPC port may call every method " +
			"(development only; set GRPC_TLS_CA, GRPC_TLS_CERT and GRPC_TLS_KEY for mutual TLS)")
		return nil, nil
	}
	caPEM, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		return nil, fmt.Errorf("grpc tls: CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("grpc tls: CA %s: no PEM certificate", cfg.CAFile)
	}
	kp := &keyPair{certFile: cfg.CertFile, keyFile: cfg.KeyFile}
	cert, err := kp.get()
	if err != nil {
		return nil, fmt.Errorf("grpc tls: %w", err)
	}
	own := callerFromCert(cert.Leaf)
	if own == "" {
		return nil, fmt.Errorf("grpc tls: certificate %s names no service (URI SAN spiffe://%s/<service> or CN)", cfg.CertFile, SPIFFETrustDomain)
	}
	if own != service {
		logger.Warn("grpc tls: certificate names another service", "certificate", own, "service", service)
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	s := &GRPCSecurity{
		service: service,
		logger:  logger,
		server: &tls.Config{
			MinVersion:     tls.VersionTLS13,
			ClientAuth:     tls.RequireAndVerifyClientCert,
			ClientCAs:      pool,
			GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return kp.get() },
		},
		client: &tls.Config{
			MinVersion:           tls.VersionTLS13,
			RootCAs:              pool,
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return kp.get() },
		},
		denied: observability.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grpc_server_unauthorized_total",
			Help: "Internal gRPC calls refused by the per-method authorization, by method, caller and code.",
		}, []string{"method", "caller", "code"})),
	}
	logger.Info("internal gRPC uses mutual TLS", "identity", own, "ca", cfg.CAFile, "not_after", cert.Leaf.NotAfter.Format(time.RFC3339))
	return s, nil
}

// ServerOptions are the grpc.NewServer options for s: TLS credentials
// requiring a client certificate of the CA, and the unary and stream
// interceptors authorizing every call against policy. Pass them to
// NewGRPCServer. A nil s gives no options (plaintext, everything allowed).
func (s *GRPCSecurity) ServerOptions(policy GRPCPolicy) []grpc.ServerOption {
	if s == nil {
		return nil
	}
	return []grpc.ServerOption{
		grpc.Creds(credentials.NewTLS(s.server)),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := s.authorize(ctx, policy, info.FullMethod); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := s.authorize(ss.Context(), policy, info.FullMethod); err != nil {
				return err
			}
			return handler(srv, ss)
		}),
	}
}

func (s *GRPCSecurity) authorize(ctx context.Context, policy GRPCPolicy, method string) error {
	caller := CallerFromContext(ctx)
	switch {
	case caller == "":
		// Unreachable with RequireAndVerifyClientCert; kept so a change of
		// credentials can never open the server.
		s.denied.WithLabelValues(method, "", codes.Unauthenticated.String()).Inc()
		s.logger.WarnContext(ctx, "grpc call refused: no verified client certificate", "method", method)
		return status.Error(codes.Unauthenticated, "a client certificate is required")
	case !policy.Allows(method, caller):
		s.denied.WithLabelValues(method, caller, codes.PermissionDenied.String()).Inc()
		s.logger.WarnContext(ctx, "grpc call refused: caller not allowed", "method", method, "caller", caller)
		return status.Errorf(codes.PermissionDenied, "%s may not call %s", caller, method)
	}
	return nil
}

// DialOptions are the client options for s: mutual TLS with this service's
// certificate, verifying the server's certificate against the CA and the
// dialled host name. A nil s dials plaintext.
func (s *GRPCSecurity) DialOptions() []grpc.DialOption {
	if s == nil {
		return []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	return []grpc.DialOption{grpc.WithTransportCredentials(credentials.NewTLS(s.client))}
}

// CallerFromContext returns the calling service's name from the verified
// client certificate of the call in ctx (URI SAN spiffe://agentic/<name>,
// else the subject CN), or "" when there is none (plaintext).
func CallerFromContext(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.AuthInfo == nil {
		return ""
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return ""
	}
	return callerFromCert(info.State.VerifiedChains[0][0])
}

func callerFromCert(c *x509.Certificate) string {
	if c == nil {
		return ""
	}
	for _, u := range c.URIs {
		if u.Scheme == "spiffe" && u.Host == SPIFFETrustDomain {
			if name := strings.Trim(u.Path, "/"); name != "" && !strings.Contains(name, "/") {
				return name
			}
		}
	}
	if len(c.URIs) > 0 {
		// A URI SAN of another trust domain: not one of ours.
		return ""
	}
	return c.Subject.CommonName
}

// keyPair is a certificate and key read from files, re-read when either
// file's modification time changes (cert-manager / kubelet rotate Secrets
// in place). Handshakes are rare (connections are long-lived), so a stat
// per handshake costs nothing.
type keyPair struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	modCert time.Time
	modKey  time.Time
}

func (k *keyPair) get() (*tls.Certificate, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	ci, err1 := os.Stat(k.certFile)
	ki, err2 := os.Stat(k.keyFile)
	if err := errors.Join(err1, err2); err != nil {
		if k.cert != nil {
			return k.cert, nil // keep serving the last good pair
		}
		return nil, err
	}
	if k.cert != nil && ci.ModTime().Equal(k.modCert) && ki.ModTime().Equal(k.modKey) {
		return k.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(k.certFile, k.keyFile)
	if err != nil {
		if k.cert != nil {
			return k.cert, nil // a half-rotated pair: retry on the next handshake
		}
		return nil, err
	}
	k.cert, k.modCert, k.modKey = &cert, ci.ModTime(), ki.ModTime()
	return k.cert, nil
}
