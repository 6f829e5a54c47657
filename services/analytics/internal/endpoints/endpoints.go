// Package endpoints adapts the readmodel.Service to go-kit endpoints and wraps
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

	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Set holds one endpoint per service method.
type Set struct {
	Activities endpoint.Endpoint
	Stats      endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller.
type (
	ActivitiesRequest struct {
		Claims auth.Claims
		Limit  int
	}
	StatsRequest       struct{ Claims auth.Claims }
	ActivitiesResponse struct{ Activities []readmodel.Activity }
	StatsResponse      struct{ Stats readmodel.Stats }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc readmodel.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	mw := []MethodMiddleware{Tracing(), Instrumenting(reg), Logging(logger)}
	wrap := func(method string, e endpoint.Endpoint) endpoint.Endpoint {
		for i := len(mw) - 1; i >= 0; i-- {
			e = mw[i](method)(e)
		}
		return e
	}
	return Set{
		Activities: wrap("Activities", func(ctx context.Context, req any) (any, error) {
			r := req.(ActivitiesRequest)
			as, err := svc.Activities(ctx, r.Claims.UID, r.Limit)
			if err != nil {
				return nil, err
			}
			return ActivitiesResponse{Activities: as}, nil
		}),
		Stats: wrap("Stats", func(ctx context.Context, req any) (any, error) {
			s, err := svc.Stats(ctx, req.(StatsRequest).Claims.UID)
			if err != nil {
				return nil, err
			}
			return StatsResponse{Stats: s}, nil
		}),
	}
}

// Outcome classifies an error for metrics and logs.
func Outcome(err error) string {
	var se *server.Error
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, readmodel.ErrInvalidLimit):
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

// Instrumenting records analytics_requests_total and
// analytics_request_duration_seconds by method and outcome. reg may be nil.
func Instrumenting(reg prometheus.Registerer) MethodMiddleware {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "analytics_requests_total", Help: "Analytics service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "analytics_request_duration_seconds", Help: "Analytics service call latency by method and outcome.",
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

// Tracing wraps each call in an OpenTelemetry span named analytics.<Method>.
func Tracing() MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/analytics")
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, "analytics."+method, trace.WithSpanKind(trace.SpanKindInternal))
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
