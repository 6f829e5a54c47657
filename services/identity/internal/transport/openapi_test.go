package transport

import (
	"context"
	"testing"

	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Every /api/* route this service registers is in the OpenAPI document
// with its method, and every operation the document gives this service
// (x-service: identity) has a handler.
func TestRoutesMatchOpenAPIDocument(t *testing.T) {
	refuse := auth.VerifierFunc(func(context.Context, string) (auth.Claims, error) { return auth.Claims{}, auth.ErrInvalidToken })
	mux := server.NewMux(nil)
	RegisterHTTP(mux, endpoints.Set{}, refuse, nil)
	for _, p := range openapi.Check("identity", mux) {
		t.Error(p)
	}
}
