package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/go-kit/kit/endpoint"
	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Payout routes (docs/billing-api.md, "Payouts").
const (
	PathPayoutAccountLink = "/api/user/payouts/account-link"
	PathPayouts           = "/api/user/payouts"
)

// Payout refusals (409).
var (
	ErrPayoutAccountMissing = &server.Error{Status: http.StatusConflict, Code: "payout_account_missing",
		Message: "Set up your payout account first."}
	ErrPayoutInFlight = &server.Error{Status: http.StatusConflict, Code: "payout_in_flight",
		Message: "A payout is already on its way. Try again when it has arrived."}
)

// registerPayouts adds the payout routes (called by RegisterHTTP): the
// money POSTs check token revocation (fresh), the list does not.
func registerPayouts(mux *http.ServeMux, set endpoints.Set, protect, fresh func(http.Handler) http.Handler, logger *slog.Logger) {
	opts := server.KitOptions(encodePayoutError(logger))
	ep := func(e endpoint.Endpoint) endpoint.Endpoint {
		if e == nil {
			return func(context.Context, any) (any, error) { return nil, errors.New("payouts are not configured") }
		}
		return e
	}
	server.Route(mux, http.MethodPost, PathPayoutAccountLink, fresh(httptransport.NewServer(
		ep(set.PayoutAccountLink), decodeAccountLink, encodeAccountLink, opts...)))
	server.Route(mux, http.MethodPost, PathPayouts, fresh(httptransport.NewServer(
		ep(set.CreatePayout), decodeCreatePayout, encodeCreatePayout, opts...)))
	server.Route(mux, http.MethodGet, PathPayouts, protect(httptransport.NewServer(
		ep(set.ListPayouts), decodeListPayouts, encodeListPayouts, opts...)))
}

func decodeAccountLink(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct{}
	if err := server.DecodeJSON(nil, r, &body, server.AllowEmpty()); err != nil {
		return nil, err
	}
	return endpoints.PayoutAccountLinkRequest{UID: c.UID, Email: c.Email}, nil
}

func encodeAccountLink(_ context.Context, w http.ResponseWriter, resp any) error {
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"url": resp.(endpoints.PayoutAccountLinkResponse).URL})
	return nil
}

// payoutAmountError is a 400 validation_failed naming the amount.
type payoutAmountError struct{ msg string }

func (e *payoutAmountError) Error() string { return e.msg }

func decodeCreatePayout(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var body struct {
		Amount *float64 `json:"amount"`
	}
	if err := server.DecodeJSON(nil, r, &body); err != nil {
		return nil, err
	}
	if body.Amount == nil {
		return nil, &payoutAmountError{msg: "Enter an amount to withdraw."}
	}
	d := *body.Amount
	if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 || d > float64(wallet.MaxPayoutMicros/wallet.MicrosPerDollar) {
		return nil, &payoutAmountError{msg: "The maximum withdrawal is $1,000,000.00."}
	}
	cents := math.Round(d * 100)
	if math.Abs(d*100-cents) > 1e-6 {
		return nil, &payoutAmountError{msg: "Enter an amount in whole cents."}
	}
	return endpoints.CreatePayoutRequest{UID: c.UID, AmountMicros: int64(cents) * wallet.MicrosPerCent}, nil
}

// PayoutJSON is a payout as the earnings page shows it.
func PayoutJSON(p wallet.Payout) map[string]any {
	out := map[string]any{
		"id": p.ID, "amount": Dollars(p.AmountMicros), "status": string(p.Status),
		"createdAt": p.CreatedAt.UTC().Format(time.RFC3339Nano), "updatedAt": p.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if p.FailureMessage != "" {
		out["failureMessage"] = p.FailureMessage
	}
	return out
}

func encodeCreatePayout(_ context.Context, w http.ResponseWriter, resp any) error {
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusCreated, map[string]any{"payout": PayoutJSON(resp.(endpoints.PayoutResponse).Payout)})
	return nil
}

func decodeListPayouts(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ListPayoutsRequest{UID: c.UID}, nil
}

func encodeListPayouts(_ context.Context, w http.ResponseWriter, resp any) error {
	list := resp.(endpoints.ListPayoutsResponse).Payouts
	out := make([]map[string]any, len(list))
	for i, p := range list {
		out[i] = PayoutJSON(p)
	}
	w.Header().Set("Cache-Control", "no-store")
	server.WriteJSON(w, http.StatusOK, map[string]any{"payouts": out})
	return nil
}

// formatDollars renders micro-dollars as "$1,234.56" (cents rounded down:
// never more than there is).
func formatDollars(micros int64) string {
	cents := micros / wallet.MicrosPerCent
	whole, frac := cents/100, cents%100
	s := fmt.Sprintf("%d", whole)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return fmt.Sprintf("$%s.%02d", s, frac)
}

func encodePayoutError(logger *slog.Logger) httptransport.ErrorEncoder {
	fallback := encodeHTTPError(logger)
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			ae *payoutAmountError
			ve *wallet.ValidationError
			re *wallet.PayoutRestrictedError
			se *wallet.EarningsShortError
		)
		switch {
		case errors.As(err, &ae):
			server.WriteValidationFailed(w, ae.msg, map[string]string{"amount": ae.msg})
		case errors.As(err, &ve):
			server.WriteValidationFailed(w, ve.Message, map[string]string{"amount": ve.Message})
		case errors.Is(err, wallet.ErrPayoutAccountMissing):
			server.WriteError(w, ErrPayoutAccountMissing)
		case errors.As(err, &re):
			server.WriteError(w, &server.Error{Status: http.StatusConflict, Code: "payout_account_restricted",
				Message: "Your payout account cannot receive payouts yet: " + re.Reason + "."})
		case errors.As(err, &se):
			server.WriteError(w, &server.Error{Status: http.StatusConflict, Code: "earnings_insufficient",
				Message: "You have " + formatDollars(se.AvailableMicros) + " available to withdraw."})
		case errors.Is(err, wallet.ErrPayoutInFlight):
			server.WriteError(w, ErrPayoutInFlight)
		default:
			fallback(ctx, err, w)
		}
	}
}
