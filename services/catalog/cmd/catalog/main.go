// Command catalog runs the catalog service: agents, their e-mail addresses and
// subscribers (HTTP /api/agents*, gRPC agentic.catalog.v1.CatalogService).
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/catalog/internal/app"
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
		logger.Error("catalog service failed", "error", err)
		os.Exit(1)
	}
}
