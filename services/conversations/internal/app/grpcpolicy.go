package app

import (
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// GRPCPolicy lists who may call each ConversationsService method
// (docs/reliability.md, "Internal gRPC: mutual TLS and per-method
// authorization"): mail (e-mails) and documents (Docs comments) ask for
// answers, paid by the agent's payer.
func GRPCPolicy() server.GRPCPolicy {
	return server.GRPCPolicy{
		conversationsv1.ConversationsService_Answer_FullMethodName: {"mail", "documents"},
	}
}
