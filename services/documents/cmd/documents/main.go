// Command documents runs the documents service: Google Docs documents linked
// to agents (HTTP /api/agents/{id}/documents*).
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/documents/internal/app"
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
		logger.Error("documents service failed", "error", err)
		os.Exit(1)
	}
}
