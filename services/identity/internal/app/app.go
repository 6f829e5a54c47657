// Package app wires the identity service: configuration, database and
// migrations, outbox relay, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"

	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/transport"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "identity"

// Config is the service configuration (environment only).
type Config struct {
	HTTPAddr          string
	GRPCAddr          string
	DatabaseURL       string
	DatabaseCreate    bool
	KafkaBrokers      []string
	FirebaseProjectID string
	ShutdownTimeout   time.Duration
	// WalletGRPCAddr is the wallet's gRPC address (account deletion reads
	// the balance).
	WalletGRPCAddr string

	// Verifier replaces the Firebase verifier (tests).
	Verifier auth.Verifier
	// Accounts replaces the Firebase Admin SDK (tests).
	Accounts users.Accounts
	// Wallet replaces the wallet's gRPC client (tests).
	Wallet users.Wallet
	// GRPCTLS is the internal gRPC mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT,
	// GRPC_TLS_KEY); the zero value is plaintext (tests), which LoadConfig
	// refuses in production.
	GRPCTLS server.GRPCTLS

	// HTTPListener / GRPCListener replace the addresses (tests).
	HTTPListener, GRPCListener net.Listener
	// Ready is called once the servers listen (tests).
	Ready func(httpAddr, grpcAddr net.Addr)
	// RelayPollInterval overrides the relay's idle poll (tests).
	RelayPollInterval time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		HTTPAddr:          l.String("HTTP_ADDR", "127.0.0.1:8101"),
		GRPCAddr:          l.String("GRPC_ADDR", "127.0.0.1:9101"),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_identity?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		WalletGRPCAddr:    l.String("WALLET_GRPC_ADDR", "127.0.0.1:9104"),
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	c.GRPCTLS = service.LoadGRPCTLS(&l)
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	s, err := service.Start(ctx, ServiceName, service.Config{
		DatabaseURL: cfg.DatabaseURL, DatabaseCreate: cfg.DatabaseCreate, Migrations: users.Migrations,
		KafkaBrokers: cfg.KafkaBrokers, Outbox: true, RelayPollInterval: cfg.RelayPollInterval,
		VerifyTokens: true, FirebaseProjectID: cfg.FirebaseProjectID, Verifier: cfg.Verifier,
		GRPCTLS: cfg.GRPCTLS, HTTPAddr: cfg.HTTPAddr, GRPCAddr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout,
		HTTPListener: cfg.HTTPListener, GRPCListener: cfg.GRPCListener, Ready: cfg.Ready,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()

	wallet := cfg.Wallet
	if wallet == nil {
		walletConn, err := server.DialGRPC(cfg.WalletGRPCAddr, s.GRPC)
		if err != nil {
			return err
		}
		defer walletConn.Close()
		wallet = newGRPCWallet(walletConn)
	}
	svc := users.NewService(users.NewPostgresStore(s.Pool),
		users.WithAccounts(accountsFor(ctx, cfg, s.Logger)), users.WithWallet(wallet))
	set := endpoints.New(svc, s.Logger, s.Registry)
	transport.RegisterHTTP(s.Mux, set, s.Verifier, s.Logger)

	return s.Serve(ctx, s.Mux, GRPCPolicy(), func(g *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(g, transport.NewGRPCServer(set))
	})
}
