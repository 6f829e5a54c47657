// Command wallet runs the wallet service: the double-entry ledger, balance and
// transactions (HTTP /api/user/balance, /api/user/transactions[.csv]), spend
// controls and agent fees (/api/user/billing-settings, /api/user/agent-fees),
// Stripe top-ups and auto-recharge (/api/stripe/*), the background jobs (hold
// sweeper, fee scheduler, recharger, reconciliation) and gRPC
// agentic.wallet.v1.WalletService.
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/wallet/internal/app"
)

func main() {
	logger := observability.NewLogger(app.ServiceName)
	cfg, err := app.LoadConfig()
	if err != nil {
		logger.Error("invalid configuration", "error", err)
		os.Exit(2)
	}
	if err := app.Run(context.Background(), cfg, logger); err != nil {
		logger.Error("wallet service failed", "error", err)
		os.Exit(1)
	}
}
