package clients

import (
	"errors"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// A Reserve refused for funds keeps the wallet's reason and, when it sent
// them, the amounts (what was needed, available, and the due fee).
func TestWalletRefusalCarriesTheShortfall(t *testing.T) {
	st, err := status.New(codes.FailedPrecondition, "insufficient_funds").WithDetails(&errdetails.ErrorInfo{
		Reason: "insufficient_funds", Domain: "wallet.agentic",
		Metadata: map[string]string{"needed_micros": "10040000", "available_micros": "3000000", "fee_micros": "10000000"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := walletError("reserve", st.Err(), metering.ErrInsufficientFunds)
	sh := metering.RefusalShortfall(got)
	if !errors.Is(got, metering.ErrInsufficientFunds) || metering.RefusalReason(got) != "insufficient_funds" || sh == nil ||
		*sh != (metering.Shortfall{NeededMicros: 10_040_000, AvailableMicros: 3_000_000, FeeMicros: 10_000_000}) {
		t.Fatalf("refusal %v, shortfall %+v", got, sh)
	}
	// An older wallet (no amounts): the reason alone.
	plain := walletError("reserve", status.Error(codes.FailedPrecondition, "insufficient_funds"), metering.ErrInsufficientFunds)
	if metering.RefusalShortfall(plain) != nil || metering.RefusalReason(plain) != "insufficient_funds" {
		t.Fatalf("plain refusal %v", plain)
	}
}
