package transport

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
)

// The account routes (sign out everywhere, delete the account) check token
// revocation; onboarding and the interest flag do not.
func TestSensitiveRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	RegisterHTTP(mux, set, authtest.RevokedVerifier{UID: "u1"}, nil)
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodPost, Path: PathRevokeSessions, Fresh: true},
		{Method: http.MethodDelete, Path: PathAccount, Fresh: true},
		{Method: http.MethodPost, Path: PathOnboarding},
		{Method: http.MethodPost, Path: PathPublicAgentInterest},
	})
}
