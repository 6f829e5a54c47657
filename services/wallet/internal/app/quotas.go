package app

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
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

// withQuotas puts the per-user quotas in front of mux.
func withQuotas(mux *http.ServeMux, rdb redis.Scripter, verifier auth.Verifier, logger *slog.Logger, reg prometheus.Registerer) (http.Handler, error) {
	rules, err := quotaRules()
	if err != nil {
		return nil, err
	}
	l := ratelimit.New(rdb, ratelimit.Options{Service: ServiceName, Logger: logger, Registerer: reg})
	return l.Guard(mux, rules, ratelimit.TokenUser(verifier)), nil
}
