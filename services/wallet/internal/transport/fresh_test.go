package transport

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
)

// Money routes (top-up checkout, card setup for auto-recharge, billing
// settings) check token revocation; reads do not.
func TestSensitiveRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	RegisterHTTP(mux, set, authtest.RevokedVerifier{UID: "u1"}, nil)
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodPost, Path: "/api/stripe/create-checkout-session", Fresh: true},
		{Method: http.MethodPost, Path: "/api/stripe/setup-session", Fresh: true},
		{Method: http.MethodPut, Path: "/api/user/billing-settings", Fresh: true},
		{Method: http.MethodGet, Path: "/api/user/billing-settings"},
		{Method: http.MethodGet, Path: "/api/user/balance"},
		{Method: http.MethodGet, Path: "/api/user/transactions"},
		{Method: http.MethodGet, Path: "/api/user/agent-fees"},
	})
}
