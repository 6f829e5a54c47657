package transport

import (
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Every /api/* route this service registers is in the OpenAPI document
// with its method, and every operation the document gives this service
// (x-service: documents) has a handler.
func TestRoutesMatchOpenAPIDocument(t *testing.T) {
	mux := server.NewMux(nil)
	RegisterHTTP(mux, endpoints.Set{}, authtest.Refuse, nil)
	for _, p := range openapi.Check("documents", mux) {
		t.Error(p)
	}
}
