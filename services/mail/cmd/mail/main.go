// Command mail runs the mail service: the agents' SMTP inbox (MAIL_SMTP_ADDR)
// and their replies through the SMTP relay (SMTP_RELAY_URL); admin and
// health on HTTP_ADDR, gRPC health on GRPC_ADDR.
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/mail/internal/app"
	"github.com/agentic-app/agentic/services/platform/observability"
)

func main() {
	logger := observability.NewLogger(app.ServiceName)
	cfg, err := app.LoadConfig()
	if err != nil {
		logger.Error("invalid configuration", "error", err)
		os.Exit(2)
	}
	if err := app.Run(context.Background(), cfg, logger); err != nil {
		logger.Error("mail service failed", "error", err)
		os.Exit(1)
	}
}
