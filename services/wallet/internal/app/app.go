// Package app wires the wallet service: configuration, database and
// migrations, outbox relay, Redis cache and rate limiter, Stripe client,
// endpoints, HTTP and gRPC transports.
package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/service"
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
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	RedisURL string
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

	// RateLimitNow overrides the clock of the checkout limit's windows
	// (tests: an instant that stays in one window).
	RateLimitNow func() time.Time
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings: service.LoadSettings(&l, ServiceName, "127.0.0.1:8104", "127.0.0.1:9104"),
		RedisURL: l.String("REDIS_URL", "redis://127.0.0.1:6379/0"),

		StripeAPIBase:        l.String("STRIPE_API_BASE", "https://api.stripe.com"),
		StripeSecretKey:      l.DevString("STRIPE_SECRET_KEY", "sk_test_agentic_dev", "the Stripe API key (no development default in production)"),
		StripePublishableKey: l.String("STRIPE_PUBLISHABLE_KEY", "pk_test_agentic_dev"),
		StripeWebhookSecret:  l.DevString("STRIPE_WEBHOOK_SECRET", "whsec_agentic_dev", "the Stripe webhook signing secret (whsec_…); the development default is public"),
		AppBaseURL:           l.String("APP_BASE_URL", "http://localhost:8080"),
		CheckoutRateLimit:    l.Int("CHECKOUT_RATE_LIMIT", 5),
		CheckoutRateWindow:   l.Duration("CHECKOUT_RATE_WINDOW", time.Minute),
		HoldSweepInterval:    l.Duration("HOLD_SWEEP_INTERVAL", wallet.DefaultHoldSweepInterval),
		AgentFeeInterval:     l.Duration("AGENT_FEE_INTERVAL", wallet.DefaultAgentFeeInterval),
		RechargeInterval:     l.Duration("RECHARGE_INTERVAL", wallet.DefaultRechargeInterval),
		RechargeRetryAfter:   l.Duration("RECHARGE_RETRY_AFTER", wallet.DefaultRechargeRetryAfter),
		ReconcileInterval:    l.Duration("RECONCILE_INTERVAL", wallet.DefaultReconcileInterval),
		ReconcileLookback:    l.Duration("RECONCILE_LOOKBACK", wallet.DefaultReconcileLookback),
		EarningsHold:         l.Duration("EARNINGS_HOLD", wallet.DefaultEarningsHold),
		EarningsInterval:     l.Duration("EARNINGS_INTERVAL", wallet.DefaultEarningsInterval),
	}
	// Production without the Stripe secrets (DevString) or with emulator mode
	// is refused, naming every offending variable.
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	if c.ReconcileInterval <= 0 || c.ReconcileLookback <= 0 {
		l.Check(errors.New("RECONCILE_INTERVAL and RECONCILE_LOOKBACK must be greater than 0"))
	}
	if c.RechargeInterval <= 0 || c.RechargeRetryAfter < 0 {
		l.Check(errors.New("RECHARGE_INTERVAL must be > 0 and RECHARGE_RETRY_AFTER >= 0"))
	}
	if c.EarningsHold < 0 || c.EarningsInterval <= 0 {
		l.Check(errors.New("EARNINGS_HOLD must be >= 0 and EARNINGS_INTERVAL > 0"))
	}
	if c.AgentFeeInterval <= 0 {
		l.Check(errors.New("AGENT_FEE_INTERVAL: must be greater than 0"))
	}
	if c.HoldSweepInterval <= 0 {
		l.Check(errors.New("HOLD_SWEEP_INTERVAL: must be greater than 0"))
	}
	if c.CheckoutRateLimit < 1 {
		l.Check(errors.New("CHECKOUT_RATE_LIMIT: must be at least 1"))
	}
	if c.CheckoutRateWindow <= 0 {
		l.Check(errors.New("CHECKOUT_RATE_WINDOW: must be greater than 0"))
	}
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: wallet.Migrations, Outbox: true, Consumes: true, VerifyTokens: true,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	logger, reg := s.Logger, s.Registry

	// Agents' owner, name and status for the monthly fee (inactive: no renewal).
	if err := s.Consume("catalog-events", events.ConsumerConfig{
		GroupID: wallet.CatalogConsumerGroup, Topics: []string{topics.Catalog}, Handler: wallet.CatalogEventHandler(),
	}); err != nil {
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
	store := wallet.NewPostgresStore(s.Pool).SetEarningsHold(cfg.EarningsHold)
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
		newCheckoutLimit(rdb, walletCache, cfg, logger, reg), // quotas.go
		payments,
		wallet.Config{AppBaseURL: cfg.AppBaseURL, Logger: logger, Registerer: reg,
			RechargeRetryAfter: cfg.RechargeRetryAfter, RechargeRetryAfterSet: true, ReconcileLookback: cfg.ReconcileLookback,
			Payouts: payouts})
	set := endpoints.New(svc, logger, reg)
	set.AddPayouts(payouts, logger, reg)
	// A Config built by hand (tests) may leave the intervals zero.
	sweepInterval := orDefault(cfg.HoldSweepInterval, wallet.DefaultHoldSweepInterval)
	feeInterval := orDefault(cfg.AgentFeeInterval, wallet.DefaultAgentFeeInterval)
	rechargeInterval := orDefault(cfg.RechargeInterval, wallet.DefaultRechargeInterval)
	earningsInterval := orDefault(cfg.EarningsInterval, wallet.DefaultEarningsInterval)
	reconcileInterval := orDefault(cfg.ReconcileInterval, wallet.DefaultReconcileInterval)
	logger.Info("wallet configured", "stripe_api_base", cfg.StripeAPIBase, "app_base_url", cfg.AppBaseURL,
		"hold_sweep_interval", sweepInterval.String(), "agent_fee_interval", feeInterval.String(),
		"earnings_hold", cfg.EarningsHold.String())

	// Redis is not a readiness check: the wallet serves from PostgreSQL without it.
	transport.RegisterHTTP(s.Mux, set, s.Verifier, logger)
	// Per-user quotas in Redis (quotas.go).
	rules, err := quotaRules()
	if err != nil {
		return err
	}
	api := ratelimit.GuardMux(s.Mux, rdb, rules, s.Verifier, ratelimit.Options{Service: ServiceName, Logger: logger, Registerer: reg})

	// Every replica sweeps; they take different holds (SKIP LOCKED).
	s.AddWorker("hold-sweeper", func(ctx context.Context) error {
		return wallet.RunHoldSweeper(ctx, svc, sweepInterval, logger)
	})
	// Every replica matures earnings; they take different creators
	// (SKIP LOCKED). Reads, transfers and payouts also mature the
	// caller's due earnings first, so the ticker is never a wait.
	s.AddWorker("earnings-maturation", func(ctx context.Context) error {
		return wallet.RunEvery(ctx, "earnings maturation", earningsInterval, logger, svc.MatureEarnings)
	})
	// Every replica renews; they take different agents (SKIP LOCKED) and
	// a period can be charged only once (agent_fee_periods' key).
	s.AddWorker("agent-fee-scheduler", func(ctx context.Context) error {
		return wallet.RunEvery(ctx, "agent fee renewal", feeInterval, logger, svc.RenewAgentFees)
	})
	// Creates the PaymentIntents of auto-recharges (woken by the debit
	// that starts one; the ticker picks up what a crash left pending).
	s.AddWorker("recharger", func(ctx context.Context) error { return svc.RunRecharger(ctx, rechargeInterval) })
	// Repeats the Transfer of payouts saved but never sent or sent with an
	// unknown outcome (same Idempotency-Key; replicas claim different
	// payouts, SKIP LOCKED).
	s.AddWorker("payout-reconciler", func(ctx context.Context) error {
		return wallet.RunEvery(ctx, "payout reconciliation", wallet.PayoutReconcileInterval, logger, payouts.ReconcilePayouts)
	})
	// A missed webhook is never lost for good (idempotent with the
	// webhook path, so replicas may overlap).
	s.AddWorker("stripe-reconciliation", func(ctx context.Context) error {
		return wallet.RunEvery(ctx, "stripe reconciliation", reconcileInterval, logger, svc.Reconcile)
	})
	return s.Serve(ctx, api, GRPCPolicy(cfg.GRPCTLS.Development), func(g *grpc.Server) {
		walletv1.RegisterWalletServiceServer(g, transport.NewGRPCServer(set))
	})
}

// orDefault is d, or def where d is not a positive duration.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
