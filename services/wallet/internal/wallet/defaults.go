package wallet

import "time"

// The service's defaults, each declared once: NewService applies them to a
// zero Config field, and the app's configuration (RECHARGE_RETRY_AFTER,
// RECONCILE_LOOKBACK, the *_INTERVAL variables) should take its defaults
// from here rather than repeat the numbers. (The ledger's limits —
// DefaultHoldTTL, MaxHoldTTL, DefaultPageLimit — are in wallet.go, the
// fee in billing.go, the earnings hold in earnings.go.)
const (
	// DefaultSweepBatch bounds the holds one sweeper round expires.
	DefaultSweepBatch = 500
	// DefaultFeeBatch bounds the agents one fee-scheduler round renews.
	DefaultFeeBatch = 100
	// DefaultEarningsBatch bounds the creators one maturation round handles.
	DefaultEarningsBatch = 500
	// DefaultRechargeRetryAfter is the back-off after a declined
	// auto-recharge before a debit may start another.
	DefaultRechargeRetryAfter = 15 * time.Minute
	// DefaultRechargeLease is how long a worker owns a pending recharge
	// while it talks to Stripe.
	DefaultRechargeLease = time.Minute
	// DefaultRechargeMaxAttempts bounds the attempts of a recharge Stripe
	// keeps failing with errors.
	DefaultRechargeMaxAttempts = 10
	// DefaultReconcileLookback covers Stripe's own webhook retries (3 days).
	DefaultReconcileLookback = 72 * time.Hour
)

// How often the background workers run by default (the app's
// HOLD_SWEEP_INTERVAL, AGENT_FEE_INTERVAL, RECHARGE_INTERVAL,
// EARNINGS_INTERVAL and RECONCILE_INTERVAL).
const (
	DefaultHoldSweepInterval = 15 * time.Second
	DefaultAgentFeeInterval  = time.Minute
	DefaultRechargeInterval  = 30 * time.Second
	DefaultEarningsInterval  = 15 * time.Second
	DefaultReconcileInterval = 10 * time.Minute
)
