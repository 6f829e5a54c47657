package app

import (
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// GRPCPolicy lists who may call each IdentityService method (docs/reliability.md,
// "Internal gRPC: mutual TLS and per-method authorization"): the catalog
// (invitations), documents (comment authors) and mail (senders) map
// addresses to users; mail reads a user's profile. GetUsers has no caller
// yet, so nobody may call it.
func GRPCPolicy() server.GRPCPolicy {
	return server.GRPCPolicy{
		identityv1.IdentityService_FindUsersByEmail_FullMethodName: {"catalog", "documents", "mail"},
		identityv1.IdentityService_GetUser_FullMethodName:          {"mail"},
		identityv1.IdentityService_GetUsers_FullMethodName:         {},
	}
}
