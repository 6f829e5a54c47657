package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/devcerts"
)

// A tiny service with two unary methods that answer the caller's name.
const (
	pingMethod   = "/test.Echo/Ping"
	secretMethod = "/test.Echo/Secret"
)

func echoHandler(fullMethod string) grpc.MethodDesc {
	return grpc.MethodDesc{
		MethodName: strings.TrimPrefix(fullMethod, "/test.Echo/"),
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(emptypb.Empty)
			if err := dec(in); err != nil {
				return nil, err
			}
			h := func(ctx context.Context, _ any) (any, error) {
				return wrapperspb.String(CallerFromContext(ctx)), nil
			}
			if interceptor == nil {
				return h(ctx, in)
			}
			return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: fullMethod}, h)
		},
	}
}

var echoDesc = grpc.ServiceDesc{
	ServiceName: "test.Echo",
	HandlerType: (*any)(nil),
	Methods:     []grpc.MethodDesc{echoHandler(pingMethod), echoHandler(secretMethod)},
}

type secFixture struct {
	dir  string
	ca   *devcerts.CA
	addr string
	reg  *prometheus.Registry
}

// startSecureServer serves test.Echo as "wallet" with mutual TLS; Ping is
// allowed to conversations only, Secret to nobody.
func startSecureServer(t *testing.T) *secFixture {
	t.Helper()
	ca, err := devcerts.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	f := &secFixture{dir: t.TempDir(), ca: ca, reg: prometheus.NewRegistry()}
	files, err := ca.Write(f.dir, "wallet")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := NewGRPCSecurity(GRPCTLS{CAFile: files.CA, CertFile: files.Cert, KeyFile: files.Key}, "wallet", nil, f.reg)
	if err != nil {
		t.Fatal(err)
	}
	gs, _ := NewGRPCServer(nil, sec.ServerOptions(GRPCPolicy{pingMethod: {"conversations"}, secretMethod: {}})...)
	gs.RegisterService(&echoDesc, struct{}{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	f.addr = lis.Addr().String()
	return f
}

// client dials the fixture as name, with a certificate of the fixture's CA.
func (f *secFixture) client(t *testing.T, name string) *grpc.ClientConn {
	t.Helper()
	files, err := f.ca.Write(t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := NewGRPCSecurity(GRPCTLS{CAFile: files.CA, CertFile: files.Cert, KeyFile: files.Key}, name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f.dial(t, sec.DialOptions()...)
}

func (f *secFixture) dial(t *testing.T, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(f.addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func ping(conn *grpc.ClientConn, method string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := new(wrapperspb.StringValue)
	err := conn.Invoke(ctx, method, &emptypb.Empty{}, out)
	return out.GetValue(), err
}

func TestGRPCCallWithoutClientCertificateIsRefused(t *testing.T) {
	f := startSecureServer(t)

	// Plaintext: the server speaks only TLS.
	if _, err := ping(f.dial(t, (*GRPCSecurity)(nil).DialOptions()...), pingMethod); err == nil {
		t.Fatal("plaintext call succeeded")
	}

	// TLS that trusts the CA but presents no certificate: refused at the handshake.
	pool := x509.NewCertPool()
	pool.AddCert(f.ca.Cert)
	noCert := credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13})
	conn := f.dial(t, grpc.WithTransportCredentials(noCert))
	if got, err := ping(conn, pingMethod); err == nil {
		t.Fatalf("call without a client certificate succeeded (caller %q)", got)
	}
	if _, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}); err == nil {
		t.Fatal("health check without a client certificate succeeded")
	}

	// A certificate naming an allowed caller, signed by another CA: refused.
	other, err := devcerts.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	files, err := other.Write(t.TempDir(), "conversations")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	forged := credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13})
	if got, err := ping(f.dial(t, grpc.WithTransportCredentials(forged)), pingMethod); err == nil {
		t.Fatalf("call with a certificate of another CA succeeded (caller %q)", got)
	}
}

func TestGRPCPerMethodAuthorization(t *testing.T) {
	f := startSecureServer(t)

	conv := f.client(t, "conversations")
	got, err := ping(conv, pingMethod)
	if err != nil {
		t.Fatalf("listed caller refused: %v", err)
	}
	if got != "conversations" {
		t.Fatalf("handler saw caller %q, want conversations", got)
	}
	// Listed for Ping, not for Secret.
	if _, err := ping(conv, secretMethod); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("Secret as conversations: %v, want PermissionDenied", err)
	}

	mail := f.client(t, "mail")
	if _, err := ping(mail, pingMethod); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("Ping as mail: %v, want PermissionDenied", err)
	}
	// Health stays open to every authenticated caller.
	if _, err := healthpb.NewHealthClient(mail).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatalf("health check as mail: %v", err)
	}

	if n := testutil.ToFloat64(refusalCounter(t, f.reg).WithLabelValues(pingMethod, "mail", "PermissionDenied")); n != 1 {
		t.Fatalf("refusal metric = %v, want 1", n)
	}
}

func refusalCounter(t *testing.T, reg *prometheus.Registry) *prometheus.CounterVec {
	t.Helper()
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "grpc_server_unauthorized_total",
		Help: "Internal gRPC calls refused by the per-method authorization, by method, caller and code.",
	}, []string{"method", "caller", "code"})
	err := reg.Register(c)
	are, ok := err.(prometheus.AlreadyRegisteredError)
	if !ok {
		t.Fatalf("refusal metric not registered: %v", err)
	}
	return are.ExistingCollector.(*prometheus.CounterVec)
}

func TestGRPCCertificateRotationNeedsNoRestart(t *testing.T) {
	f := startSecureServer(t)
	files, err := f.ca.Write(t.TempDir(), "mail")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := NewGRPCSecurity(GRPCTLS{CAFile: files.CA, CertFile: files.Cert, KeyFile: files.Key}, "mail", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ping(f.dial(t, sec.DialOptions()...), pingMethod); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("Ping as mail: %v, want PermissionDenied", err)
	}
	// The Secret is rotated in place (here: to another identity, which shows
	// the new file is the one presented); new connections use it.
	time.Sleep(10 * time.Millisecond) // a distinct modification time
	rotated, err := f.ca.Write(t.TempDir(), "conversations")
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{rotated.Cert: files.Cert, rotated.Key: files.Key} {
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ping(f.dial(t, sec.DialOptions()...), pingMethod)
	if err != nil || got != "conversations" {
		t.Fatalf("after rotation: caller %q, %v", got, err)
	}
}

func TestLoadGRPCTLS(t *testing.T) {
	for _, tc := range []struct {
		name, env, ca, cert, key string
		wantErr                  string
		wantDev                  bool
	}{
		{name: "production (unset) without files", wantErr: "needs mutual TLS in production"},
		{name: "production without files", env: "production", wantErr: "needs mutual TLS in production"},
		{name: "production with files", env: "production", ca: "ca.crt", cert: "w.crt", key: "w.key"},
		{name: "only some files", env: "development", ca: "ca.crt", wantErr: "must be set together"},
		{name: "development without files", env: "development", wantDev: true},
		{name: "development with files", env: "Development", ca: "ca.crt", cert: "w.crt", key: "w.key", wantDev: true},
		{name: "unknown environment", env: "staging", wantErr: "APP_ENV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("APP_ENV", tc.env)
			t.Setenv("GRPC_TLS_CA", tc.ca)
			t.Setenv("GRPC_TLS_CERT", tc.cert)
			t.Setenv("GRPC_TLS_KEY", tc.key)
			c, err := LoadGRPCTLS()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				var pe *config.ProductionError
				if strings.Contains(tc.wantErr, "production") && !errors.As(err, &pe) {
					t.Fatalf("err = %T, want a *config.ProductionError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Development != tc.wantDev || c.CAFile != tc.ca || c.CertFile != tc.cert || c.KeyFile != tc.key {
				t.Fatalf("got %+v", c)
			}
		})
	}
}

func TestNewGRPCSecurityRejectsBadFiles(t *testing.T) {
	ca, err := devcerts.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	files, err := ca.Write(t.TempDir(), "wallet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewGRPCSecurity(GRPCTLS{CAFile: files.CA + ".missing", CertFile: files.Cert, KeyFile: files.Key}, "wallet", nil, nil); err == nil {
		t.Fatal("missing CA accepted")
	}
	if _, err := NewGRPCSecurity(GRPCTLS{CAFile: files.CA, CertFile: files.Cert, KeyFile: files.CA}, "wallet", nil, nil); err == nil {
		t.Fatal("certificate without its key accepted")
	}
	// No files: plaintext (nil), the development / test mode.
	if sec, err := NewGRPCSecurity(GRPCTLS{}, "wallet", nil, nil); sec != nil || err != nil {
		t.Fatalf("zero config: %v, %v", sec, err)
	}
}
