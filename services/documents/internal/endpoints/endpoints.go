// Package endpoints adapts the documents.Service to go-kit endpoints and
// wraps them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	ListDocuments  endpoint.Endpoint
	AddDocument    endpoint.Endpoint
	UpdateDocument endpoint.Endpoint
	RemoveDocument endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller.
type (
	ListDocumentsRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	AddDocumentRequest struct {
		Claims  auth.Claims
		AgentID string
		Input   documents.AddInput
	}
	UpdateDocumentRequest struct {
		Claims     auth.Claims
		AgentID    string
		DocumentID string
		Input      documents.UpdateInput
	}
	RemoveDocumentRequest struct {
		Claims     auth.Claims
		AgentID    string
		DocumentID string
	}

	DocumentsResponse struct{ Documents []documents.Document }
	DocumentResponse  struct{ Document documents.Document }
	RemovedResponse   struct{}
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc documents.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("documents", logger, reg, Outcome)
	return Set{
		ListDocuments: wrap("ListDocuments", func(ctx context.Context, req any) (any, error) {
			r := req.(ListDocumentsRequest)
			ds, err := svc.ListDocuments(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return DocumentsResponse{Documents: ds}, nil
		}),
		AddDocument: wrap("AddDocument", func(ctx context.Context, req any) (any, error) {
			r := req.(AddDocumentRequest)
			d, err := svc.AddDocument(ctx, r.Claims.UID, r.AgentID, r.Input)
			if err != nil {
				return nil, err
			}
			return DocumentResponse{Document: d}, nil
		}),
		UpdateDocument: wrap("UpdateDocument", func(ctx context.Context, req any) (any, error) {
			r := req.(UpdateDocumentRequest)
			d, err := svc.UpdateDocument(ctx, r.Claims.UID, r.AgentID, r.DocumentID, r.Input)
			if err != nil {
				return nil, err
			}
			return DocumentResponse{Document: d}, nil
		}),
		RemoveDocument: wrap("RemoveDocument", func(ctx context.Context, req any) (any, error) {
			r := req.(RemoveDocumentRequest)
			if err := svc.RemoveDocument(ctx, r.Claims.UID, r.AgentID, r.DocumentID); err != nil {
				return nil, err
			}
			return RemovedResponse{}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, name taken, bad input),
// "unavailable" (the catalog could not check ownership; logged at warn and
// marked as a span error), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	var ve *documents.ValidationError
	switch {
	case errors.As(err, &ve), errors.Is(err, documents.ErrAgentNotFound), errors.Is(err, documents.ErrDocumentNotFound),
		errors.Is(err, documents.ErrNameTaken):
		return endpointmw.OutcomeClientError
	case errors.Is(err, documents.ErrCatalogUnavailable):
		return endpointmw.OutcomeUnavailable
	}
	return ""
})
