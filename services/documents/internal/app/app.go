// Package app wires the documents service: configuration, database and
// migrations, outbox relay, catalog gRPC client, endpoints, HTTP and gRPC
// (health only) servers.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/agentic-app/agentic/services/documents/internal/catalogclient"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/documents/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "documents"

// Config is the service configuration (environment only).
type Config struct {
	HTTPAddr          string
	GRPCAddr          string
	DatabaseURL       string
	DatabaseCreate    bool
	KafkaBrokers      []string
	FirebaseProjectID string
	ShutdownTimeout   time.Duration
	// CatalogGRPCAddr is the catalog's gRPC address (ownership checks).
	CatalogGRPCAddr string
	// OwnershipCacheTTL is how long a positive ownership answer is reused
	// (negative disables the cache).
	OwnershipCacheTTL time.Duration
	// CatalogTimeout bounds one ownership check.
	CatalogTimeout time.Duration

	// Verifier replaces the Firebase verifier (tests).
	Verifier auth.Verifier
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
		HTTPAddr:          l.String("HTTP_ADDR", "127.0.0.1:8103"),
		GRPCAddr:          l.String("GRPC_ADDR", "127.0.0.1:9103"),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_documents?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		CatalogGRPCAddr:   l.String("CATALOG_GRPC_ADDR", "127.0.0.1:9102"),
		OwnershipCacheTTL: l.Duration("OWNERSHIP_CACHE_TTL", catalogclient.DefaultCacheTTL),
		CatalogTimeout:    l.Duration("CATALOG_TIMEOUT", catalogclient.DefaultTimeout),
	}
	if err := l.Err(); err != nil {
		return c, err
	}
	if c.CatalogGRPCAddr == "" {
		return c, errors.New("CATALOG_GRPC_ADDR must not be empty")
	}
	return c, nil
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.CatalogGRPCAddr == "" {
		return errors.New("documents: CatalogGRPCAddr is required")
	}
	stopTracing, err := observability.StartTracing(ctx, ServiceName)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer stopTracing()
	reg := observability.NewRegistry()

	// Database: create (local only), connect with retry, migrate.
	pool, err := database.Open(ctx, database.OpenConfig{
		URL: cfg.DatabaseURL, Create: cfg.DatabaseCreate, Logger: logger,
		Migrations: documents.Migrations,
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

	catalog, err := catalogclient.New(cfg.CatalogGRPCAddr, catalogclient.Config{
		Timeout: cfg.CatalogTimeout, CacheTTL: cfg.OwnershipCacheTTL,
	})
	if err != nil {
		return err
	}
	defer catalog.Close()

	svc := documents.NewService(documents.NewPostgresStore(pool), catalog)
	set := endpoints.New(svc, logger, reg)

	// The catalog being down does not make the service unready: listing and
	// changing documents fail with 503 until it is back, nothing else.
	mux := server.NewMux(reg,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: relay.Check},
	)
	transport.RegisterHTTP(mux, set, verifier, logger)

	// gRPC: only grpc.health.v1.Health for now (no internal API yet).
	grpcSrv, health := server.NewGRPCServer(logger)

	return server.Run(ctx, server.RunConfig{
		Logger:          logger,
		HTTPAddr:        cfg.HTTPAddr,
		HTTPListener:    cfg.HTTPListener,
		HTTPHandler:     server.Middleware(mux, ServiceName, logger, reg),
		GRPCAddr:        cfg.GRPCAddr,
		GRPCListener:    cfg.GRPCListener,
		GRPCServer:      grpcSrv,
		GRPCHealth:      health,
		Workers:         []server.Worker{{Name: "outbox-relay", Run: relay.Run}},
		ShutdownTimeout: cfg.ShutdownTimeout,
		Ready:           cfg.Ready,
	})
}
