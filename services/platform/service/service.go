// Package service starts what every backend service runs the same way, so
// that a service's app package states only what is its own.
//
// The seven app.Run functions used to repeat the same start-up and shut-down
// (tracing, the metrics registry, internal gRPC security, the database and
// its migrations, the token verifier, the outbox relay and purger, the event
// consumers, the operational endpoints, server.Run and its workers). A change
// to that sequence had to be made seven times and the copies drifted; here it
// is made once.
package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Settings are the settings every service has, read from the same
// environment variables by LoadSettings. A service's Config embeds them, so
// that it declares and reads only its own.
type Settings struct {
	// HTTPAddr and GRPCAddr are where the servers listen (HTTP_ADDR,
	// GRPC_ADDR).
	HTTPAddr, GRPCAddr string
	// DatabaseURL is the service's own database (DATABASE_URL), created at
	// start when DatabaseCreate (DATABASE_CREATE; the local stack).
	DatabaseURL    string
	DatabaseCreate bool
	// KafkaBrokers: KAFKA_BROKERS, comma-separated.
	KafkaBrokers []string
	// FirebaseProjectID is the project whose ID tokens are accepted
	// (FIREBASE_PROJECT_ID); Verifier replaces the Firebase verifier (tests).
	FirebaseProjectID string
	Verifier          auth.Verifier
	// ShutdownTimeout bounds the drain at a signal (SHUTDOWN_TIMEOUT).
	ShutdownTimeout time.Duration
	// GRPCTLS is the internal gRPC mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT,
	// GRPC_TLS_KEY); the zero value is plaintext (tests), which LoadSettings
	// refuses in production.
	GRPCTLS server.GRPCTLS

	// Tests: listeners replacing the addresses, the hook called once they
	// listen, the relay's idle poll and the consumers' fetch wait (a service
	// without an outbox or consumers ignores the last two).
	HTTPListener, GRPCListener net.Listener
	Ready                      func(httpAddr, grpcAddr net.Addr)
	RelayPollInterval          time.Duration
	ConsumerMaxWait            time.Duration
}

// LoadSettings reads Settings from the environment into l (bad values are
// reported by l.Err with every other): the service listens on httpAddr and
// grpcAddr and uses the local database agentic_<name> unless told otherwise.
func LoadSettings(l *config.Loader, name, httpAddr, grpcAddr string) Settings {
	return Settings{
		HTTPAddr:          l.String("HTTP_ADDR", httpAddr),
		GRPCAddr:          l.String("GRPC_ADDR", grpcAddr),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_"+name+"?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		GRPCTLS:           LoadGRPCTLS(l),
	}
}

// Config is what Start needs: the service's Settings and what it is built
// with.
type Config struct {
	Settings
	// Migrations and MigrationsDir are the service's goose migrations
	// (MigrationsDir defaults to "migrations").
	Migrations    fs.FS
	MigrationsDir string
	// Outbox: the service publishes events (the outbox table and its relay).
	Outbox bool
	// Consumes: the service consumes events (processed_events, parked_events);
	// Consume is refused without it.
	Consumes bool
	// VerifyTokens: the service authenticates users by their ID tokens, with
	// Verifier when set (tests), otherwise Firebase for FirebaseProjectID.
	VerifyTokens bool
}

// Service holds the parts every service shares. Start builds it, the app
// adds its consumers and workers and routes on Mux, Serve runs it and Close
// releases it.
type Service struct {
	Name     string
	Logger   *slog.Logger
	Registry *prometheus.Registry
	// GRPC secures the gRPC server and the clients dialled to peers.
	GRPC *server.GRPCSecurity
	Pool *pgxpool.Pool
	// Verifier is nil unless Config.VerifyTokens.
	Verifier *auth.CachingVerifier
	// Mux has the operational endpoints (/healthz, /readyz with the database
	// and Kafka checks, /metrics); the service adds its routes.
	Mux *http.ServeMux

	cfg     Config
	workers []server.Worker
	closers []func()
}

// Start sets up tracing, the registry, gRPC security, the database (created
// when asked, migrated), the verifier, the outbox relay and the purger, in
// that order. On error what was set up is released again; otherwise the
// caller defers Close.
func Start(ctx context.Context, name string, cfg Config, logger *slog.Logger) (_ *Service, err error) {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Service{Name: name, Logger: logger, cfg: cfg}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	stopTracing, err := observability.StartTracing(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	s.onClose(stopTracing)
	s.Registry = observability.NewRegistry()
	// Internal gRPC: mutual TLS and per-method authorization (the policy is
	// the service's, given to Serve).
	if s.GRPC, err = server.NewGRPCSecurity(cfg.GRPCTLS, name, logger, s.Registry); err != nil {
		return nil, err
	}

	// Database: create (local only), connect with retry, migrate.
	var extra []database.MigrateFunc
	if cfg.Outbox {
		extra = append(extra, events.Migrate)
	}
	if cfg.Consumes {
		extra = append(extra, events.MigrateConsumer)
	}
	s.Pool, err = database.Open(ctx, database.OpenConfig{
		URL: cfg.DatabaseURL, Create: cfg.DatabaseCreate, Logger: logger, Registerer: s.Registry,
		Migrations: cfg.Migrations, Dir: cfg.MigrationsDir, Extra: extra,
	})
	if err != nil {
		return nil, err
	}
	s.onClose(s.Pool.Close)

	if cfg.VerifyTokens {
		if s.Verifier, err = auth.NewVerifier(ctx, cfg.Verifier, cfg.FirebaseProjectID, logger); err != nil {
			return nil, err
		}
	}

	if cfg.Outbox {
		relay, err := events.NewRelay(events.RelayConfig{
			Pool: s.Pool, Brokers: cfg.KafkaBrokers, Logger: logger, Registerer: s.Registry,
			PollInterval: cfg.RelayPollInterval,
		})
		if err != nil {
			return nil, err
		}
		s.onClose(func() { _ = relay.Close() })
		s.AddWorker("outbox-relay", relay.Run)
	}
	purger, err := events.NewPurgerFromEnv(s.Pool, logger, s.Registry) // retention of outbox rows and processed ids
	if err != nil {
		return nil, err
	}
	s.AddWorker("events-purger", purger.Run)

	// Kafka is optional: the outbox buffers events while it is away.
	s.Mux = server.NewMux(s.Registry,
		server.Check{Name: "database", Fn: database.Check(s.Pool)},
		server.Check{Name: "kafka", Fn: events.BrokerCheck(cfg.KafkaBrokers), Optional: true},
	)
	return s, nil
}

// Consume adds a worker applying the events of cc.Topics as consumer group
// cc.GroupID. The service fills in the pool, brokers, logger, registry and,
// unless cc sets it, the fetch wait.
func (s *Service) Consume(worker string, cc events.ConsumerConfig) error {
	if !s.cfg.Consumes {
		return errors.New("service: Consume needs Config.Consumes (its tables)")
	}
	cc.Pool, cc.Brokers, cc.Logger, cc.Registerer = s.Pool, s.cfg.KafkaBrokers, s.Logger, s.Registry
	if cc.MaxWait == 0 {
		cc.MaxWait = s.cfg.ConsumerMaxWait
	}
	c, err := events.NewConsumer(cc)
	if err != nil {
		return err
	}
	// Run closes it too; this is for a Serve that never starts it.
	s.onClose(func() { _ = c.Close() })
	s.AddWorker(worker, c.Run)
	return nil
}

// AddWorker adds a background job Serve runs: it is cancelled once the
// servers have drained and must return soon after.
func (s *Service) AddWorker(name string, run func(ctx context.Context) error) {
	s.workers = append(s.workers, server.Worker{Name: name, Run: run})
}

// Serve serves api (s.Mux, or a handler in front of it) over HTTP and the
// gRPC services register adds (nil: health only) under policy, and runs the
// workers, until ctx is cancelled or a signal arrives (server.Run).
func (s *Service) Serve(ctx context.Context, api http.Handler, policy server.GRPCPolicy, register func(*grpc.Server)) error {
	grpcSrv, health := server.NewGRPCServer(s.Logger, s.GRPC.ServerOptions(policy)...)
	if register != nil {
		register(grpcSrv)
	}
	return server.Run(ctx, server.RunConfig{
		Logger:          s.Logger,
		HTTPAddr:        s.cfg.HTTPAddr,
		HTTPListener:    s.cfg.HTTPListener,
		HTTPHandler:     server.Middleware(api, s.Name, s.Logger, s.Registry),
		GRPCAddr:        s.cfg.GRPCAddr,
		GRPCListener:    s.cfg.GRPCListener,
		GRPCServer:      grpcSrv,
		GRPCHealth:      health,
		Workers:         s.workers,
		ShutdownTimeout: s.cfg.ShutdownTimeout,
		Ready:           s.cfg.Ready,
	})
}

// Close releases what Start and Consume set up, the last first: consumers,
// the relay, the pool, tracing.
func (s *Service) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

func (s *Service) onClose(f func()) { s.closers = append(s.closers, f) }

// LoadGRPCTLS is server.LoadGRPCTLS with its error recorded on l, so that
// LoadConfig reports it with every other bad variable.
func LoadGRPCTLS(l *config.Loader) server.GRPCTLS {
	c, err := server.LoadGRPCTLS()
	if bad := (*config.Error)(nil); errors.As(err, &bad) && bad.Key == config.AppEnvKey {
		l.Env() // an invalid APP_ENV is l's to report, once
		return c
	}
	l.Check(err)
	return c
}
