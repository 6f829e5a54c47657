// Command documents runs the documents service: Google Docs documents linked
// to agents (HTTP /api/agents/{id}/documents*).
package main

import (
	"github.com/agentic-app/agentic/services/documents/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
