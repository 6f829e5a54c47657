package server

import (
	"context"
	"net/http"

	kittransport "github.com/go-kit/kit/transport"
	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/platform/auth"
)

// ValidationErrorJSON is the body of an error that names the offending
// fields: {"error","message","fields":{"<json name>":"<message>"}} (e.g. a
// 400 validation_failed).
type ValidationErrorJSON struct {
	Error   string            `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
}

// WriteValidationFailed writes 400 {"error":"validation_failed","message":
// message,"fields":fields}.
func WriteValidationFailed(w http.ResponseWriter, message string, fields map[string]string) {
	WriteJSON(w, http.StatusBadRequest, ValidationErrorJSON{Error: CodeValidationFailed, Message: message, Fields: fields})
}

// ClaimsFrom returns the verified caller that the auth middleware put in
// ctx, or a 401 unauthenticated *Error when there is none (only reachable if
// a route is mounted without the auth middleware).
func ClaimsFrom(ctx context.Context) (auth.Claims, error) {
	c, ok := auth.FromContext(ctx)
	if !ok || c.UID == "" {
		return auth.Claims{}, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: auth.MessageUnauthenticated}
	}
	return c, nil
}

// KitOptions returns the go-kit HTTP server options the services share:
// errors are written by enc, and go-kit's own error handler stays silent
// (the error encoder and the endpoint middleware log failures).
func KitOptions(enc httptransport.ErrorEncoder) []httptransport.ServerOption {
	return []httptransport.ServerOption{
		httptransport.ServerErrorEncoder(enc),
		httptransport.ServerErrorHandler(kittransport.ErrorHandlerFunc(func(context.Context, error) {})),
	}
}
