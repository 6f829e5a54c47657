package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
)

// Messages of the 401 responses (the spec's texts).
const (
	MessageUnauthenticated = "Authentication token not available. User must be logged in."
	MessageInvalidToken    = "Invalid or expired authentication token."
)

// Middleware returns HTTP middleware that requires "Authorization: Bearer <ID token>".
//
//   - missing header or not a Bearer token → 401 {"error":"unauthenticated",...}
//   - token rejected by the verifier → 401 {"error":"invalid_token",...}
//   - verifier unable to verify (e.g. the emulator is down) → 503 {"error":"auth_unavailable",...}
//   - the client gone while the token was checked → 499 {"error":"client_closed_request",...}, not logged
//
// On success the Claims are available to the wrapped handler via FromContext.
// With CheckRevoked the token is also checked for revocation (see
// RequireFresh).
func Middleware(v Verifier, logger *slog.Logger, opts ...MiddlewareOption) func(http.Handler) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	var o middlewareOptions
	for _, opt := range opts {
		opt(&o)
	}
	verify := v.VerifyIDToken
	if o.checkRevoked {
		verify = func(ctx context.Context, raw string) (Claims, error) { return VerifyFresh(ctx, v, raw) }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			raw, ok := BearerToken(r)
			if !ok {
				writeError(w, http.StatusUnauthorized, "unauthenticated", MessageUnauthenticated)
				return
			}
			claims, err := verify(r.Context(), raw)
			if err != nil {
				if errors.Is(err, ErrInvalidToken) {
					logger.DebugContext(r.Context(), "rejected id token", "error", err)
					writeError(w, http.StatusUnauthorized, "invalid_token", MessageInvalidToken)
					return
				}
				if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
					// The client left while its token was being checked: nobody
					// reads this, and it is not the auth service failing
					// (server.ClientGone, the same 499 as the services write).
					writeError(w, statusClientClosedRequest, "client_closed_request", "The client closed the request.")
					return
				}
				logger.ErrorContext(r.Context(), "id token verification failed", "error", err)
				writeError(w, http.StatusServiceUnavailable, "auth_unavailable", "Authentication service unavailable")
				return
			}
			next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), claims)))
		})
	}
}

// MiddlewareOption configures Middleware.
type MiddlewareOption func(*middlewareOptions)

type middlewareOptions struct{ checkRevoked bool }

// CheckRevoked makes Middleware verify tokens with VerifyFresh: a token
// issued before its user's refresh tokens were revoked, or of a disabled or
// deleted user, is refused with 401 invalid_token even though it has not
// expired. It costs a lookup at Firebase (briefly cached by CachingVerifier),
// so it is meant for sensitive routes: money, sharing, keys and deletion.
func CheckRevoked() MiddlewareOption {
	return func(o *middlewareOptions) { o.checkRevoked = true }
}

// RequireFresh is Middleware(v, logger, CheckRevoked()): the middleware of
// sensitive routes.
func RequireFresh(v Verifier, logger *slog.Logger) func(http.Handler) http.Handler {
	return Middleware(v, logger, CheckRevoked())
}

// BearerToken extracts the token of an "Authorization: Bearer <token>" header.
// The scheme is matched case-insensitively; an empty token counts as missing.
func BearerToken(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// statusClientClosedRequest is server.StatusClientClosedRequest (nginx's
// 499); server imports this package, so the constant cannot come from there.
const statusClientClosedRequest = 499

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentic"`)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}
