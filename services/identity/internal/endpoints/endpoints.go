// Package endpoints adapts the users.Service to go-kit endpoints and wraps
// them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	Onboard                     endpoint.Endpoint
	RegisterPublicAgentInterest endpoint.Endpoint
	GetUser                     endpoint.Endpoint
	GetUsers                    endpoint.Endpoint
	FindUsersByEmail            endpoint.Endpoint
	RevokeSessions              endpoint.Endpoint
	DeleteAccount               endpoint.Endpoint
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
	// AccountRequest is the caller of an account route (sign out
	// everywhere, delete the account).
	AccountRequest struct{ Claims auth.Claims }
	// EmptyResponse is a success without a body (204).
	EmptyResponse struct{}
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc users.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("identity", logger, reg, Outcome)
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
		RevokeSessions: wrap("RevokeSessions", func(ctx context.Context, req any) (any, error) {
			if err := svc.RevokeSessions(ctx, req.(AccountRequest).Claims.UID); err != nil {
				return nil, err
			}
			return EmptyResponse{}, nil
		}),
		DeleteAccount: wrap("DeleteAccount", func(ctx context.Context, req any) (any, error) {
			if err := svc.DeleteAccount(ctx, req.(AccountRequest).Claims); err != nil {
				return nil, err
			}
			return EmptyResponse{}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, bad input), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	var (
		ve *users.ValidationError
		ne *users.AccountNotEmptyError
	)
	if errors.As(err, &ve) || errors.As(err, &ne) || errors.Is(err, users.ErrNotFound) {
		return endpointmw.OutcomeClientError
	}
	return ""
})
