package server

import "net/http"

// The error-code vocabulary of every /api/* route: the "error" member of an
// {"error","message"} body is one of these codes, whichever service answers
// (the gateway's own answers included). A code means the same thing
// everywhere; the message is the human text (some are fixed by the product
// spec). TestCodesVocabulary fails when a service writes a code that is not
// listed here, and the OpenAPI document (services/platform/openapi) lists
// the same codes. docs/conventions.md explains when to use which.
//
// The agent API (/api/v1/*) answers in the OpenAI error shape
// ({"error":{"message","type","param","code"}}) with its own codes; see
// docs/agent-api.md.
const (
	// 400: the request cannot be read or is invalid.
	CodeInvalidJSON      = "invalid_json"      // body is not JSON, has a value of the wrong type, or is empty where a body is required
	CodeValidationFailed = "validation_failed" // one or more fields are invalid; "fields" names them (NUL characters, invalid UTF-8 included)
	CodeInvalidRequest   = "invalid_request"   // the request is invalid as a whole (e.g. a query parameter or a combination of fields)
	CodeInvalidQuery     = "invalid_query"     // a query (search text, limit or filter) is invalid
	CodeInvalidRange     = "invalid_range"     // a date range is invalid
	CodeInvalidLimit     = "invalid_limit"     // a page or result limit is out of range
	CodeInvalidArgument  = "invalid_argument"  // a required argument is missing (internal callers)
	CodeInvalidTitle     = "invalid_title"     // conversation title
	CodeInvalidName      = "invalid_name"      // API key name
	CodeInvalidContent   = "invalid_content"   // message content
	CodeInvalidClientMsg = "invalid_client_message_id"
	CodeInvalidChannel   = "invalid_channel"
	CodeInvalidExpiresAt = "invalid_expires_at"
	CodeInvalidMonthly   = "invalid_monthly_limit"
	CodeInvalidSettings  = "invalid_settings"  // billing settings that do not fit together
	CodeInvalidSignature = "invalid_signature" // Stripe webhook signature
	CodePromptTooLong    = "prompt_too_long"
	CodeNoSavedCard      = "no_saved_card"
	CodeLimitReached     = "limit_reached"           // a count quota: agents per user, documents per agent, API keys per agent
	CodeInvalidIdemKey   = "invalid_idempotency_key" // Idempotency-Key header too long (agent API)

	// 401, 402, 403, 404, 405, 409, 413, 429.
	CodeUnauthenticated         = "unauthenticated" // no bearer token
	CodeInvalidToken            = "invalid_token"   // bad, expired or revoked token
	CodeInsufficientFunds       = "insufficient_funds"
	CodeAgentUnavailable        = "agent_unavailable"      // the agent may not answer this user now (a subscriber's monthly cap is spent)
	CodeForbidden               = "forbidden"              // the caller is known but may not do this (an owner reviewing their own agent)
	CodeReviewNeedsAnswer       = "review_requires_answer" // only a user who received an answer from the agent may review it
	CodeNotFound                = "not_found"              // unknown, or not the caller's
	CodeMethodNotAllowed        = "method_not_allowed"
	CodeConflict                = "conflict"                  // the resource exists or changed (already invited, name taken)
	CodeInProgress              = "in_progress"               // the same operation is still running
	CodeEarningsInsufficient    = "earnings_insufficient"     // more was asked of the available earnings than they hold
	CodePayoutAccountMissing    = "payout_account_missing"    // a payout without a payout (Stripe Connect) account
	CodePayoutAccountRestricted = "payout_account_restricted" // the payout account cannot receive payouts yet
	CodePayoutInFlight          = "payout_in_flight"          // a payout is already on its way
	CodeAccountNotEmpty         = "account_not_empty"         // an account deletion while the wallet holds money or debt
	CodeBodyTooLarge            = "body_too_large"
	CodeRateLimited             = "rate_limited"
	// 499: written for logs and metrics only; the client that sent the request is gone.
	CodeClientClosedRequest = "client_closed_request"

	// 5xx: our fault or a dependency's.
	CodeInternal             = "internal"
	CodeModelUnavailable     = "model_unavailable"
	CodeAnswerInterrupted    = "answer_interrupted"
	CodePaymentProviderError = "payment_provider_error"
	CodeAuthUnavailable      = "auth_unavailable"
	CodeCatalogUnavailable   = "catalog_unavailable"
	CodeWalletUnavailable    = "wallet_unavailable"
	CodeKnowledgeUnavailable = "knowledge_unavailable"
	CodeUnavailable          = "unavailable" // a dependency needed to answer safely (e.g. the rate limiter's Redis) is down
)

// CodeInfo describes one code of the vocabulary.
type CodeInfo struct {
	Code    string
	Status  int // the HTTP status it is sent with
	Meaning string
}

// Codes is the whole vocabulary, in the order the docs list it.
var Codes = []CodeInfo{
	{CodeInvalidJSON, http.StatusBadRequest, "The body is not JSON, holds a value of the wrong type, trailing data, or is empty where a body is required."},
	{CodeValidationFailed, http.StatusBadRequest, "One or more fields are invalid; \"fields\" maps each to its message. Text with a NUL character or invalid UTF-8, in any body field, path segment or query parameter, is refused this way."},
	{CodeInvalidRequest, http.StatusBadRequest, "The request is invalid as a whole: a query parameter or a combination of fields."},
	{CodeInvalidQuery, http.StatusBadRequest, "A query (search text, filter or limit of a read) is invalid."},
	{CodeInvalidRange, http.StatusBadRequest, "A date range (from, to) is invalid."},
	{CodeInvalidLimit, http.StatusBadRequest, "A result limit is out of range."},
	{CodeInvalidArgument, http.StatusBadRequest, "A required argument is missing."},
	{CodeInvalidTitle, http.StatusBadRequest, "A conversation title is invalid."},
	{CodeInvalidName, http.StatusBadRequest, "An API key name is invalid."},
	{CodeInvalidContent, http.StatusBadRequest, "A message's content is invalid (empty or too long)."},
	{CodeInvalidClientMsg, http.StatusBadRequest, "A client message id is invalid."},
	{CodeInvalidChannel, http.StatusBadRequest, "A channel is invalid."},
	{CodeInvalidExpiresAt, http.StatusBadRequest, "An API key's expiry is invalid."},
	{CodeInvalidMonthly, http.StatusBadRequest, "An API key's monthly limit is invalid."},
	{CodeInvalidSettings, http.StatusBadRequest, "Billing settings do not fit together."},
	{CodeInvalidSignature, http.StatusBadRequest, "A Stripe webhook's signature does not verify."},
	{CodePromptTooLong, http.StatusBadRequest, "The prompt does not fit the model's context window."},
	{CodeNoSavedCard, http.StatusBadRequest, "Automatic recharge needs a saved card."},
	{CodeLimitReached, http.StatusBadRequest, "A count quota is reached (agents per user, documents per agent, API keys per agent); the message states the limit."},
	{CodeInvalidIdemKey, http.StatusBadRequest, "An Idempotency-Key header is longer than 255 characters."},
	{CodeUnauthenticated, http.StatusUnauthorized, "No bearer token: 'Authentication token not available. User must be logged in.'"},
	{CodeInvalidToken, http.StatusUnauthorized, "The token is invalid, expired or revoked: 'Invalid or expired authentication token.'"},
	{CodeInsufficientFunds, http.StatusPaymentRequired, "The wallet that pays cannot cover the cost."},
	{CodeAgentUnavailable, http.StatusForbidden, "The agent cannot answer this user right now (the owner's monthly cap for this subscriber is spent, or a listed agent's creator cannot pay its monthly fee): 'This agent is unavailable right now.'"},
	{CodeForbidden, http.StatusForbidden, "The caller may not do this (an owner reviewing their own agent)."},
	{CodeReviewNeedsAnswer, http.StatusForbidden, "Only a user who received at least one answer from the agent may review it."},
	{CodeNotFound, http.StatusNotFound, "No such route or resource, or it is not the caller's."},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, "The path exists but not with this method; Allow lists the methods."},
	{CodeConflict, http.StatusConflict, "The resource already exists or conflicts with another (already invited, name taken)."},
	{CodeInProgress, http.StatusConflict, "The same operation is still running."},
	{CodeEarningsInsufficient, http.StatusConflict, "A transfer or payout asks for more than the available earnings: 'You have $X.XX available to transfer.' (or 'to withdraw.')"},
	{CodePayoutAccountMissing, http.StatusConflict, "A payout needs a payout account: 'Set up your payout account first.'"},
	{CodePayoutAccountRestricted, http.StatusConflict, "The payout account cannot receive payouts yet: 'Your payout account cannot receive payouts yet: <reason>.'"},
	{CodePayoutInFlight, http.StatusConflict, "A payout is already on its way: 'A payout is already on its way. Try again when it has arrived.'"},
	{CodeAccountNotEmpty, http.StatusConflict, "An account cannot be deleted while its wallet holds money or debt: 'Your wallet holds $X.XX: spend or withdraw it before deleting your account.'"},
	{CodeBodyTooLarge, http.StatusRequestEntityTooLarge, "The body is larger than 1 MiB."},
	{CodeRateLimited, http.StatusTooManyRequests, "Too many requests; Retry-After says when to retry."},
	{CodeClientClosedRequest, StatusClientClosedRequest, "The client closed the connection before the answer (a navigation, a Stop); nobody reads it, the request log and metrics record it."},
	{CodeInternal, http.StatusInternalServerError, "Our fault: 'Internal server error' (details only in the logs)."},
	{CodeModelUnavailable, http.StatusBadGateway, "The model provider failed."},
	{CodeAnswerInterrupted, http.StatusBadGateway, "The model's answer broke off."},
	{CodePaymentProviderError, http.StatusBadGateway, "Stripe refused or failed."},
	{CodeAuthUnavailable, http.StatusServiceUnavailable, "The token could not be verified right now."},
	{CodeCatalogUnavailable, http.StatusServiceUnavailable, "The catalog service could not be reached; retry."},
	{CodeWalletUnavailable, http.StatusServiceUnavailable, "The wallet service could not be reached; retry."},
	{CodeKnowledgeUnavailable, http.StatusServiceUnavailable, "The documents service could not be reached; retry."},
	{CodeUnavailable, http.StatusServiceUnavailable, "A dependency needed to answer safely (the rate limiter's store, the database) is down for the moment; retry shortly."},
}

// KnownCode reports whether code is in the vocabulary.
func KnownCode(code string) bool {
	for _, c := range Codes {
		if c.Code == code {
			return true
		}
	}
	return false
}
