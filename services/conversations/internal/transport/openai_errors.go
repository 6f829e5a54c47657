package transport

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/server"
)

// OpenAI error types.
const (
	typeInvalidRequest = "invalid_request_error"
	typeAuthentication = "authentication_error"
	typeQuota          = "insufficient_quota"
	typePermission     = "permission_error"
	typeRateLimit      = "rate_limit_error"
	typeServer         = "server_error"
)

// APIError is an error in OpenAI's shape:
// {"error":{"message","type","param","code"}}, with its status and an
// optional Retry-After.
type APIError struct {
	Status     int
	Message    string
	Type       string
	Param      string
	Code       string
	RetryAfter time.Duration
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func badParam(param, code, msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Type: typeInvalidRequest, Param: param, Code: code, Message: msg}
}

// unsupportedParam refuses a parameter the agent API cannot honour, before
// anything is reserved: it is never silently ignored (and charged).
func unsupportedParam(param, msg string) *APIError {
	return badParam(param, "unsupported_parameter", msg)
}

// API errors.
var (
	errMissingKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "Missing API key: send the agent's API key as \"Authorization: Bearer agk_…\"."}
	errNotAKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "This endpoint takes an agent API key (agk_…), created in the agent's API tab; sign-in tokens are not accepted."}
	errInvalidKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
		Message: "Invalid API key: it does not exist or was revoked."}
	errExpiredKey = &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "expired_api_key",
		Message: "This API key has expired."}
	errInternalAPI = &APIError{Status: http.StatusInternalServerError, Type: typeServer, Code: "internal", Message: "Internal server error"}
	// errClientClosed is written when the caller went away (server.ClientGone):
	// nobody reads it; the request log and metrics record a 499, not a 500.
	errClientClosed = &APIError{Status: server.StatusClientClosedRequest, Type: typeInvalidRequest,
		Code: server.CodeClientClosedRequest, Message: "The client closed the request."}
	errModelNotFound = &APIError{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: "model", Code: "model_not_found",
		Message: "The model does not exist or this API key cannot use it. Use the key's agent: GET /api/v1/models lists it."}
)

// errUnknownURL answers a path under /api/v1 that is no route, as OpenAI
// does ("Invalid URL"), so that every SDK raises its typed NotFound error.
func errUnknownURL(r *http.Request) *APIError {
	return &APIError{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "unknown_url",
		Message: fmt.Sprintf("Invalid URL (%s %s).", r.Method, r.URL.Path)}
}

// errMethodNotAllowed answers a known path with another method.
func errMethodNotAllowed(r *http.Request) *APIError {
	return &APIError{Status: http.StatusMethodNotAllowed, Type: typeInvalidRequest, Code: "method_not_allowed",
		Message: fmt.Sprintf("The method %s is not allowed for %s.", r.Method, r.URL.Path)}
}

// writeAPIError writes e as OpenAI's error body.
func writeAPIError(w http.ResponseWriter, e *APIError) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", retryAfter(e.RetryAfter))
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentic-agent-api"`)
	}
	server.WriteJSON(w, e.Status, apiErrorBody(e))
}

type apiErrorJSON struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

func apiErrorBody(e *APIError) apiErrorJSON {
	var b apiErrorJSON
	b.Error.Message, b.Error.Type, b.Error.Code = e.Message, e.Type, e.Code
	if e.Param != "" {
		p := e.Param
		b.Error.Param = &p
	}
	return b
}

// apiErrorOf maps a service error to the API's error, or nil for an
// unexpected error (500, logged by the caller).
func apiErrorOf(err error) *APIError {
	var (
		ae *APIError
		se *server.Error
		ve *conversations.ValidationError
		rl *conversations.RateLimitedError
		in *conversations.InsufficientFundsError
		kl *conversations.KeyLimitError
		sc *conversations.SubscriberCapError
		au *conversations.AgentUnavailableError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ve):
		switch ve.Code {
		case "invalid_content":
			return badParam("messages", "invalid_value", "The last user message must be 1 to 8,000 characters.")
		case "invalid_idempotency_key":
			return badParam("Idempotency-Key", "invalid_value", ve.Message)
		}
		return badParam("", ve.Code, ve.Message)
	case errors.Is(err, conversations.ErrTooLong):
		return badParam("messages", "context_length_exceeded",
			"The agent's instructions, your system messages and the last user message are too long for the model's context window.")
	case errors.Is(err, conversations.ErrAPIKeyInvalid):
		return errInvalidKey
	case errors.Is(err, conversations.ErrAPIKeyExpired):
		return errExpiredKey
	case errors.Is(err, conversations.ErrAPIKeyOwnerDisabled):
		return &APIError{Status: http.StatusUnauthorized, Type: typeAuthentication, Code: "invalid_api_key",
			Message: "This API key's owner account is disabled."}
	case errors.Is(err, conversations.ErrAgentNotFound), errors.Is(err, conversations.ErrConversationNotFound):
		return errModelNotFound
	case errors.Is(err, conversations.ErrIdempotencyMismatch):
		return &APIError{Status: http.StatusUnprocessableEntity, Type: typeInvalidRequest, Param: "Idempotency-Key", Code: "idempotency_key_mismatch",
			Message: "This Idempotency-Key was already used with a different request. Use a new key for a new request."}
	case errors.Is(err, conversations.ErrResponseNotFound):
		return &APIError{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "response_not_found",
			Message: "No stored response with this id for this API key's agent."}
	case errors.Is(err, conversations.ErrPreviousResponseNotFound):
		return &APIError{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: "previous_response_id", Code: "previous_response_not_found",
			Message: "previous_response_id names no stored response of this API key's agent."}
	case errors.As(err, &rl):
		return &APIError{Status: http.StatusTooManyRequests, Type: typeRateLimit, Code: "rate_limit_exceeded",
			Message: "Rate limit reached for this API key or its owner. Retry after the number of seconds in Retry-After.", RetryAfter: rl.RetryAfter}
	case errors.As(err, &in):
		return &APIError{Status: http.StatusPaymentRequired, Type: typeQuota, Code: in.Reason, Message: in.Message()}
	case errors.As(err, &kl):
		return &APIError{Status: http.StatusPaymentRequired, Type: typeQuota, Code: "key_limit_reached", Message: kl.Message()}
	case errors.As(err, &sc):
		return &APIError{Status: http.StatusForbidden, Type: typePermission, Code: "agent_unavailable", Message: sc.Message()}
	case errors.As(err, &au):
		return &APIError{Status: http.StatusForbidden, Type: typePermission, Code: "agent_unavailable", Message: au.Message()}
	case errors.Is(err, conversations.ErrInProgress):
		return &APIError{Status: http.StatusConflict, Type: typeInvalidRequest, Param: "Idempotency-Key", Code: "request_in_progress",
			Message: "A request with this Idempotency-Key is still being answered.", RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrModelUnavailable):
		return &APIError{Status: http.StatusBadGateway, Type: typeServer, Code: "model_unavailable", Message: conversations.MsgModelUnavailable}
	case errors.Is(err, conversations.ErrCatalogUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "catalog_unavailable", Message: conversations.MsgCatalogDown, RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrWalletUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "wallet_unavailable", Message: conversations.MsgWalletDown, RetryAfter: time.Second}
	case errors.Is(err, conversations.ErrKnowledgeUnavailable):
		return &APIError{Status: http.StatusServiceUnavailable, Type: typeServer, Code: "knowledge_unavailable", Message: conversations.MsgKnowledgeDown, RetryAfter: time.Second}
	case errors.As(err, &se) && se.Status < 500:
		return &APIError{Status: se.Status, Type: typeInvalidRequest, Code: se.Code, Message: se.Message}
	}
	return nil
}
