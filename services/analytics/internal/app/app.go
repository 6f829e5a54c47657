// Package app wires the analytics service: configuration, database and
// migrations, the Kafka consumer (group "analytics") that projects every
// service's events into read models, endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentic-app/agentic/services/analytics/internal/endpoints"
	"github.com/agentic-app/agentic/services/analytics/internal/transport"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "analytics"

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	// ConsumerGroup is the Kafka consumer group (default "analytics"); a new
	// group replays every topic from the first offset.
	ConsumerGroup string

	// Now is the clock of the statistics' month boundary and the freshness metric (tests).
	Now func() time.Time

	// ConsumerRetryBackoff overrides the consumer's first retry wait (tests).
	ConsumerRetryBackoff time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings:      service.LoadSettings(&l, ServiceName, "127.0.0.1:8105", "127.0.0.1:9105"),
		ConsumerGroup: l.String("ANALYTICS_CONSUMER_GROUP", readmodel.ConsumerGroup),
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if cfg.ConsumerGroup == "" {
		cfg.ConsumerGroup = readmodel.ConsumerGroup
	}
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: readmodel.Migrations, MigrationsDir: readmodel.MigrationsDir, Consumes: true, VerifyTokens: true,
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
