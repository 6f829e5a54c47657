// Package app wires the analytics service: configuration, database and
// migrations, the Kafka consumer (group "analytics") that projects every
// service's events into read models, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/agentic-app/agentic/services/analytics/internal/endpoints"
	"github.com/agentic-app/agentic/services/analytics/internal/transport"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
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
	c.GRPCTLS = service.LoadGRPCTLS(&l)
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if cfg.ConsumerGroup == "" {
		cfg.ConsumerGroup = readmodel.ConsumerGroup
	}
	s, err := service.Start(ctx, ServiceName, service.Config{
		DatabaseURL: cfg.DatabaseURL, DatabaseCreate: cfg.DatabaseCreate,
		Migrations: readmodel.Migrations, MigrationsDir: readmodel.MigrationsDir,
		KafkaBrokers: cfg.KafkaBrokers, Consumes: true, ConsumerMaxWait: cfg.ConsumerMaxWait,
		VerifyTokens: true, FirebaseProjectID: cfg.FirebaseProjectID, Verifier: cfg.Verifier,
		GRPCTLS: cfg.GRPCTLS, HTTPAddr: cfg.HTTPAddr, GRPCAddr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout,
		HTTPListener: cfg.HTTPListener, GRPCListener: cfg.GRPCListener, Ready: cfg.Ready,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()

	projector := readmodel.NewProjector(readmodel.ProjectorConfig{Now: cfg.Now, Registerer: s.Registry})
	if err := s.Consume("event-consumer", events.ConsumerConfig{
		GroupID: cfg.ConsumerGroup, Topics: readmodel.Topics, Handler: projector.Handler(),
		RetryBackoff: cfg.ConsumerRetryBackoff,
	}); err != nil {
		return err
	}

	set := endpoints.New(readmodel.NewStore(s.Pool, cfg.Now), s.Logger, s.Registry)
	transport.RegisterHTTP(s.Mux, set, s.Verifier, s.Logger)

	// No internal API yet: the gRPC server carries only grpc.health.v1.Health.
	return s.Serve(ctx, s.Mux, nil, nil)
}
