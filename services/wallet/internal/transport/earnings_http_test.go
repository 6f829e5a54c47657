package transport

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

func TestEarningsTransferDecodeAndMessages(t *testing.T) {
	ctx := auth.NewContext(context.Background(), auth.Claims{UID: "u1"})
	decode := func(body string) (any, error) {
		return decodeEarningsTransfer(ctx, httptest.NewRequest("POST", PathEarningsTransfer, strings.NewReader(body)))
	}
	req, err := decode(`{"amount":12.345678}`)
	if err != nil || req.(endpoints.TransferEarningsRequest).AmountMicros != 12_345_678 || req.(endpoints.TransferEarningsRequest).UID != "u1" {
		t.Fatalf("decode: %+v %v", req, err)
	}
	for _, body := range []string{`{"amount":0.009}`, `{"amount":-1}`, `{}`, `{"amount":1e13}`} {
		var ve *wallet.ValidationError
		if _, err := decode(body); !errors.As(err, &ve) || ve.Message != transferAmountMsg {
			t.Errorf("%s: %v", body, err)
		}
	}
	if got := EarningsInsufficientMessage(4_200, "transfer"); got != "You have $0.0042 available to transfer." {
		t.Fatal(got)
	}
	if got := EarningsInsufficientMessage(30_000, "transfer"); got != "You have $0.03 available to transfer." {
		t.Fatal(got)
	}
	v := EarningsJSON(wallet.EarningsView{PendingMicros: 1_500_000, ByAgent: []wallet.AgentEarnings{{AgentID: "a", Name: "A", Answers: 2, Users: 1, EarnedMicros: 10}}})
	if v["pending"] != 1.5 || v["payoutAccount"].(map[string]any)["status"] != "none" || len(v["byAgent"].([]map[string]any)) != 1 {
		t.Fatalf("json %v", v)
	}
}
