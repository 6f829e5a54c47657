// Command wallet runs the wallet service: the double-entry ledger, balance and
// transactions (HTTP /api/user/balance, /api/user/transactions[.csv]), spend
// controls and agent fees (/api/user/billing-settings, /api/user/agent-fees),
// Stripe top-ups and auto-recharge (/api/stripe/*), the background jobs (hold
// sweeper, fee scheduler, recharger, reconciliation) and gRPC
// agentic.wallet.v1.WalletService.
package main

import (
	"github.com/agentic-app/agentic/services/platform/service"
	"github.com/agentic-app/agentic/services/wallet/internal/app"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
