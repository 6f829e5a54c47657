// Command identity runs the identity service: user profiles, onboarding and
// public-agent interest (HTTP /api/user/*, gRPC agentic.identity.v1.IdentityService).
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/identity/internal/app"
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
		logger.Error("identity service failed", "error", err)
		os.Exit(1)
	}
}
