// Package transport exposes the wallet endpoints over HTTP/JSON (the public
// /api routes) and gRPC (the internal WalletService).
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Public routes.
const (
	PathBalance        = "/api/user/balance"
	PathTransactions   = "/api/user/transactions"
	PathCheckout       = "/api/stripe/create-checkout-session"
	PathStripeWebhook  = "/api/stripe/webhook"
	StripeSignatureHdr = "Stripe-Signature"
)

// Errors specific to the wallet's HTTP API.
var (
	ErrRateLimited = &server.Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
		Message: "Too many requests. Please wait a moment and try again."}
	ErrBadSignature = &server.Error{Status: http.StatusBadRequest, Code: "invalid_signature",
		Message: "Invalid Stripe signature"}
)

// RegisterHTTP adds the /api routes to mux: the user routes and checkout
// behind the platform auth middleware (verifier), the Stripe webhook without
// it (it checks Stripe's signature).
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	opts := server.KitOptions(encodeHTTPError(logger))
	protect := auth.Middleware(verifier, logger)
	// Sensitive routes (money, sharing, keys, deletion) also check that the
	// token was not revoked and its user not disabled (docs/identity.md).
	fresh := auth.RequireFresh(verifier, logger)
	server.Route(mux, http.MethodGet, PathBalance, protect(httptransport.NewServer(
		set.Balance, decodeBalanceRequest, encodeBalanceResponse, opts...)))
	server.Route(mux, http.MethodGet, PathTransactions, protect(httptransport.NewServer(
		set.Transactions, decodeTransactionsRequest, encodeTransactionsResponse, opts...)))
	server.Route(mux, http.MethodPost, PathCheckout, fresh(httptransport.NewServer(
		set.CreateCheckoutSession, decodeCheckoutRequest, encodeCheckoutResponse, opts...)))
	server.Route(mux, http.MethodPost, PathStripeWebhook, httptransport.NewServer(
		set.StripeWebhook, decodeWebhookRequest, encodeWebhookResponse, opts...))
	server.Route(mux, http.MethodGet, PathBillingSettings, protect(httptransport.NewServer(
		set.GetSettings, decodeGetSettings, encodeSettingsResponse, opts...)))
	server.Route(mux, http.MethodPut, PathBillingSettings, fresh(httptransport.NewServer(
		set.PutSettings, decodePutSettings, encodeSettingsResponse, opts...)))
	server.Route(mux, http.MethodGet, PathAgentFees, protect(httptransport.NewServer(
		set.AgentFees, decodeBalanceRequest, encodeAgentFees, opts...)))
	server.Route(mux, http.MethodPost, PathSetupSession, fresh(httptransport.NewServer(
		set.SetupSession, decodeSetupSession, encodeSetupSession, opts...)))
	server.Route(mux, http.MethodGet, PathTransactionsCSV, protect(httptransport.NewServer(
		set.ExportTransactions, decodeExportRequest, encodeExport, opts...)))
	registerEarnings(mux, set, protect, fresh, logger)
	registerPayouts(mux, set, protect, fresh, logger)
}

// Dollars converts micro-dollars to the API's dollar number.
func Dollars(micros int64) float64 { return float64(micros) / wallet.MicrosPerDollar }

func decodeBalanceRequest(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.BalanceRequest{UID: c.UID}, nil
}

func intParam(r *http.Request, name string, def int64, msg string) (int64, error) {
	vals, ok := r.URL.Query()[name]
	if !ok {
		return def, nil
	}
	if len(vals) != 1 {
		return 0, server.BadRequest("invalid_request", msg)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(vals[0]), 10, 64)
	if err != nil {
		return 0, server.BadRequest("invalid_request", msg)
	}
	return v, nil
}

func decodeTransactionsRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	const (
		limitMsg    = "limit must be an integer between 1 and 100"
		offsetMsg   = "offset must be an integer greater than or equal to 0"
		snapshotMsg = "snapshot must be an integer greater than or equal to 0"
	)
	limit, err := intParam(r, "limit", wallet.DefaultPageLimit, limitMsg)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > wallet.MaxPageLimit {
		return nil, server.BadRequest("invalid_request", limitMsg)
	}
	offset, err := intParam(r, "offset", 0, offsetMsg)
	if err != nil {
		return nil, err
	}
	if offset < 0 || offset > math.MaxInt32 {
		return nil, server.BadRequest("invalid_request", offsetMsg)
	}
	q := wallet.PageQuery{Limit: int(limit), Offset: int(offset)}
	if _, ok := r.URL.Query()["snapshot"]; ok {
		snap, err := intParam(r, "snapshot", 0, snapshotMsg)
		if err != nil {
			return nil, err
		}
		if snap < 0 {
			return nil, server.BadRequest("invalid_request", snapshotMsg)
		}
		q.Snapshot = &snap
	}
	return endpoints.TransactionsRequest{UID: c.UID, Query: q}, nil
}

// TransactionJSON is a transfer as the wallet screen shows it.
type TransactionJSON struct {
	ID          string  `json:"id"`
	Date        string  `json:"date"`
	Amount      float64 `json:"amount"`
	Type        string  `json:"type"`
	Provider    string  `json:"provider"`
	Description string  `json:"description"`
	// Kind is "agent_fee" for an agent's monthly fee (an expense the wallet
	// screen lists apart from usage); omitted otherwise.
	Kind string `json:"kind,omitempty"`
}

// ToJSON converts a transfer.
func ToJSON(t wallet.Transfer) TransactionJSON {
	out := TransactionJSON{
		ID: t.ID, Date: t.CreatedAt.UTC().Format(time.RFC3339Nano), Amount: Dollars(t.AmountMicros),
		// An earning_transfer shows as a deposit ("Transfer from earnings").
		Type: string(t.Type.Display()), Provider: t.Provider, Description: t.Description,
	}
	if t.Metadata[wallet.MetaKind] == wallet.KindAgentFee {
		out.Kind = wallet.KindAgentFee
	}
	return out
}

func encodeTransactionsResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	p := resp.(endpoints.TransactionsResponse).Page
	items := make([]TransactionJSON, len(p.Items))
	for i, t := range p.Items {
		items[i] = ToJSON(t)
	}
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{
		"success": true,
		"data": map[string]any{
			"items": items,
			"meta": map[string]any{
				"hasMore": p.HasMore, "limit": p.Limit, "offset": p.Offset, "snapshot": p.Snapshot,
			},
		},
	})
	return nil
}

const amountMsg = "amount must be an integer number of cents between 50 ($0.50) and 1000000 ($10,000)"

// parseCents accepts a JSON number with an integral value (1000 or 1000.0).
func parseCents(raw json.RawMessage) (int64, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, server.BadRequest("invalid_request", "amount is required")
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return 0, server.InvalidJSON("amount must be a number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < wallet.MinCheckoutCents || f > wallet.MaxCheckoutCents {
		return 0, server.BadRequest("invalid_request", amountMsg)
	}
	return int64(f), nil
}

func decodeCheckoutRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct {
		Amount   json.RawMessage `json:"amount"`
		Currency *string         `json:"currency"`
		// metadata {userId, email, timestamp} is accepted; the token decides who pays.
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := server.DecodeJSON(nil, r, &body); err != nil {
		return nil, err
	}
	cents, err := parseCents(body.Amount)
	if err != nil {
		return nil, err
	}
	cur := ""
	if body.Currency != nil {
		cur = *body.Currency
		if strings.ToLower(strings.TrimSpace(cur)) != "usd" {
			return nil, server.BadRequest("invalid_request", "currency must be usd")
		}
	}
	return endpoints.CheckoutRequest{Request: wallet.CheckoutRequest{
		UID: c.UID, Email: c.Email, AmountCents: cents, Currency: cur,
	}}, nil
}

func encodeCheckoutResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	res := resp.(endpoints.CheckoutResponse).Result
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{
		"sessionId": res.SessionID, "url": res.URL, "publishableKey": res.PublishableKey,
	})
	return nil
}

func decodeWebhookRequest(_ context.Context, r *http.Request) (any, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, server.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, server.ErrBodyTooLarge
		}
		return nil, server.InvalidJSON("Request body could not be read")
	}
	return endpoints.WebhookRequest{Payload: body, Signature: r.Header.Get(StripeSignatureHdr)}, nil
}

func encodeWebhookResponse(_ context.Context, w http.ResponseWriter, resp any) error {
	res := resp.(endpoints.WebhookResponse).Result
	server.WriteJSON(w, http.StatusOK, map[string]any{"received": true, "outcome": string(res.Outcome)})
	return nil
}

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			se   *server.Error
			ve   *wallet.ValidationError
			pe   *wallet.ProviderError
			sete *wallet.SettingsError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.As(err, &ve):
			server.WriteError(w, server.BadRequest("invalid_request", ve.Message))
		case errors.As(err, &sete):
			server.WriteError(w, server.BadRequest("invalid_settings", sete.Message))
		case errors.Is(err, wallet.ErrNoSavedCard):
			server.WriteError(w, ErrNoSavedCard)
		case errors.Is(err, wallet.ErrRateLimited):
			w.Header().Set("Retry-After", "60")
			server.WriteError(w, ErrRateLimited)
		case errors.Is(err, wallet.ErrBadSignature):
			logger.WarnContext(ctx, "stripe webhook rejected", "error", err)
			server.WriteError(w, ErrBadSignature)
		case errors.As(err, &pe):
			logger.ErrorContext(ctx, "payment provider failed", "error", err)
			server.WriteError(w, &server.Error{Status: http.StatusBadGateway, Code: "payment_provider_error", Message: pe.Message})
		default:
			server.WriteFailure(ctx, logger, w, err)
		}
	}
}
