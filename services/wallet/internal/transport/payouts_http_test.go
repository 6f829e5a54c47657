package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// The payout POSTs check token revocation; the list does not.
func TestPayoutRoutesCheckRevocation(t *testing.T) {
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	RegisterHTTP(mux, set, authtest.RevokedVerifier{UID: "u1"}, nil)
	authtest.CheckRoutes(t, mux, []authtest.Route{
		{Method: http.MethodPost, Path: PathPayoutAccountLink, Fresh: true},
		{Method: http.MethodPost, Path: PathPayouts, Fresh: true},
		{Method: http.MethodGet, Path: PathPayouts},
	})
}

func TestPayoutErrorsAndAmounts(t *testing.T) {
	enc := encodePayoutError(nil)
	for _, c := range []struct {
		err       error
		status    int
		code, msg string
	}{
		{wallet.ErrPayoutAccountMissing, 409, "payout_account_missing", "Set up your payout account first."},
		{&wallet.PayoutRestrictedError{Reason: "Stripe needs more information"}, 409, "payout_account_restricted",
			"Your payout account cannot receive payouts yet: Stripe needs more information."},
		{&wallet.EarningsShortError{AvailableMicros: 1_234_567_899}, 409, "earnings_insufficient", "You have $1,234.56 available to withdraw."},
		{wallet.ErrPayoutInFlight, 409, "payout_in_flight", "A payout is already on its way. Try again when it has arrived."},
		{&wallet.ValidationError{Message: "The minimum withdrawal is $10.00."}, 400, "validation_failed", "The minimum withdrawal is $10.00."},
	} {
		rec := httptest.NewRecorder()
		enc(context.Background(), c.err, rec)
		var body struct {
			Error, Message string
			Fields         map[string]string
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != c.status || body.Error != c.code || body.Message != c.msg {
			t.Fatalf("%v: %d %+v", c.err, rec.Code, body)
		}
	}
	for raw, want := range map[string]int64{`{"amount":10}`: 10_000_000, `{"amount":12.34}`: 12_340_000} {
		r := httptest.NewRequest(http.MethodPost, PathPayouts, strings.NewReader(raw))
		r = r.WithContext(auth.NewContext(r.Context(), auth.Claims{UID: "u1"}))
		got, err := decodeCreatePayout(r.Context(), r)
		if err != nil || got.(endpoints.CreatePayoutRequest).AmountMicros != want {
			t.Fatalf("%s: %v %v", raw, got, err)
		}
	}
}
