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
	// No agent fee due (a consumer's answer): fee_micros may be left out.
	st2, _ := status.New(codes.FailedPrecondition, "insufficient_funds").WithDetails(&errdetails.ErrorInfo{
		Reason: "insufficient_funds", Domain: "wallet.agentic",
		Metadata: map[string]string{"needed_micros": "20000", "available_micros": "0"},
	})
	if sh := metering.RefusalShortfall(walletError("reserve", st2.Err(), metering.ErrInsufficientFunds)); sh == nil ||
		*sh != (metering.Shortfall{NeededMicros: 20_000}) {
		t.Fatalf("shortfall without fee_micros %+v", sh)
	}
	// The agent is unavailable (a listed agent's creator cannot pay its fee).
	st3, _ := status.New(codes.FailedPrecondition, "agent_unavailable").WithDetails(&errdetails.ErrorInfo{
		Reason: "agent_unavailable", Domain: "wallet.agentic"})
	if un := walletError("reserve", st3.Err(), metering.ErrInsufficientFunds); !errors.Is(un, metering.ErrInsufficientFunds) ||
		metering.RefusalReason(un) != metering.ReasonAgentUnavailable {
		t.Fatalf("agent_unavailable refusal %v", un)
	}
	// An older wallet (no amounts): the reason alone.
	plain := walletError("reserve", status.Error(codes.FailedPrecondition, "insufficient_funds"), metering.ErrInsufficientFunds)
	if metering.RefusalShortfall(plain) != nil || metering.RefusalReason(plain) != "insufficient_funds" {
		t.Fatalf("plain refusal %v", plain)
	}
}
