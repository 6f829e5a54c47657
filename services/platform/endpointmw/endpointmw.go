// Package endpointmw holds the go-kit endpoint middleware every service
// wraps its endpoints with: logging, instrumenting (Prometheus) and tracing
// (OpenTelemetry). Services differ only in their name and in how they
// classify an endpoint's error (their own validation / not-found errors),
// which they supply as a Classifier.
package endpointmw

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Outcomes an endpoint call is classified as (the "outcome" log attribute
// and metric label).
const (
	OutcomeSuccess     = "success"      // no error
	OutcomeClientError = "client_error" // the caller's fault: validation, not found, bad input
	OutcomeCanceled    = "canceled"     // the caller went away
	OutcomeUnavailable = "unavailable"  // a dependency could not answer (logged at warn, span marked as error)
	OutcomeError       = "error"        // our fault (logged at error, span marked as error)
)

// Classifier maps an endpoint's error (nil for success) to an outcome.
type Classifier func(error) string

// Default builds a Classifier: nil is "success"; then each of own is asked
// in turn and the first non-empty answer wins (a service's own error types);
// then a *server.Error with a status below 500 is "client_error",
// context.Canceled is "canceled" and anything else is "error".
func Default(own ...Classifier) Classifier {
	return func(err error) string {
		if err == nil {
			return OutcomeSuccess
		}
		for _, c := range own {
			if o := c(err); o != "" {
				return o
			}
		}
		var se *server.Error
		switch {
		case errors.As(err, &se) && se.Status < 500:
			return OutcomeClientError
		case errors.Is(err, context.Canceled):
			return OutcomeCanceled
		default:
			return OutcomeError
		}
	}
}

// ClientErrors returns a Classifier (for Default) that reports
// "client_error" when is(err) holds and has no opinion otherwise.
func ClientErrors(is func(error) bool) Classifier {
	return func(err error) string {
		if is(err) {
			return OutcomeClientError
		}
		return ""
	}
}

// failed reports whether an outcome is a failure of ours (or of a
// dependency): the ones that mark the span as an error.
func failed(outcome string) bool {
	return outcome == OutcomeError || outcome == OutcomeUnavailable
}

func level(outcome string) slog.Level {
	switch outcome {
	case OutcomeError:
		return slog.LevelError
	case OutcomeUnavailable:
		return slog.LevelWarn
	default:
		return slog.LevelDebug
	}
}

// MethodMiddleware builds an endpoint middleware for a named method.
type MethodMiddleware func(method string) endpoint.Middleware

// Middlewares returns tracing, instrumenting and logging middleware for
// service, outermost first.
func Middlewares(service string, logger *slog.Logger, reg prometheus.Registerer, classify Classifier) []MethodMiddleware {
	return []MethodMiddleware{Tracing(service, classify), Instrumenting(service, reg, classify), Logging(logger, classify)}
}

// Chain returns a function that wraps a named endpoint in Middlewares
// (tracing outermost, then instrumenting, then logging). logger may be nil
// (slog.Default()), reg may be nil (no metrics registered).
func Chain(service string, logger *slog.Logger, reg prometheus.Registerer, classify Classifier) func(method string, e endpoint.Endpoint) endpoint.Endpoint {
	mw := Middlewares(service, logger, reg, classify)
	return func(method string, e endpoint.Endpoint) endpoint.Endpoint {
		for i := len(mw) - 1; i >= 0; i-- {
			e = mw[i](method)(e)
		}
		return e
	}
}

// Logging logs every call ("endpoint call") with method, outcome,
// duration_ms, the caller's uid (when authenticated) and the error: at error
// level for "error", warn for "unavailable", debug otherwise. logger may be
// nil (slog.Default()).
func Logging(logger *slog.Logger, classify Classifier) MethodMiddleware {
	if logger == nil {
		logger = slog.Default()
	}
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (resp any, err error) {
				start := time.Now()
				defer func() {
					outcome := classify(err)
					attrs := []any{"method", method, "outcome", outcome, "duration_ms", time.Since(start).Milliseconds()}
					if c, ok := auth.FromContext(ctx); ok {
						attrs = append(attrs, "uid", c.UID)
					}
					if err != nil {
						attrs = append(attrs, "error", err.Error())
					}
					logger.Log(ctx, level(outcome), "endpoint call", attrs...)
				}()
				return next(ctx, req)
			}
		}
	}
}

// Instrumenting records <service>_requests_total and
// <service>_request_duration_seconds by method and outcome. reg may be nil;
// registering the same service twice on one registry reuses the collectors.
func Instrumenting(service string, reg prometheus.Registerer, classify Classifier) MethodMiddleware {
	title := strings.ToUpper(service[:1]) + service[1:]
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: service + "_requests_total", Help: title + " service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: service + "_request_duration_seconds", Help: title + " service call latency by method and outcome.",
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
				o := classify(err)
				count.WithLabelValues(method, o).Inc()
				latency.WithLabelValues(method, o).Observe(time.Since(start).Seconds())
				return resp, err
			}
		}
	}
}

// Tracing wraps each call in an internal OpenTelemetry span named
// <service>.<Method> (tracer github.com/agentic-app/agentic/services/<service>).
// The error is recorded and the span status set to Error only for the
// "error" and "unavailable" outcomes, not for the caller's mistakes.
func Tracing(service string, classify Classifier) MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/" + service)
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, service+"."+method, trace.WithSpanKind(trace.SpanKindInternal))
				defer span.End()
				resp, err := next(ctx, req)
				if err != nil && failed(classify(err)) {
					span.RecordError(err)
					span.SetStatus(codes.Error, err.Error())
				}
				return resp, err
			}
		}
	}
}
