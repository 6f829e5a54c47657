// Command identity runs the identity service: user profiles, onboarding and
// public-agent interest (HTTP /api/user/*, gRPC agentic.identity.v1.IdentityService).
package main

import (
	"github.com/agentic-app/agentic/services/identity/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
