package app

import (
	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// GRPCPolicy lists who may call each KnowledgeService method (docs/reliability.md,
// "Internal gRPC: mutual TLS and per-method authorization"): only
// conversations retrieves an agent's knowledge for its answers; only the
// catalog counts an agent's documents (publishing, marketplace profiles).
func GRPCPolicy() server.GRPCPolicy {
	return server.GRPCPolicy{
		documentsv1.KnowledgeService_Search_FullMethodName:         {"conversations"},
		documentsv1.KnowledgeService_GetPassages_FullMethodName:    {"conversations"},
		documentsv1.KnowledgeService_CountDocuments_FullMethodName: {"catalog"},
	}
}
