// Package transport exposes the identity endpoints over HTTP/JSON (the public
// /api routes) and gRPC (the internal IdentityService).
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/openapi"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Public routes.
const (
	PathOnboarding          = "/api/user/onboarding"
	PathPublicAgentInterest = "/api/user/public-agent-interest"
	PathRevokeSessions      = "/api/user/sessions/revoke"
	PathAccount             = "/api/user/account"
)

// RegisterHTTP adds the /api routes to mux, each behind the platform auth
// middleware (verifier).
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	opts := server.KitOptions(encodeHTTPError(logger))
	protect := auth.Middleware(verifier, logger)
	server.Route(mux, http.MethodPost, PathOnboarding, protect(httptransport.NewServer(
		set.Onboard, decodeOnboardingRequest, encodeUserResponse, opts...)))
	server.Route(mux, http.MethodPost, PathPublicAgentInterest, protect(httptransport.NewServer(
		set.RegisterPublicAgentInterest, decodeInterestRequest, encodeUserResponse, opts...)))
	// The account routes check that the token was not revoked (a token
	// issued before "sign out everywhere" is refused here at once; other
	// routes accept it until it expires, at most an hour).
	fresh := auth.RequireFresh(verifier, logger)
	server.Route(mux, http.MethodPost, PathRevokeSessions, fresh(httptransport.NewServer(
		set.RevokeSessions, decodeAccountRequest, encodeNoContent, opts...)))
	server.Route(mux, http.MethodDelete, PathAccount, fresh(httptransport.NewServer(
		set.DeleteAccount, decodeAccountRequest, encodeNoContent, opts...)))
	// The OpenAPI document of every /api/* route, public (the gateway routes
	// /api/openapi.json here without auth).
	server.Route(mux, http.MethodGet, openapi.Path, openapi.Handler())
}

// UserJSON is the profile as the HTTP API shows it. Unset strings are null.
type UserJSON struct {
	UID                      string    `json:"uid"`
	Email                    *string   `json:"email"`
	DisplayName              *string   `json:"displayName"`
	Username                 *string   `json:"username"`
	Name                     *string   `json:"name"`
	PhotoURL                 *string   `json:"photoURL"`
	InterestedInPublicAgents bool      `json:"interestedInPublicAgents"`
	CreatedAt                time.Time `json:"createdAt"`
}

func strOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ToJSON converts a domain user.
func ToJSON(u users.User) UserJSON {
	return UserJSON{
		UID: u.UID, Email: strOrNull(u.Email), DisplayName: strOrNull(u.DisplayName),
		Username: strOrNull(u.Username), Name: strOrNull(u.Name), PhotoURL: strOrNull(u.PhotoURL),
		InterestedInPublicAgents: u.InterestedInPublicAgents, CreatedAt: u.CreatedAt.UTC(),
	}
}

func decodeOnboardingRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct {
		DisplayName *string `json:"displayName"`
	}
	if err := server.DecodeJSON(nil, r, &body, server.AllowEmpty()); err != nil {
		return nil, err
	}
	return endpoints.OnboardRequest{Claims: c, DisplayName: body.DisplayName}, nil
}

func decodeInterestRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	// The create-agent dialog sends {"idToken": "..."}; it is accepted and
	// ignored (the Authorization header is what counts).
	var body struct {
		IDToken json.RawMessage `json:"idToken"`
	}
	if err := server.DecodeJSON(nil, r, &body, server.AllowEmpty()); err != nil {
		return nil, err
	}
	return endpoints.RegisterInterestRequest{Claims: c}, nil
}

func decodeAccountRequest(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.AccountRequest{Claims: c}, nil
}

func encodeNoContent(_ context.Context, w http.ResponseWriter, _ any) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func encodeUserResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	var u users.User
	switch r := resp.(type) {
	case endpoints.OnboardResponse:
		u = r.User
	case endpoints.UserResponse:
		u = r.User
	default:
		return errors.New("unexpected response type")
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{
		"success": true,
		"data":    map[string]any{"user": ToJSON(u)},
	})
	return nil
}

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			se *server.Error
			ve *users.ValidationError
			ne *users.AccountNotEmptyError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.As(err, &ne):
			server.WriteError(w, &server.Error{Status: http.StatusConflict, Code: server.CodeAccountNotEmpty, Message: ne.Message})
		case errors.Is(err, users.ErrWalletUnavailable):
			logger.WarnContext(ctx, "account deletion: wallet unavailable", "err", err)
			w.Header().Set("Retry-After", "5")
			server.WriteError(w, &server.Error{Status: http.StatusServiceUnavailable, Code: server.CodeWalletUnavailable,
				Message: "Your wallet could not be checked right now. Try again in a moment."})
		case errors.As(err, &ve):
			server.WriteError(w, server.BadRequest("invalid_request", ve.Message))
		case errors.Is(err, users.ErrNotFound):
			server.WriteError(w, server.ErrNotFound)
		default:
			server.WriteFailure(ctx, logger, w, err)
		}
	}
}
