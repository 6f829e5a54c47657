// Command wallet runs the wallet service: the double-entry ledger, balance and
// transactions (HTTP /api/user/balance, /api/user/transactions), Stripe
// Checkout top-ups (/api/stripe/*) and gRPC agentic.wallet.v1.WalletService.
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
