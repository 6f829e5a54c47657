// Package endpoints adapts the readmodel.Service to go-kit endpoints and wraps
// them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	Activities endpoint.Endpoint
	Stats      endpoint.Endpoint
	Usage      endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller.
type (
	ActivitiesRequest struct {
		Claims auth.Claims
		Limit  int
	}
	StatsRequest struct{ Claims auth.Claims }
	UsageRequest struct {
		Claims auth.Claims
		Query  readmodel.UsageRequest
	}
	UsageResponse      struct{ Usage readmodel.Usage }
	ActivitiesResponse struct{ Activities []readmodel.Activity }
	StatsResponse      struct{ Stats readmodel.Stats }
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc readmodel.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("analytics", logger, reg, Outcome)
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
		Usage: wrap("Usage", func(ctx context.Context, req any) (any, error) {
			r := req.(UsageRequest)
			u, err := svc.Usage(ctx, r.Claims.UID, r.Query)
			if err != nil {
				return nil, err
			}
			return UsageResponse{Usage: u}, nil
		}),
	}
}

// Outcome classifies an endpoint result for metrics and logs: "success",
// "client_error" (e.g. an invalid limit or usage range), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(endpointmw.ClientErrors(func(err error) bool {
	var ue *readmodel.UsageError
	return errors.Is(err, readmodel.ErrInvalidLimit) || errors.As(err, &ue)
}))
