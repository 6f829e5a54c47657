// Package endpoints adapts the documents.Service to go-kit endpoints and
// wraps them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
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
	mw := Middlewares(logger, reg)
	wrap := func(method string, e endpoint.Endpoint) endpoint.Endpoint {
		for i := len(mw) - 1; i >= 0; i-- {
			e = mw[i](method)(e)
		}
		return e
	}
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
// "unavailable" (the catalog could not check ownership) or "error".
func Outcome(err error) string {
	var ve *documents.ValidationError
	var se *server.Error
	switch {
	case err == nil:
		return "success"
	case errors.As(err, &ve), errors.Is(err, documents.ErrAgentNotFound), errors.Is(err, documents.ErrDocumentNotFound),
		errors.Is(err, documents.ErrNameTaken):
		return "client_error"
	case errors.Is(err, documents.ErrCatalogUnavailable):
		return "unavailable"
	case errors.As(err, &se) && se.Status < 500:
		return "client_error"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "error"
	}
}

// MethodMiddleware builds an endpoint middleware for a named method.
type MethodMiddleware func(method string) endpoint.Middleware

// Middlewares returns tracing, instrumenting and logging middleware, outermost first.
func Middlewares(logger *slog.Logger, reg prometheus.Registerer) []MethodMiddleware {
	return []MethodMiddleware{Tracing(), Instrumenting(reg), Logging(logger)}
}

// Logging logs every call with its duration and outcome; failures that are
// our fault at error level.
func Logging(logger *slog.Logger) MethodMiddleware {
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (resp any, err error) {
				start := time.Now()
				defer func() {
					outcome := Outcome(err)
					attrs := []any{"method", method, "outcome", outcome, "duration_ms", time.Since(start).Milliseconds()}
					if c, ok := auth.FromContext(ctx); ok {
						attrs = append(attrs, "uid", c.UID)
					}
					if err != nil {
						attrs = append(attrs, "error", err.Error())
					}
					level := slog.LevelDebug
					switch outcome {
					case "error":
						level = slog.LevelError
					case "unavailable":
						level = slog.LevelWarn
					}
					logger.Log(ctx, level, "endpoint call", attrs...)
				}()
				return next(ctx, req)
			}
		}
	}
}

// Instrumenting records documents_requests_total and
// documents_request_duration_seconds by method and outcome. reg may be nil.
func Instrumenting(reg prometheus.Registerer) MethodMiddleware {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_requests_total", Help: "Documents service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "documents_request_duration_seconds", Help: "Documents service call latency by method and outcome.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "outcome"})
	if reg != nil {
		count = observability.Register(reg, count)
		latency = observability.Register(reg, latency)
	}
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				start := time.Now()
				resp, err := next(ctx, req)
				o := Outcome(err)
				count.WithLabelValues(method, o).Inc()
				latency.WithLabelValues(method, o).Observe(time.Since(start).Seconds())
				return resp, err
			}
		}
	}
}

// Tracing wraps each call in an OpenTelemetry span named documents.<Method>.
func Tracing() MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/documents")
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, "documents."+method, trace.WithSpanKind(trace.SpanKindInternal))
				defer span.End()
				resp, err := next(ctx, req)
				if o := Outcome(err); o == "error" || o == "unavailable" {
					span.RecordError(err)
					span.SetStatus(codes.Error, err.Error())
				}
				return resp, err
			}
		}
	}
}
