package transport

import (
	"testing"

	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
)

// Every /api/* route this service registers is in the OpenAPI document
// with its method, and every operation the document gives this service
// (x-service: wallet) has a handler.
func TestRoutesMatchOpenAPIDocument(t *testing.T) {
	mux := server.NewMux(nil)
	RegisterHTTP(mux, endpoints.Set{}, authtest.Refuse, nil)
	for _, p := range openapi.Check("wallet", mux) {
		t.Error(p)
	}
}
