// Package app wires the identity service: configuration, database and
// migrations, outbox relay, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/transport"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
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
	grpcTLS, tlsErr := server.LoadGRPCTLS()
	c.GRPCTLS = grpcTLS
	if tlsErr != nil {
		return c, tlsErr
	}
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	stopTracing, err := observability.StartTracing(ctx, ServiceName)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer stopTracing()
	reg := observability.NewRegistry()
	// Internal gRPC: mutual TLS and per-method authorization (grpcpolicy.go).
	grpcSec, err := server.NewGRPCSecurity(cfg.GRPCTLS, ServiceName, logger, reg)
	if err != nil {
		return err
	}

	// Database: create (local only), connect with retry, migrate.
	pool, err := database.Open(ctx, database.OpenConfig{
		URL: cfg.DatabaseURL, Create: cfg.DatabaseCreate, Logger: logger, Registerer: reg,
		Migrations: users.Migrations,
		Extra:      []database.MigrateFunc{events.Migrate},
	})
	if err != nil {
		return err
	}
	defer pool.Close()

	verifier, err := auth.NewVerifier(ctx, cfg.Verifier, cfg.FirebaseProjectID, logger)
	if err != nil {
		return err
	}

	relay, err := events.NewRelay(events.RelayConfig{
		Pool: pool, Brokers: cfg.KafkaBrokers, Logger: logger, Registerer: reg,
		PollInterval: cfg.RelayPollInterval,
	})
	if err != nil {
		return err
	}
	defer relay.Close()

	purger, err := events.NewPurgerFromEnv(pool, logger, reg) // retention of outbox rows and processed ids
	if err != nil {
		return err
	}

	wallet := cfg.Wallet
	if wallet == nil {
		walletConn, err := server.DialGRPC(cfg.WalletGRPCAddr, grpcSec)
		if err != nil {
			return err
		}
		defer walletConn.Close()
		wallet = newGRPCWallet(walletConn)
	}
	svc := users.NewService(users.NewPostgresStore(pool),
		users.WithAccounts(accountsFor(ctx, cfg, logger)), users.WithWallet(wallet))
	set := endpoints.New(svc, logger, reg)

	mux := server.NewMux(reg,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: relay.Check, Optional: true},
	)
	transport.RegisterHTTP(mux, set, verifier, logger)

	grpcSrv, health := server.NewGRPCServer(logger, grpcSec.ServerOptions(GRPCPolicy())...)
	identityv1.RegisterIdentityServiceServer(grpcSrv, transport.NewGRPCServer(set))

	return server.Run(ctx, server.RunConfig{
		Logger:          logger,
		HTTPAddr:        cfg.HTTPAddr,
		HTTPListener:    cfg.HTTPListener,
		HTTPHandler:     server.Middleware(mux, ServiceName, logger, reg),
		GRPCAddr:        cfg.GRPCAddr,
		GRPCListener:    cfg.GRPCListener,
		GRPCServer:      grpcSrv,
		GRPCHealth:      health,
		Workers:         []server.Worker{{Name: "outbox-relay", Run: relay.Run}, {Name: "events-purger", Run: purger.Run}},
		ShutdownTimeout: cfg.ShutdownTimeout,
		Ready:           cfg.Ready,
	})
}
