// Command catalog runs the catalog service: agents, their e-mail addresses and
// subscribers (HTTP /api/agents*, gRPC agentic.catalog.v1.CatalogService).
package main

import (
	"github.com/agentic-app/agentic/services/catalog/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
