// Command analytics runs the analytics service: read models built from every
// service's events (Kafka group "analytics"), served as the activity feed and
// the dashboard statistics (HTTP /api/activities, /api/dashboard/stats).
package main

import (
	"context"
	"os"

	"github.com/agentic-app/agentic/services/analytics/internal/app"
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
		logger.Error("analytics service failed", "error", err)
		os.Exit(1)
	}
}
