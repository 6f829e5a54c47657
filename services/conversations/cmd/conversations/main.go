// Command conversations runs the conversations service: users' conversations
// with agents, answers from the configured model, metered against the
// wallet (HTTP /api/agents/{id}/conversations, /api/conversations/*).
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/conversations/internal/app"
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
		logger.Error("conversations service failed", "error", err)
		os.Exit(1)
	}
}
