// Package app wires the identity service: configuration, database and
// migrations, outbox relay, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"log/slog"

	"google.golang.org/grpc"

	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/transport"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "identity"

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	// WalletGRPCAddr is the wallet's gRPC address (account deletion reads
	// the balance).
	WalletGRPCAddr string

	// Accounts replaces the Firebase Admin SDK (tests).
	Accounts users.Accounts
	// Wallet replaces the wallet's gRPC client (tests).
	Wallet users.Wallet
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings:       service.LoadSettings(&l, ServiceName, "127.0.0.1:8101", "127.0.0.1:9101"),
		WalletGRPCAddr: l.String("WALLET_GRPC_ADDR", "127.0.0.1:9104"),
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: users.Migrations, Outbox: true, VerifyTokens: true,
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
