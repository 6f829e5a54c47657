package conversations

import (
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// The key limit refusal says which case it is: spent, or this request's
// worst case more than what is left — with amounts a person can read.
func TestKeyLimitMessageSaysWhy(t *testing.T) {
	spent := (&KeyLimitError{LimitMicros: 2_000_000, UsedMicros: 2_000_000, NeededMicros: 900}).Message()
	if !strings.Contains(spent, "monthly limit of $2.00 is spent ($2.00 used this month)") {
		t.Fatalf("spent: %q", spent)
	}
	short := (&KeyLimitError{LimitMicros: 2000, UsedMicros: 1400, NeededMicros: 900}).Message()
	if !strings.Contains(short, "may cost up to $0.0009, more than the $0.0006 left") || !strings.Contains(short, "$0.002:") ||
		!strings.Contains(short, "lower max_tokens or raise the key's limit") {
		t.Fatalf("short: %q", short)
	}
}

func TestDollarsTextKeepsSubCentDigits(t *testing.T) {
	for micros, want := range map[int64]string{0: "$0.00", 300: "$0.0003", 10_000: "$0.01", 1_500_000: "$1.50", 123_456: "$0.123456", 2_000_000: "$2.00"} {
		if got := dollarsText(micros); got != want {
			t.Errorf("dollarsText(%d) = %q, want %q", micros, got, want)
		}
	}
}

// The owner's refusal names a due agent fee and what to add (rounded up to
// the cent); without a fee (or for anyone but the owner) the texts stay.
func TestInsufficientFundsNamesADueFee(t *testing.T) {
	fee := &InsufficientFundsError{Role: AccessOwner, Reason: "insufficient_funds",
		Short: &metering.Shortfall{NeededMicros: 10_040_001, AvailableMicros: 3_000_000, FeeMicros: 10_000_000}}
	if got, want := fee.Message(), "This agent's monthly fee of $10.00 is due: add $7.05 to your wallet to continue."; got != want {
		t.Fatalf("fee due: %q, want %q", got, want)
	}
	noFee := &InsufficientFundsError{Role: AccessOwner, Reason: "insufficient_funds", Short: &metering.Shortfall{NeededMicros: 50, FeeMicros: 0}}
	if noFee.Message() != MsgInsufficientOwner {
		t.Fatalf("no fee: %q", noFee.Message())
	}
	subscriber := &InsufficientFundsError{Role: "subscriber", Reason: "insufficient_funds", Short: fee.Short}
	if subscriber.Message() != MsgInsufficientOther {
		t.Fatalf("subscriber: %q", subscriber.Message())
	}
}

// A consumer is told what the answer needs (rounded up to the cent) and what
// their wallet has (rounded down); their own wallet's other rules as the
// owner is; agent_unavailable as everyone is.
func TestInsufficientFundsMessageForConsumers(t *testing.T) {
	for _, c := range []struct {
		e    *InsufficientFundsError
		want string
	}{
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "insufficient_funds",
			Short: &metering.Shortfall{NeededMicros: 15_001, AvailableMicros: 0}},
			"This answer needs up to $0.02; your wallet has $0.00. Add funds to continue."},
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "insufficient_funds",
			Short: &metering.Shortfall{NeededMicros: 1_230_000, AvailableMicros: 1_009_999}},
			"This answer needs up to $1.23; your wallet has $1.00. Add funds to continue."},
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "insufficient_funds", NeededMicros: 20_500},
			"This answer needs up to $0.03. Add funds to continue."},
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "monthly_limit_reached"}, MsgMonthlyLimit},
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "debt_outstanding"}, MsgDebt},
		{&InsufficientFundsError{Role: AccessConsumer, Reason: "agent_unavailable"}, MsgAgentUnavailable},
	} {
		if got := c.e.Message(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
	if got := (&AgentUnavailableError{Reason: "agent_unavailable"}).Message(); got != "This agent is unavailable right now." {
		t.Errorf("AgentUnavailableError: %q", got)
	}
}
