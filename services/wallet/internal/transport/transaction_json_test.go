package transport

import (
	"testing"

	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// An agent's monthly fee is marked (kind agent_fee) so that the wallet screen
// lists fees apart from usage; other transactions carry no kind.
func TestTransactionJSONMarksAgentFees(t *testing.T) {
	fee := ToJSON(wallet.Transfer{ID: "t1", Type: wallet.TypeExpense, AmountMicros: 10_000_000,
		Description: "Agentic User fee · Tutor · Dec 1 – Dec 30",
		Metadata:    map[string]string{wallet.MetaKind: wallet.KindAgentFee, wallet.MetaAgentID: "a1"}})
	if fee.Kind != "agent_fee" || fee.Type != "expense" || fee.Amount != 10 {
		t.Fatalf("fee: %+v", fee)
	}
	answer := ToJSON(wallet.Transfer{ID: "t2", Type: wallet.TypeExpense, AmountMicros: 300, Metadata: map[string]string{wallet.MetaAgentID: "a1"}})
	if answer.Kind != "" || answer.Amount != 0.0003 {
		t.Fatalf("answer: %+v", answer)
	}
}
