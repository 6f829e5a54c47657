// Command mail runs the mail service: the agents' SMTP inbox (MAIL_SMTP_ADDR)
// and their replies through the SMTP relay (SMTP_RELAY_URL); admin and
// health on HTTP_ADDR, gRPC health on GRPC_ADDR.
package main

import (
	"github.com/agentic-app/agentic/services/mail/internal/app"
	"github.com/agentic-app/agentic/services/platform/service"
)

func main() { service.Main(app.ServiceName, app.LoadConfig, app.Run) }
