// Command analytics runs the analytics service: read models built from every
// service's events (Kafka group "analytics"), served as the activity feed and
// the dashboard statistics (HTTP /api/activities, /api/dashboard/stats).
package main

import (
	"github.com/agentic-app/agentic/services/analytics/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
