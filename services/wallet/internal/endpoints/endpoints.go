// Package endpoints adapts the wallet.Service to go-kit endpoints and wraps
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

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Set holds one endpoint per service method.
type Set struct {
	Balance               endpoint.Endpoint
	Transactions          endpoint.Endpoint
	CreateCheckoutSession endpoint.Endpoint
	StripeWebhook         endpoint.Endpoint
	Charge                endpoint.Endpoint
	Credit                endpoint.Endpoint
	GetBalance            endpoint.Endpoint
}

// Requests and responses.
type (
	BalanceRequest      struct{ UID string }
	BalanceResponse     struct{ BalanceMicros int64 }
	TransactionsRequest struct {
		UID   string
		Query wallet.PageQuery
	}
	TransactionsResponse struct{ Page wallet.Page }
	CheckoutRequest      struct{ Request wallet.CheckoutRequest }
	CheckoutResponse     struct{ Result wallet.CheckoutResult }
	WebhookRequest       struct {
		Payload   []byte
		Signature string
	}
	WebhookResponse  struct{ Result wallet.WebhookResult }
	TransferRequest  struct{ Request wallet.TransferRequest }
	TransferResponse struct{ Result wallet.PostResult }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc wallet.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
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
		Balance: wrap("Balance", func(ctx context.Context, req any) (any, error) {
			b, err := svc.Balance(ctx, req.(BalanceRequest).UID)
			if err != nil {
				return nil, err
			}
			return BalanceResponse{BalanceMicros: b}, nil
		}),
		Transactions: wrap("Transactions", func(ctx context.Context, req any) (any, error) {
			r := req.(TransactionsRequest)
			p, err := svc.Transactions(ctx, r.UID, r.Query)
			if err != nil {
				return nil, err
			}
			return TransactionsResponse{Page: p}, nil
		}),
		CreateCheckoutSession: wrap("CreateCheckoutSession", func(ctx context.Context, req any) (any, error) {
			res, err := svc.CreateCheckoutSession(ctx, req.(CheckoutRequest).Request)
			if err != nil {
				return nil, err
			}
			return CheckoutResponse{Result: res}, nil
		}),
		StripeWebhook: wrap("StripeWebhook", func(ctx context.Context, req any) (any, error) {
			r := req.(WebhookRequest)
			res, err := svc.HandleStripeWebhook(ctx, r.Payload, r.Signature)
			if err != nil {
				return nil, err
			}
			return WebhookResponse{Result: res}, nil
		}),
		Charge: wrap("Charge", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Charge(ctx, req.(TransferRequest).Request)
			if err != nil {
				return nil, err
			}
			return TransferResponse{Result: res}, nil
		}),
		Credit: wrap("Credit", func(ctx context.Context, req any) (any, error) {
			res, err := svc.Credit(ctx, req.(TransferRequest).Request)
			if err != nil {
				return nil, err
			}
			return TransferResponse{Result: res}, nil
		}),
		GetBalance: wrap("GetBalance", func(ctx context.Context, req any) (any, error) {
			b, err := svc.GetBalance(ctx, req.(BalanceRequest).UID)
			if err != nil {
				return nil, err
			}
			return BalanceResponse{BalanceMicros: b}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, bad input) or "error".
func Outcome(err error) string {
	var se *server.Error
	switch {
	case err == nil:
		return "success"
	case wallet.IsClientError(err):
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

// Instrumenting records wallet_requests_total and
// wallet_request_duration_seconds by method and outcome. reg may be nil.
func Instrumenting(reg prometheus.Registerer) MethodMiddleware {
	count := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wallet_requests_total", Help: "Wallet service calls by method and outcome.",
	}, []string{"method", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "wallet_request_duration_seconds", Help: "Wallet service call latency by method and outcome.",
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

// Tracing wraps each call in an OpenTelemetry span named wallet.<Method>.
func Tracing() MethodMiddleware {
	tracer := otel.Tracer("github.com/agentic-app/agentic/services/wallet")
	return func(method string) endpoint.Middleware {
		return func(next endpoint.Endpoint) endpoint.Endpoint {
			return func(ctx context.Context, req any) (any, error) {
				ctx, span := tracer.Start(ctx, "wallet."+method, trace.WithSpanKind(trace.SpanKindInternal))
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
