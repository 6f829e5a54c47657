package app

import (
	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// GRPCPolicy lists who may call each CatalogService method (docs/reliability.md,
// "Internal gRPC: mutual TLS and per-method authorization"): documents
// checks ownership and reads an agent's address; conversations reads the
// agents of a user's Library (their names, icons, slugs); conversations, documents
// (comments) and mail check that a user may use an agent; mail finds the
// agent an e-mail is addressed to; conversations polls the access changes
// that invalidate its cached CheckAccess answers.
func GRPCPolicy() server.GRPCPolicy {
	return server.GRPCPolicy{
		catalogv1.CatalogService_GetAgent_FullMethodName:           {"documents", "conversations"},
		catalogv1.CatalogService_CheckOwnership_FullMethodName:     {"documents"},
		catalogv1.CatalogService_CheckAccess_FullMethodName:        {"conversations", "documents", "mail"},
		catalogv1.CatalogService_FindAgentByEmail_FullMethodName:   {"mail"},
		catalogv1.CatalogService_AccessChangesSince_FullMethodName: {"conversations"},
	}
}
