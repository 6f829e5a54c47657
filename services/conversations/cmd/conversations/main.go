// Command conversations runs the conversations service: users' conversations
// with agents, answers from the configured model, metered against the
// wallet (HTTP /api/agents/{id}/conversations, /api/conversations/*).
package main

import (
	"github.com/agentic-app/agentic/services/conversations/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
