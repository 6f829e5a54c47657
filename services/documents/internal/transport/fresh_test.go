package transport

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

// Unlinking a document (deletion) checks token revocation; the rest do not.
func TestSensitiveRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	RegisterHTTP(mux, set, authtest.RevokedVerifier{UID: "u1"}, nil)
	const id = "0190a0a0-0000-7000-8000-000000000001"
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodDelete, Path: "/api/agents/" + id + "/documents/" + id, Fresh: true},
		{Method: http.MethodGet, Path: "/api/agents/" + id + "/documents"},
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/documents", Fresh: true},
		{Method: http.MethodPut, Path: "/api/agents/" + id + "/documents/" + id, Fresh: true},
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/documents/" + id + "/sync", Fresh: true},
		{Method: http.MethodPost, Path: "/api/agents/" + id + "/knowledge/search"},
		{Method: http.MethodGet, Path: "/api/agents/" + id + "/documents/preview?url=x"},
	})
}
