package transport

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

// Writes (creating and editing agents, sharing, revoking access, subscriber
// caps) check token revocation; reads do not.
func TestSensitiveRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	RegisterHTTP(mux, set, authtest.RevokedVerifier{UID: "u1", Email: "u1@example.com"}, nil)
	const id = "0190a0a0-0000-7000-8000-000000000001"
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/subscribers", Fresh: true},
		{Method: http.MethodDelete, Path: "/api/agents/" + id + "/subscribers/" + id, Fresh: true},
		{Method: http.MethodPatch, Path: "/api/agents/" + id + "/subscribers/" + id, Fresh: true},
		{Method: http.MethodGet, Path: "/api/agents"},
		{Method: http.MethodGet, Path: "/api/agents/shared"},
		{Method: http.MethodGet, Path: "/api/agents/" + id},
		{Method: http.MethodGet, Path: "/api/agents/" + id + "/subscribers"},
		{Method: http.MethodPatch, Path: "/api/agents/" + id, Fresh: true},
		{Method: http.MethodPost, Path: "/api/agents", Fresh: true},
		// The marketplace's reviews, replies and reports (the list is public).
		{Method: http.MethodPut, Path: "/api/marketplace/agents/tutor/review", Fresh: true},
		{Method: http.MethodDelete, Path: "/api/marketplace/agents/tutor/review", Fresh: true},
		{Method: http.MethodPost, Path: "/api/marketplace/agents/tutor/report", Fresh: true},
		{Method: http.MethodPost, Path: "/api/marketplace/reviews/" + id + "/report", Fresh: true},
		{Method: http.MethodPut, Path: "/api/agents/" + id + "/reviews/" + id + "/reply", Fresh: true},
		{Method: http.MethodDelete, Path: "/api/agents/" + id + "/reviews/" + id + "/reply", Fresh: true},
		{Method: http.MethodGet, Path: "/api/marketplace/agents/tutor/reviews"},
	})
}
