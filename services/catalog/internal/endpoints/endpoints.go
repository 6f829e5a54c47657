// Package endpoints adapts the agents.Service to go-kit endpoints and wraps
// them with logging, instrumenting and tracing middleware.
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

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Set holds one endpoint per service method.
type Set struct {
	ListAgents       endpoint.Endpoint
	CreateAgent      endpoint.Endpoint
	GetAgent         endpoint.Endpoint
	UpdateAgent      endpoint.Endpoint
	ListSubscribers  endpoint.Endpoint
	InviteSubscriber endpoint.Endpoint
	RemoveSubscriber endpoint.Endpoint
	FindAgent        endpoint.Endpoint
	CheckOwnership   endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller (HTTP routes).
type (
	ListAgentsRequest  struct{ Claims auth.Claims }
	CreateAgentRequest struct {
		Claims auth.Claims
		Input  agents.CreateInput
	}
	AgentRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	UpdateAgentRequest struct {
		Claims  auth.Claims
		AgentID string
		Input   agents.UpdateInput
	}
	InviteSubscriberRequest struct {
		Claims  auth.Claims
		AgentID string
		Email   string
	}
	RemoveSubscriberRequest struct {
		Claims       auth.Claims
		AgentID      string
		SubscriberID string
	}
	FindAgentRequest      struct{ AgentID string }
	CheckOwnershipRequest struct{ AgentID, UID string }

	AgentsResponse         struct{ Agents []agents.Agent }
	AgentResponse          struct{ Agent agents.Agent }
	SubscribersResponse    struct{ Subscribers []agents.Subscriber }
	SubscriberResponse     struct{ Subscriber agents.Subscriber }
	RemovedResponse        struct{}
	CheckOwnershipResponse struct{ Owned, Exists bool }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc agents.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
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
		ListAgents: wrap("ListAgents", func(ctx context.Context, req any) (any, error) {
			as, err := svc.ListAgents(ctx, req.(ListAgentsRequest).Claims.UID)
			if err != nil {
				return nil, err
			}
			return AgentsResponse{Agents: as}, nil
		}),
		CreateAgent: wrap("CreateAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(CreateAgentRequest)
			a, err := svc.CreateAgent(ctx, r.Claims.UID, r.Input)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		GetAgent: wrap("GetAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(AgentRequest)
			a, err := svc.GetAgent(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		UpdateAgent: wrap("UpdateAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(UpdateAgentRequest)
			a, err := svc.UpdateAgent(ctx, r.Claims.UID, r.AgentID, r.Input)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		ListSubscribers: wrap("ListSubscribers", func(ctx context.Context, req any) (any, error) {
			r := req.(AgentRequest)
			subs, err := svc.ListSubscribers(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return SubscribersResponse{Subscribers: subs}, nil
		}),
		InviteSubscriber: wrap("InviteSubscriber", func(ctx context.Context, req any) (any, error) {
			r := req.(InviteSubscriberRequest)
			sub, err := svc.InviteSubscriber(ctx, r.Claims.UID, r.Claims.Email, r.AgentID, r.Email)
			if err != nil {
				return nil, err
			}
			return SubscriberResponse{Subscriber: sub}, nil
		}),
		RemoveSubscriber: wrap("RemoveSubscriber", func(ctx context.Context, req any) (any, error) {
			r := req.(RemoveSubscriberRequest)
			if err := svc.RemoveSubscriber(ctx, r.Claims.UID, r.AgentID, r.SubscriberID); err != nil {
				return nil, err
			}
			return RemovedResponse{}, nil
		}),
		FindAgent: wrap("FindAgent", func(ctx context.Context, req any) (any, error) {
			a, err := svc.FindAgent(ctx, req.(FindAgentRequest).AgentID)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		CheckOwnership: wrap("CheckOwnership", func(ctx context.Context, req any) (any, error) {
			r := req.(CheckOwnershipRequest)
			owned, exists, err := svc.CheckOwnership(ctx, r.AgentID, r.UID)
			if err != nil {
				return nil, err
			}
			return CheckOwnershipResponse{Owned: owned, Exists: exists}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, bad input) or "error".
func Outcome(err error) string {
	var ve *agents.ValidationError
	var se *server.Error
	switch {
	case err == nil:
		return "success"
	case errors.As(err, &ve), errors.Is(err, agents.ErrNotFound), errors.Is(err, agents.ErrSubscriberNotFound), errors.Is(err, agents.ErrAlreadyInvited):
		return "client_error"
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
					if outcome == "error" {
						level = slog.LevelError
					}
					logger.Log(ctx, level, "endpoint call", attrs...)
				}()
				return next(ctx, req)
			}
		}
	}
}

// Instrumenting records catalog_requests_total and
// catalog_request_duration_seconds by method and outcome. reg may be nil.
func Instrumenting(reg prometheus.Registerer) MethodMiddleware {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "catalog_requests_total", Help: "Catalog service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "catalog_request_duration_seconds", Help: "Catalog service call latency by method and outcome.",
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

// Tracing wraps each call in an OpenTelemetry span named catalog.<Method>.
func Tracing() MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/catalog")
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, "catalog."+method, trace.WithSpanKind(trace.SpanKindInternal))
				defer span.End()
				resp, err := next(ctx, req)
				if err != nil && Outcome(err) == "error" {
					span.RecordError(err)
					span.SetStatus(codes.Error, err.Error())
				}
				return resp, err
			}
		}
	}
}
