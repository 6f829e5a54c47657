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
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	ListDocuments   endpoint.Endpoint
	AddDocument     endpoint.Endpoint
	UpdateDocument  endpoint.Endpoint
	RemoveDocument  endpoint.Endpoint
	SyncDocument    endpoint.Endpoint
	SearchKnowledge endpoint.Endpoint
	PreviewDocument endpoint.Endpoint
	// Internal (gRPC KnowledgeService): no caller identity; callers have
	// authorised the agent themselves.
	Search      endpoint.Endpoint
	GetPassages endpoint.Endpoint
	// CountDocuments: the catalog's publishing rule (issue 27).
	CountDocuments endpoint.Endpoint
}

// Searcher is the knowledge index as the gRPC API uses it.
type Searcher interface {
	Search(ctx context.Context, q knowledge.Query) ([]knowledge.Passage, error)
	GetPassages(ctx context.Context, agentID string, documentIDs []string, tokenBudget int) ([]knowledge.Passage, error)
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

	SyncDocumentRequest struct {
		Claims     auth.Claims
		AgentID    string
		DocumentID string
	}
	SearchKnowledgeRequest struct {
		Claims  auth.Claims
		AgentID string
		Query   string
		Limit   *int
	}
	PreviewDocumentRequest struct {
		Claims  auth.Claims
		AgentID string
		URL     string
	}
	PreviewResponse    struct{ Preview documents.Preview }
	SearchRequest      struct{ Query knowledge.Query }
	GetPassagesRequest struct {
		AgentID     string
		DocumentIDs []string
		TokenBudget int
	}
	PassagesResponse struct{ Passages []knowledge.Passage }
	// CountDocumentsRequest / CountsResponse: CountDocuments.
	CountDocumentsRequest struct{ AgentID string }
	CountsResponse        struct{ Counts documents.Counts }

	DocumentsResponse struct{ Documents []documents.Document }
	DocumentResponse  struct{ Document documents.Document }
	RemovedResponse   struct{}
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc documents.Service, idx Searcher, logger *slog.Logger, reg prometheus.Registerer) Set {
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
		SyncDocument: wrap("SyncDocument", func(ctx context.Context, req any) (any, error) {
			r := req.(SyncDocumentRequest)
			d, err := svc.SyncDocument(ctx, r.Claims.UID, r.AgentID, r.DocumentID)
			if err != nil {
				return nil, err
			}
			return DocumentResponse{Document: d}, nil
		}),
		SearchKnowledge: wrap("SearchKnowledge", func(ctx context.Context, req any) (any, error) {
			r := req.(SearchKnowledgeRequest)
			ps, err := svc.SearchKnowledge(ctx, r.Claims.UID, r.AgentID, r.Query, r.Limit)
			if err != nil {
				return nil, err
			}
			return PassagesResponse{Passages: ps}, nil
		}),
		PreviewDocument: wrap("PreviewDocument", func(ctx context.Context, req any) (any, error) {
			r := req.(PreviewDocumentRequest)
			p, err := svc.PreviewDocument(ctx, r.Claims.UID, r.AgentID, r.URL)
			if err != nil {
				return nil, err
			}
			return PreviewResponse{Preview: p}, nil
		}),
		Search: wrap("Search", func(ctx context.Context, req any) (any, error) {
			ps, err := idx.Search(ctx, req.(SearchRequest).Query)
			if err != nil {
				return nil, err
			}
			return PassagesResponse{Passages: ps}, nil
		}),
		CountDocuments: wrap("CountDocuments", func(ctx context.Context, req any) (any, error) {
			c, err := svc.CountDocuments(ctx, req.(CountDocumentsRequest).AgentID)
			if err != nil {
				return nil, err
			}
			return CountsResponse{Counts: c}, nil
		}),
		GetPassages: wrap("GetPassages", func(ctx context.Context, req any) (any, error) {
			r := req.(GetPassagesRequest)
			ps, err := idx.GetPassages(ctx, r.AgentID, r.DocumentIDs, r.TokenBudget)
			if err != nil {
				return nil, err
			}
			return PassagesResponse{Passages: ps}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, name taken, bad input),
// "unavailable" (the catalog could not check ownership; logged at warn and
// marked as a span error), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	var (
		ve *documents.ValidationError
		qe *documents.QueryError
	)
	switch {
	case errors.As(err, &ve), errors.As(err, &qe), errors.Is(err, documents.ErrAgentNotFound),
		errors.Is(err, documents.ErrDocumentNotFound), errors.Is(err, documents.ErrNameTaken),
		errors.Is(err, knowledge.ErrNoAgent):
		return endpointmw.OutcomeClientError
	case errors.Is(err, documents.ErrCatalogUnavailable):
		return endpointmw.OutcomeUnavailable
	}
	return ""
})
