package transport

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

// Deleting a conversation and creating or revoking API keys check token
// revocation; reading and chatting do not.
func TestSensitiveRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	v := authtest.RevokedVerifier{UID: "u1"}
	RegisterHTTP(mux, set, v, nil)
	RegisterAgentAPI(mux, set, v, nil, nil)
	const id = "0190a0a0-0000-7000-8000-000000000001"
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodDelete, Path: "/api/conversations/" + id, Fresh: true},
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/api-keys", Fresh: true},
		{Method: http.MethodDelete, Path: "/api/agents/" + id + "/api-keys/" + id, Fresh: true},
		{Method: http.MethodGet, Path: "/api/agents/" + id + "/api-keys"},
		{Method: http.MethodGet, Path: "/api/agents/" + id + "/conversations"},
		{Method: http.MethodGet, Path: "/api/conversations/" + id},
		{Method: http.MethodPatch, Path: "/api/conversations/" + id, Fresh: true},
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/conversations", Fresh: true},
		{Method: http.MethodPost, Path: "/api/conversations/" + id + "/messages", Fresh: true},
	})
}
