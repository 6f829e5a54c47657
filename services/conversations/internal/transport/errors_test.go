package transport

import (
	"fmt"
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
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
