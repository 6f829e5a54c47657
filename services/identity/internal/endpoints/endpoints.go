// Package endpoints adapts the users.Service to go-kit endpoints and wraps
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

	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Set holds one endpoint per service method.
type Set struct {
	Onboard                     endpoint.Endpoint
	RegisterPublicAgentInterest endpoint.Endpoint
	GetUser                     endpoint.Endpoint
	GetUsers                    endpoint.Endpoint
	FindUsersByEmail            endpoint.Endpoint
}

// Requests and responses.
type (
	OnboardRequest struct {
		Claims      auth.Claims
		DisplayName *string
	}
	OnboardResponse struct {
		User    users.User
		Created bool
	}
	RegisterInterestRequest struct{ Claims auth.Claims }
	UserResponse            struct{ User users.User }
	GetUserRequest          struct{ UID string }
	GetUsersRequest         struct{ UIDs []string }
	FindUsersByEmailRequest struct{ Emails []string }
	UsersResponse           struct{ Users []users.User }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc users.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
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
		Onboard: wrap("Onboard", func(ctx context.Context, req any) (any, error) {
			r := req.(OnboardRequest)
			u, created, err := svc.Onboard(ctx, r.Claims, r.DisplayName)
			if err != nil {
				return nil, err
			}
			return OnboardResponse{User: u, Created: created}, nil
		}),
		RegisterPublicAgentInterest: wrap("RegisterPublicAgentInterest", func(ctx context.Context, req any) (any, error) {
			u, err := svc.RegisterPublicAgentInterest(ctx, req.(RegisterInterestRequest).Claims)
			if err != nil {
				return nil, err
			}
			return UserResponse{User: u}, nil
		}),
		GetUser: wrap("GetUser", func(ctx context.Context, req any) (any, error) {
			u, err := svc.GetUser(ctx, req.(GetUserRequest).UID)
			if err != nil {
				return nil, err
			}
			return UserResponse{User: u}, nil
		}),
		GetUsers: wrap("GetUsers", func(ctx context.Context, req any) (any, error) {
			us, err := svc.GetUsers(ctx, req.(GetUsersRequest).UIDs)
			if err != nil {
				return nil, err
			}
			return UsersResponse{Users: us}, nil
		}),
		FindUsersByEmail: wrap("FindUsersByEmail", func(ctx context.Context, req any) (any, error) {
			us, err := svc.FindUsersByEmail(ctx, req.(FindUsersByEmailRequest).Emails)
			if err != nil {
				return nil, err
			}
			return UsersResponse{Users: us}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, bad input) or "error".
func Outcome(err error) string {
	var ve *users.ValidationError
	var se *server.Error
	switch {
	case err == nil:
		return "success"
	case errors.As(err, &ve), errors.Is(err, users.ErrNotFound):
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

// Instrumenting records identity_requests_total and
// identity_request_duration_seconds by method and outcome. reg may be nil.
func Instrumenting(reg prometheus.Registerer) MethodMiddleware {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "identity_requests_total", Help: "Identity service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "identity_request_duration_seconds", Help: "Identity service call latency by method and outcome.",
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

// Tracing wraps each call in an OpenTelemetry span named identity.<Method>.
func Tracing() MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/identity")
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, "identity."+method, trace.WithSpanKind(trace.SpanKindInternal))
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
