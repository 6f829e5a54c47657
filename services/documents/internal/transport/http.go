// Package transport exposes the documents endpoints over HTTP/JSON (the
// public /api/agents/{id}/documents routes).
package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Public routes (net/http patterns).
const (
	PathDocuments = "/api/agents/{id}/documents"
	PathDocument  = "/api/agents/{id}/documents/{documentId}"
	PathSync      = "/api/agents/{id}/documents/{documentId}/sync"
	PathSearch    = "/api/agents/{id}/knowledge/search"
	PathPreview   = "/api/agents/{id}/documents/preview"
)

// RegisterHTTP adds the document routes to mux, each behind the platform
// auth middleware (verifier).
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	opts := server.KitOptions(encodeHTTPError(logger))
	protect := auth.Middleware(verifier, logger)
	// Sensitive routes (money, sharing, keys, deletion) also check that the
	// token was not revoked and its user not disabled (docs/identity.md).
	fresh := auth.RequireFresh(verifier, logger)
	route := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, protect(httptransport.NewServer(e, dec, enc, opts...)))
	}
	route(http.MethodGet, PathDocuments, set.ListDocuments, decodeList, encodeJSON(http.StatusOK))
	// Writes check revocation too (issue 30 item 1); the search is a read.
	sensitive := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, fresh(httptransport.NewServer(e, dec, enc, opts...)))
	}
	sensitive(http.MethodPost, PathDocuments, set.AddDocument, decodeAdd, encodeJSON(http.StatusCreated))
	sensitive(http.MethodPut, PathDocument, set.UpdateDocument, decodeUpdate, encodeJSON(http.StatusOK))
	server.Route(mux, http.MethodDelete, PathDocument, fresh(httptransport.NewServer(set.RemoveDocument, decodeRemove, encodeJSON(http.StatusNoContent), opts...)))
	sensitive(http.MethodPost, PathSync, set.SyncDocument, decodeSync, encodeJSON(http.StatusAccepted))
	// Test retrieval says how the search ran (headers: the body stays the
	// array of passages): see encodeSearch.
	server.Route(mux, http.MethodPost, PathSearch, protect(httptransport.NewServer(set.SearchKnowledge, decodeSearch, encodeSearch,
		append(opts, httptransport.ServerBefore(func(ctx context.Context, _ *http.Request) context.Context {
			ctx, _ = knowledge.WithModeReport(ctx)
			return ctx
		}))...)))
	// Registered for GET only (not through server.Route, whose catch-all
	// for other methods would clash with PathDocument's): another method on
	// this path is PathDocument's, with documentId "preview" (404/405).
	mux.Handle(http.MethodGet+" "+PathPreview, protect(httptransport.NewServer(set.PreviewDocument, decodePreview,
		encodeJSON(http.StatusOK), opts...)))
}

// DocumentJSON is a document as the HTTP API shows it. The sync fields are
// always present (null when unknown).
type DocumentJSON struct {
	ID            string     `json:"id"`
	AgentID       string     `json:"agentId"`
	Name          string     `json:"name"`
	URL           string     `json:"url"`
	DriveFileID   string     `json:"driveFileId"`
	Labels        []string   `json:"labels"`
	SharingStatus string     `json:"sharingStatus"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	SyncState     string     `json:"syncState"`
	SyncError     *string    `json:"syncError"`
	DriveTitle    *string    `json:"driveTitle"`
	SyncedAt      *time.Time `json:"syncedAt"`
	ModifiedTime  *time.Time `json:"modifiedTime"`
	TokenCount    *int       `json:"tokenCount"`
}

// PassageJSON is one passage of the Test retrieval answer.
type PassageJSON struct {
	DocumentID   string   `json:"documentId"`
	DocumentName string   `json:"documentName"`
	Labels       []string `json:"labels"`
	Text         string   `json:"text"`
	// HeadingPath: the document's title and the headings above the passage.
	HeadingPath string  `json:"headingPath"`
	Score       float64 `json:"score"`
	// Relevance: the score as a share of a passage holding every word;
	// Relevant: enough for the agent to answer from it.
	Relevance  float64 `json:"relevance"`
	Relevant   bool    `json:"relevant"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	URL        string  `json:"url"`
	TokenCount int     `json:"tokenCount"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// DocumentToJSON converts a domain document.
func DocumentToJSON(d documents.Document) DocumentJSON {
	labels := d.Labels
	if labels == nil {
		labels = []string{}
	}
	return DocumentJSON{
		ID: d.ID, AgentID: d.AgentID, Name: d.Name, URL: d.URL, DriveFileID: d.DriveFileID, Labels: labels,
		SharingStatus: d.SharingStatus, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
		SyncState: d.SyncState, SyncError: d.SyncError, DriveTitle: d.DriveTitle, SyncedAt: utc(d.SyncedAt),
		ModifiedTime: utc(d.ModifiedTime), TokenCount: d.TokenCount,
	}
}

func decodeSync(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.SyncDocumentRequest{Claims: c, AgentID: r.PathValue("id"), DocumentID: r.PathValue("documentId")}, nil
}

// searchBody is the Test retrieval request; other fields are ignored.
type searchBody struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

func decodeSearch(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b searchBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.SearchKnowledgeRequest{Claims: c, AgentID: r.PathValue("id"), Query: b.Query, Limit: b.Limit}, nil
}

// PreviewJSON is GET /api/agents/{id}/documents/preview?url=…: the
// document's title when the agent can already open it.
type PreviewJSON struct {
	Title  *string `json:"title"`
	Shared bool    `json:"shared"`
}

func decodePreview(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.PreviewDocumentRequest{Claims: c, AgentID: r.PathValue("id"), URL: r.URL.Query().Get("url")}, nil
}

func decodeList(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ListDocumentsRequest{Claims: c, AgentID: r.PathValue("id")}, nil
}

// addBody is the POST body; other fields are ignored.
type addBody struct {
	Name          string   `json:"name"`
	URL           string   `json:"url"`
	DriveFileID   string   `json:"driveFileId"`
	Labels        []string `json:"labels"`
	SharingStatus string   `json:"sharingStatus"`
}

func decodeAdd(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b addBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.AddDocumentRequest{Claims: c, AgentID: r.PathValue("id"), Input: documents.AddInput{
		Name: b.Name, URL: b.URL, DriveFileID: b.DriveFileID, Labels: b.Labels, SharingStatus: b.SharingStatus,
	}}, nil
}

// updateBody is the PUT body: the full document with name and labels
// changed. id, agentId, createdAt, updatedAt and unknown fields are ignored;
// url and driveFileId, when present, must be the stored values.
type updateBody struct {
	Name          string   `json:"name"`
	Labels        []string `json:"labels"`
	SharingStatus string   `json:"sharingStatus"`
	URL           *string  `json:"url"`
	DriveFileID   *string  `json:"driveFileId"`
}

func decodeUpdate(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b updateBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.UpdateDocumentRequest{Claims: c, AgentID: r.PathValue("id"), DocumentID: r.PathValue("documentId"),
		Input: documents.UpdateInput{
			Name: b.Name, Labels: b.Labels, SharingStatus: b.SharingStatus, URL: b.URL, DriveFileID: b.DriveFileID,
		}}, nil
}

func decodeRemove(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.RemoveDocumentRequest{Claims: c, AgentID: r.PathValue("id"), DocumentID: r.PathValue("documentId")}, nil
}

// Headers of Test retrieval's answer: X-Retrieval-Mode is lexical (no
// embeddings provider is configured), hybrid (full text and embeddings,
// fused) or fallback (a provider is configured but the query could not be
// embedded: full text only); X-Embeddings-Model names the provider's model
// and X-Embeddings-Simulated is "true" for the LLM simulator's vectors,
// which are not semantic.
const (
	HeaderRetrievalMode       = "X-Retrieval-Mode"
	HeaderEmbeddingsModel     = "X-Embeddings-Model"
	HeaderEmbeddingsSimulated = "X-Embeddings-Simulated"
)

func encodeSearch(ctx context.Context, w http.ResponseWriter, resp any) error {
	if m, ok := knowledge.ModeReport(ctx); ok && m.Mode != "" {
		w.Header().Set(HeaderRetrievalMode, m.Mode)
		if m.Model != "" {
			w.Header().Set(HeaderEmbeddingsModel, m.Model)
			if strings.Contains(m.Model, "not-semantic") {
				w.Header().Set(HeaderEmbeddingsSimulated, "true")
			}
		}
	}
	return encodeJSON(http.StatusOK)(ctx, w, resp)
}

func encodeJSON(status int) httptransport.EncodeResponseFunc {
	return func(_ context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.DocumentsResponse:
			out := make([]DocumentJSON, len(r.Documents))
			for i, d := range r.Documents {
				out[i] = DocumentToJSON(d)
			}
			server.WriteJSON(w, status, out)
		case endpoints.DocumentResponse:
			server.WriteJSON(w, status, DocumentToJSON(r.Document))
		case endpoints.PreviewResponse:
			server.WriteJSON(w, status, PreviewJSON{Title: r.Preview.Title, Shared: r.Preview.Shared})
		case endpoints.RemovedResponse:
			w.WriteHeader(http.StatusNoContent)
		case endpoints.PassagesResponse:
			out := make([]PassageJSON, len(r.Passages))
			for i, p := range r.Passages {
				labels := p.Labels
				if labels == nil {
					labels = []string{}
				}
				out[i] = PassageJSON{DocumentID: p.DocumentID, DocumentName: p.DocumentName, Labels: labels, Text: p.Text,
					HeadingPath: p.HeadingPath, Score: p.Score, Relevance: p.Relevance, Relevant: p.Relevant, Start: p.Start,
					End: p.End, URL: p.URL, TokenCount: p.Tokens}
			}
			server.WriteJSON(w, status, out)
		default:
			return errors.New("unexpected response type")
		}
		return nil
	}
}

// ValidationErrorJSON is the body of a 400 validation_failed (and of the 409
// conflict for a taken name, which names the field too).
type ValidationErrorJSON = server.ValidationErrorJSON

// Errors specific to the documents service.
var (
	ErrAgentNotFound    = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: documents.MsgAgentNotFound}
	ErrDocumentNotFound = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: documents.MsgDocumentNotFound}
	ErrCatalogDown      = &server.Error{Status: http.StatusServiceUnavailable, Code: "catalog_unavailable", Message: documents.MsgCatalogDown}
)

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			se *server.Error
			ve *documents.ValidationError
			qe *documents.QueryError
			le *documents.LimitError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.As(err, &qe):
			server.WriteError(w, &server.Error{Status: http.StatusBadRequest, Code: qe.Code, Message: qe.Message})
		case errors.As(err, &le):
			// A count quota (MAX_DOCUMENTS_PER_AGENT): the message states it.
			server.WriteError(w, &server.Error{Status: http.StatusBadRequest, Code: server.CodeLimitReached, Message: le.Error()})
		case errors.As(err, &ve):
			fields := make(map[string]string, len(ve.Fields))
			for _, f := range ve.Fields {
				fields[f.Field] = f.Message
			}
			server.WriteValidationFailed(w, ve.Message(), fields)
		case errors.Is(err, documents.ErrNameTaken):
			server.WriteJSON(w, http.StatusConflict, ValidationErrorJSON{Error: "conflict", Message: documents.MsgNameTaken,
				Fields: map[string]string{"name": documents.MsgNameTaken}})
		case errors.Is(err, documents.ErrAgentNotFound):
			server.WriteError(w, ErrAgentNotFound)
		case errors.Is(err, documents.ErrDocumentNotFound):
			server.WriteError(w, ErrDocumentNotFound)
		case errors.Is(err, documents.ErrCatalogUnavailable):
			logger.WarnContext(ctx, "ownership check failed", "error", err)
			w.Header().Set("Retry-After", "1")
			server.WriteError(w, ErrCatalogDown)
		default:
			server.WriteFailure(ctx, logger, w, err)
		}
	}
}
