// Package app wires the analytics service: configuration, database and
// migrations, the Kafka consumer (group "analytics") that projects every
// service's events into read models, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/agentic-app/agentic/services/analytics/internal/endpoints"
	"github.com/agentic-app/agentic/services/analytics/internal/transport"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "analytics"

// Config is the service configuration (environment only).
type Config struct {
	HTTPAddr          string
	GRPCAddr          string
	DatabaseURL       string
	DatabaseCreate    bool
	KafkaBrokers      []string
	FirebaseProjectID string
	ShutdownTimeout   time.Duration
	// ConsumerGroup is the Kafka consumer group (default "analytics"); a new
	// group replays every topic from the first offset.
	ConsumerGroup string

	// Verifier replaces the Firebase verifier (tests).
	Verifier auth.Verifier
	// Now is the clock of the statistics' month boundary and the freshness metric (tests).
	Now func() time.Time
	// GRPCTLS is the internal gRPC mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT,
	// GRPC_TLS_KEY); the zero value is plaintext (tests), which LoadConfig
	// refuses in production.
	GRPCTLS server.GRPCTLS

	// HTTPListener / GRPCListener replace the addresses (tests).
	HTTPListener, GRPCListener net.Listener
	// Ready is called once the servers listen (tests).
	Ready func(httpAddr, grpcAddr net.Addr)
	// ConsumerMaxWait overrides the consumer's fetch wait (tests).
	ConsumerMaxWait time.Duration
	// ConsumerRetryBackoff overrides the consumer's first retry wait (tests).
	ConsumerRetryBackoff time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		HTTPAddr:          l.String("HTTP_ADDR", "127.0.0.1:8105"),
		GRPCAddr:          l.String("GRPC_ADDR", "127.0.0.1:9105"),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_analytics?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		ConsumerGroup:     l.String("ANALYTICS_CONSUMER_GROUP", readmodel.ConsumerGroup),
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
	if cfg.ConsumerGroup == "" {
		cfg.ConsumerGroup = readmodel.ConsumerGroup
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
		Migrations: readmodel.Migrations, Dir: readmodel.MigrationsDir,
		Extra: []database.MigrateFunc{events.MigrateConsumer},
	})
	if err != nil {
		return err
	}
	defer pool.Close()

	verifier, err := auth.NewVerifier(ctx, cfg.Verifier, cfg.FirebaseProjectID, logger)
	if err != nil {
		return err
	}

	projector := readmodel.NewProjector(readmodel.ProjectorConfig{Now: cfg.Now, Registerer: reg})
	consumer, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: cfg.KafkaBrokers, GroupID: cfg.ConsumerGroup, Topics: readmodel.Topics,
		Handler: projector.Handler(), MaxWait: cfg.ConsumerMaxWait, RetryBackoff: cfg.ConsumerRetryBackoff,
		Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}

	purger, err := events.NewPurgerFromEnv(pool, logger, reg) // retention of outbox rows and processed ids
	if err != nil {
		return err
	}

	svc := readmodel.NewStore(pool, cfg.Now)
	set := endpoints.New(svc, logger, reg)

	mux := server.NewMux(reg,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: events.BrokerCheck(cfg.KafkaBrokers), Optional: true},
	)
	transport.RegisterHTTP(mux, set, verifier, logger)

	// No internal API yet: the gRPC server carries only grpc.health.v1.Health.
	grpcSrv, health := server.NewGRPCServer(logger, grpcSec.ServerOptions(nil)...)

	return server.Run(ctx, server.RunConfig{
		Logger:       logger,
		HTTPAddr:     cfg.HTTPAddr,
		HTTPListener: cfg.HTTPListener,
		HTTPHandler:  server.Middleware(mux, ServiceName, logger, reg),
		GRPCAddr:     cfg.GRPCAddr,
		GRPCListener: cfg.GRPCListener,
		GRPCServer:   grpcSrv,
		GRPCHealth:   health,
		Workers: []server.Worker{
			{Name: "event-consumer", Run: consumer.Run},
			{Name: "events-purger", Run: purger.Run},
		},
		ShutdownTimeout: cfg.ShutdownTimeout,
		Ready:           cfg.Ready,
	})
}
