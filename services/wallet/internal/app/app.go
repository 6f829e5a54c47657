// Package app wires the wallet service: configuration, database and
// migrations, outbox relay, Redis cache and rate limiter, Stripe client,
// endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/cache"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/stripeapi"
	"github.com/agentic-app/agentic/services/wallet/internal/transport"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "wallet"

// Config is the service configuration (environment only).
type Config struct {
	HTTPAddr          string
	GRPCAddr          string
	DatabaseURL       string
	DatabaseCreate    bool
	KafkaBrokers      []string
	FirebaseProjectID string
	ShutdownTimeout   time.Duration
	RedisURL          string
	// Stripe: API origin (Stripe, the dev simulator or stripe-mock), keys and webhook secret.
	StripeAPIBase        string
	StripeSecretKey      string
	StripePublishableKey string
	StripeWebhookSecret  string
	// AppBaseURL is the browser origin for the checkout success/cancel URLs.
	AppBaseURL string
	// CheckoutRateLimit checkout sessions per CheckoutRateWindow per user.
	CheckoutRateLimit  int
	CheckoutRateWindow time.Duration
	// HoldSweepInterval is how often the sweeper releases expired holds.
	HoldSweepInterval time.Duration
	// AgentFeeInterval is how often the fee scheduler renews due agent fees.
	AgentFeeInterval time.Duration
	// RechargeInterval is how often the recharge worker looks for pending
	// auto-recharges (besides being woken by the debit that starts one);
	// RechargeRetryAfter is the back-off after a declined recharge.
	RechargeInterval   time.Duration
	RechargeRetryAfter time.Duration
	// ReconcileInterval is how often reconciliation lists recent Checkout
	// Sessions and PaymentIntents at Stripe; ReconcileLookback how far back.
	ReconcileInterval time.Duration
	ReconcileLookback time.Duration
	// EarningsHold is how long creators' earnings stay pending
	// (EARNINGS_HOLD, default 168h; development 1m); EarningsInterval how
	// often the maturation ticker moves due ones to available.
	EarningsHold     time.Duration
	EarningsInterval time.Duration

	// Verifier replaces the Firebase verifier (tests).
	Verifier auth.Verifier
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
	// ConsumerMaxWait overrides the catalog consumer's fetch wait (tests).
	ConsumerMaxWait time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		HTTPAddr:          l.String("HTTP_ADDR", "127.0.0.1:8104"),
		GRPCAddr:          l.String("GRPC_ADDR", "127.0.0.1:9104"),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_wallet?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		RedisURL:          l.String("REDIS_URL", "redis://127.0.0.1:6379/0"),

		StripeAPIBase:        l.String("STRIPE_API_BASE", "https://api.stripe.com"),
		StripeSecretKey:      l.DevString("STRIPE_SECRET_KEY", "sk_test_agentic_dev", "the Stripe API key (no development default in production)"),
		StripePublishableKey: l.String("STRIPE_PUBLISHABLE_KEY", "pk_test_agentic_dev"),
		StripeWebhookSecret:  l.DevString("STRIPE_WEBHOOK_SECRET", "whsec_agentic_dev", "the Stripe webhook signing secret (whsec_…); the development default is public"),
		AppBaseURL:           l.String("APP_BASE_URL", "http://localhost:8080"),
		CheckoutRateLimit:    l.Int("CHECKOUT_RATE_LIMIT", 5),
		CheckoutRateWindow:   l.Duration("CHECKOUT_RATE_WINDOW", time.Minute),
		HoldSweepInterval:    l.Duration("HOLD_SWEEP_INTERVAL", 15*time.Second),
		AgentFeeInterval:     l.Duration("AGENT_FEE_INTERVAL", time.Minute),
		RechargeInterval:     l.Duration("RECHARGE_INTERVAL", 30*time.Second),
		RechargeRetryAfter:   l.Duration("RECHARGE_RETRY_AFTER", 15*time.Minute),
		ReconcileInterval:    l.Duration("RECONCILE_INTERVAL", 10*time.Minute),
		ReconcileLookback:    l.Duration("RECONCILE_LOOKBACK", 72*time.Hour),
		EarningsHold:         l.Duration("EARNINGS_HOLD", wallet.DefaultEarningsHold),
		EarningsInterval:     l.Duration("EARNINGS_INTERVAL", 15*time.Second),
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	// Production without the Stripe secrets (or with emulator mode) stops here,
	// naming every offending variable.
	if err := l.Err(); err != nil {
		return c, err
	}
	if c.ReconcileInterval <= 0 || c.ReconcileLookback <= 0 {
		return c, fmt.Errorf("RECONCILE_INTERVAL and RECONCILE_LOOKBACK must be greater than 0")
	}
	if c.RechargeInterval <= 0 || c.RechargeRetryAfter < 0 {
		return c, fmt.Errorf("RECHARGE_INTERVAL must be > 0 and RECHARGE_RETRY_AFTER >= 0")
	}
	if c.EarningsHold < 0 || c.EarningsInterval <= 0 {
		return c, fmt.Errorf("EARNINGS_HOLD must be >= 0 and EARNINGS_INTERVAL > 0")
	}
	if c.AgentFeeInterval <= 0 {
		return c, fmt.Errorf("AGENT_FEE_INTERVAL: must be greater than 0")
	}
	if c.HoldSweepInterval <= 0 {
		return c, fmt.Errorf("HOLD_SWEEP_INTERVAL: must be greater than 0")
	}
	if c.CheckoutRateLimit < 1 {
		return c, fmt.Errorf("CHECKOUT_RATE_LIMIT: must be at least 1")
	}
	if c.StripeWebhookSecret == "" || c.StripeSecretKey == "" {
		return c, fmt.Errorf("STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must not be empty")
	}
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
		Migrations: wallet.Migrations,
		Extra:      []database.MigrateFunc{events.Migrate, events.MigrateConsumer},
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

	// Agents' owner, name and status for the monthly fee (inactive: no renewal).
	catalogConsumer, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: cfg.KafkaBrokers, GroupID: wallet.CatalogConsumerGroup, Topics: []string{wallet.CatalogTopic},
		Handler: wallet.CatalogEventHandler(), MaxWait: cfg.ConsumerMaxWait, Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}

	rdb, err := cache.NewClient(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	payments := stripeapi.New(stripeapi.Config{
		APIBase: cfg.StripeAPIBase, SecretKey: cfg.StripeSecretKey,
		PublishableKey: cfg.StripePublishableKey, WebhookSecret: cfg.StripeWebhookSecret,
	})
	store := wallet.NewPostgresStore(pool).SetEarningsHold(cfg.EarningsHold)
	walletCache := cache.New(rdb, logger, reg)
	defer func() {
		// Before the Redis client closes: the last writes' invalidations
		// (sent in the background) must reach Redis, or other replicas keep
		// serving the old values until their TTL.
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := walletCache.Drain(dctx); err != nil {
			logger.Warn("cache invalidations still in flight at shutdown", "error", err)
		}
	}()
	// Creator payouts through Stripe Connect (the same Stripe client).
	payouts := wallet.NewPayouts(store, payments, walletCache, wallet.PayoutsConfig{AppBaseURL: cfg.AppBaseURL, Logger: logger})
	svc := wallet.NewService(store,
		walletCache,
		cache.NewLimiter(rdb, "checkout", cfg.CheckoutRateLimit, cfg.CheckoutRateWindow, logger, reg),
		payments,
		wallet.Config{AppBaseURL: cfg.AppBaseURL, Logger: logger, Registerer: reg,
			RechargeRetryAfter: cfg.RechargeRetryAfter, RechargeRetryAfterSet: true, ReconcileLookback: cfg.ReconcileLookback,
			Payouts: payouts})
	set := endpoints.New(svc, logger, reg)
	set.AddPayouts(payouts, logger, reg)
	sweepInterval := cfg.HoldSweepInterval
	if sweepInterval <= 0 {
		sweepInterval = 15 * time.Second
	}
	feeInterval := cfg.AgentFeeInterval
	if feeInterval <= 0 {
		feeInterval = time.Minute
	}
	rechargeInterval := cfg.RechargeInterval
	if rechargeInterval <= 0 {
		rechargeInterval = 30 * time.Second
	}
	earningsInterval := cfg.EarningsInterval
	if earningsInterval <= 0 {
		earningsInterval = 15 * time.Second
	}
	reconcileInterval := cfg.ReconcileInterval
	if reconcileInterval <= 0 {
		reconcileInterval = 10 * time.Minute
	}
	logger.Info("wallet configured", "stripe_api_base", cfg.StripeAPIBase, "app_base_url", cfg.AppBaseURL,
		"hold_sweep_interval", sweepInterval.String(), "agent_fee_interval", feeInterval.String(),
		"earnings_hold", cfg.EarningsHold.String())

	// Redis is not a readiness check: the wallet serves from PostgreSQL without it.
	mux := server.NewMux(reg,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: relay.Check, Optional: true},
	)
	transport.RegisterHTTP(mux, set, verifier, logger)
	// Per-user quotas in Redis (quotas.go).
	api, err := withQuotas(mux, rdb, verifier, logger, reg)
	if err != nil {
		return err
	}

	grpcSrv, health := server.NewGRPCServer(logger, grpcSec.ServerOptions(GRPCPolicy(cfg.GRPCTLS.Development))...)
	walletv1.RegisterWalletServiceServer(grpcSrv, transport.NewGRPCServer(set))

	workers := []server.Worker{
		{Name: "outbox-relay", Run: relay.Run},
		{Name: "events-purger", Run: purger.Run},
		// Every replica sweeps; they take different holds (SKIP LOCKED).
		{Name: "hold-sweeper", Run: func(ctx context.Context) error {
			return wallet.RunHoldSweeper(ctx, svc, sweepInterval, logger)
		}},
		{Name: "catalog-events", Run: catalogConsumer.Run},
		// Every replica matures earnings; they take different creators
		// (SKIP LOCKED). Reads, transfers and payouts also mature the
		// caller's due earnings first, so the ticker is never a wait.
		{Name: "earnings-maturation", Run: func(ctx context.Context) error {
			return wallet.RunEvery(ctx, "earnings maturation", earningsInterval, logger, svc.MatureEarnings)
		}},
		// Every replica renews; they take different agents (SKIP LOCKED) and
		// a period can be charged only once (agent_fee_periods' key).
		{Name: "agent-fee-scheduler", Run: func(ctx context.Context) error {
			return wallet.RunEvery(ctx, "agent fee renewal", feeInterval, logger, svc.RenewAgentFees)
		}},
		// Creates the PaymentIntents of auto-recharges (woken by the debit
		// that starts one; the ticker picks up what a crash left pending).
		{Name: "recharger", Run: func(ctx context.Context) error { return svc.RunRecharger(ctx, rechargeInterval) }},
		// Repeats the Transfer of payouts saved but never sent or sent with an
		// unknown outcome (same Idempotency-Key; replicas claim different
		// payouts, SKIP LOCKED).
		{Name: "payout-reconciler", Run: func(ctx context.Context) error {
			return wallet.RunEvery(ctx, "payout reconciliation", wallet.PayoutReconcileInterval, logger, payouts.ReconcilePayouts)
		}},
		// A missed webhook is never lost for good (idempotent with the
		// webhook path, so replicas may overlap).
		{Name: "stripe-reconciliation", Run: func(ctx context.Context) error {
			return wallet.RunEvery(ctx, "stripe reconciliation", reconcileInterval, logger, svc.Reconcile)
		}},
	}
	return server.Run(ctx, server.RunConfig{
		Logger:          logger,
		HTTPAddr:        cfg.HTTPAddr,
		HTTPListener:    cfg.HTTPListener,
		HTTPHandler:     server.Middleware(api, ServiceName, logger, reg),
		GRPCAddr:        cfg.GRPCAddr,
		GRPCListener:    cfg.GRPCListener,
		GRPCServer:      grpcSrv,
		GRPCHealth:      health,
		Workers:         workers,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Ready:           cfg.Ready,
	})
}
