package app

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/wallet/internal/cache"
	"github.com/agentic-app/agentic/services/wallet/internal/transport"
)

// quotaRules are the wallet's per-user quotas (docs/reliability.md, "Rate
// limits and quotas"): the money-moving routes fail closed (503 while Redis
// is unreachable), the reads fail open. The checkout limiter inside the
// service (CHECKOUT_RATE_LIMIT, fail open) still applies on top.
func quotaRules() (ratelimit.Rules, error) {
	money, read, err := ratelimit.RatesFromEnv()
	if err != nil {
		return nil, err
	}
	return ratelimit.Rules{
		http.MethodPost + " " + transport.PathCheckout:          money.For("checkout"),
		http.MethodPost + " " + transport.PathSetupSession:      money.For("recharge-setup"),
		http.MethodPut + " " + transport.PathBillingSettings:    money.For("billing-settings"),
		http.MethodGet + " " + transport.PathBalance:            read.For("read"),
		http.MethodGet + " " + transport.PathTransactions:       read.For("read"),
		http.MethodGet + " " + transport.PathBillingSettings:    read.For("read"),
		http.MethodGet + " " + transport.PathAgentFees:          read.For("read"),
		http.MethodGet + " " + transport.PathTransactionsCSV:    read.For("read"),
		http.MethodPost + " " + transport.PathPayoutAccountLink: money.For("payout-account-link"),
		http.MethodPost + " " + transport.PathPayouts:           money.For("payouts"),
		http.MethodGet + " " + transport.PathPayouts:            read.For("read"),
		http.MethodGet + " " + transport.PathEarnings:           read.For("read"),
		http.MethodGet + " " + transport.PathEarningsSeries:     read.For("read"),
		http.MethodPost + " " + transport.PathEarningsTransfer:  money.For("earnings-transfer"),
	}, nil
}

// checkoutLimit is the wallet's own limit on creating checkout and setup
// sessions (wallet.RateLimiter; CHECKOUT_RATE_LIMIT per
// CHECKOUT_RATE_WINDOW per user, keys wallet:{uid}:rl:checkout:<window
// start>), the product limit. A fixed window that fails open: Envoy's coarse
// limit still applies, and the quota above fails closed while Redis is
// away. Refusals count in wallet_rate_limited_total{limit="checkout"},
// failures in wallet_redis_errors_total{op="ratelimit"} with the cache's.
type checkoutLimit struct{ limit ratelimit.Limit }

func newCheckoutLimit(rdb redis.Scripter, c *cache.Cache, cfg Config, logger *slog.Logger, reg prometheus.Registerer) checkoutLimit {
	rejected := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "wallet_rate_limited_total", Help: "Requests rejected by the per-user rate limit.", ConstLabels: prometheus.Labels{"limit": "checkout"},
	})
	if reg != nil {
		rejected = observability.Register(reg, rejected)
	}
	l := ratelimit.New(rdb, ratelimit.Options{
		Service: ServiceName, Logger: logger, Now: cfg.RateLimitNow,
		// One attempt, bounded like the cache's calls: failing open, a
		// late answer costs one unlimited session.
		Timeout: 2 * cache.IOTimeout, SlowAttempts: 1,
		Rejected: func(ratelimit.Rule) prometheus.Counter { return rejected },
		Errors:   func(ratelimit.Rule) prometheus.Counter { return c.RedisErrors("ratelimit") },
	})
	return checkoutLimit{l.Limit(ratelimit.Rule{
		Class: "checkout", Limit: cfg.CheckoutRateLimit, Window: cfg.CheckoutRateWindow,
		Mode: ratelimit.FailOpen, Algorithm: ratelimit.FixedWindow,
	})}
}

// Allow implements wallet.RateLimiter.
func (c checkoutLimit) Allow(ctx context.Context, uid string) bool {
	ok, _ := c.limit.Allow(ctx, uid)
	return ok
}
