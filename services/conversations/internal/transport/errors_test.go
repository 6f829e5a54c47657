package transport

import (
	"fmt"
	"net/http"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// A subscriber over the owner's cap is told only that the agent is
// unavailable, in each API's own shape; the e-mail and Docs channels get a
// code of their own to show the same sentence.
func TestSubscriberCapRefusalOnEveryAPI(t *testing.T) {
	err := fmt.Errorf("answer: %w", &conversations.SubscriberCapError{CapMicros: 5_000_000, SpentMicros: 4_990_000, NeededMicros: 20_000})
	const msg = "This agent is unavailable right now."
	if e, _ := httpError(err); e == nil || e.Status != http.StatusForbidden || e.Code != "agent_unavailable" || e.Message != msg {
		t.Fatalf("HTTP: %+v", e)
	}
	if e := apiErrorOf(err); e == nil || e.Status != http.StatusForbidden || e.Type != "permission_error" ||
		e.Code != "agent_unavailable" || e.Message != msg || e.Param != "" {
		t.Fatalf("agent API: %+v", e)
	}
	if st := status.Convert(grpcError(err)); st.Code() != codes.FailedPrecondition || st.Message() != "agent_unavailable" {
		t.Fatalf("gRPC: %v", st)
	}
}

// The API key count refusal states the configured bound.
func TestTooManyKeysStatesTheBound(t *testing.T) {
	e, _ := httpError(&conversations.TooManyKeysError{Max: 7})
	if e == nil || e.Status != http.StatusBadRequest || e.Code != "limit_reached" ||
		e.Message != "This agent already has the maximum number of API keys (7). Revoke one first." {
		t.Fatalf("HTTP: %+v", e)
	}
}

// A refusal caused by the agent's due monthly fee names it to the owner on
// every channel: the 402 (code unchanged) of the chat and the agent API, and
// the gRPC refusal the e-mail channel turns into its reply (message
// unchanged, an ErrorInfo with the fee and what is missing). Other refusals
// carry no fee.
func TestAgentFeeRefusalOnEveryAPI(t *testing.T) {
	err := fmt.Errorf("answer: %w", &conversations.InsufficientFundsError{Role: conversations.AccessOwner,
		Reason: metering.ReasonInsufficientFunds,
		Short:  &metering.Shortfall{NeededMicros: 10_020_000, AvailableMicros: 4_000_001, FeeMicros: 10_000_000}})
	const msg = "This agent's monthly fee of $10.00 is due: add $6.02 to your wallet to continue."
	if e, _ := httpError(err); e == nil || e.Status != http.StatusPaymentRequired || e.Code != "insufficient_funds" || e.Message != msg {
		t.Fatalf("HTTP: %+v", e)
	}
	if e := apiErrorOf(err); e == nil || e.Status != http.StatusPaymentRequired || e.Message != msg {
		t.Fatalf("agent API: %+v", e)
	}
	st := status.Convert(grpcError(err))
	if st.Code() != codes.FailedPrecondition || st.Message() != "insufficient_funds" {
		t.Fatalf("gRPC: %v", st)
	}
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if info == nil || info.GetReason() != ReasonAgentFeeDue || info.GetMetadata()[MetaFeeMicros] != "10000000" ||
		info.GetMetadata()[MetaMissingMicros] != "6020000" {
		t.Fatalf("gRPC details: %v", st.Details())
	}

	// No fee due (or a subscriber): no details.
	for _, in := range []*conversations.InsufficientFundsError{
		{Role: conversations.AccessOwner, Reason: metering.ReasonInsufficientFunds, Short: &metering.Shortfall{NeededMicros: 50}},
		{Role: conversations.AccessSubscriber, Reason: metering.ReasonInsufficientFunds,
			Short: &metering.Shortfall{NeededMicros: 10_020_000, FeeMicros: 10_000_000}},
	} {
		st := status.Convert(grpcError(in))
		if st.Code() != codes.FailedPrecondition || st.Message() != "insufficient_funds" || len(st.Details()) != 0 {
			t.Fatalf("gRPC without a fee: %v %v", st, st.Details())
		}
	}
}
