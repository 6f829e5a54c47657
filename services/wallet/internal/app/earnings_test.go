package app

import (
	"context"
	"math"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// TestEarningsInTheService: over gRPC, a consumer's Reserve for an agent
// whose creator cannot pay is refused with agent_unavailable; a consumer's
// capture credits the creator; over HTTP the creator reads the earnings
// (matured at once: EARNINGS_HOLD 0), the daily series and the history's day
// line, and transfers available earnings to the wallet (400 / 409 / 200).
func TestEarningsInTheService(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) { c.EarningsHold = 0 })
	c := walletClient(t, app)
	ctx := context.Background()
	creator, broke, consumer := uniq("cre"), uniq("broke"), uniq("con")
	agent, brokeAgent := uniq("agent"), uniq("agent")
	for uid, micros := range map[string]int64{creator: 12_000_000, consumer: 5_000_000, broke: 1_000_000} {
		if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: micros, IdempotencyKey: "fund-" + uid}); err != nil {
			t.Fatal(err)
		}
	}
	meta := func(cr, ag string) map[string]string {
		return map[string]string{"payer_role": "consumer", "creator_uid": cr, "agent_id": ag, "agent_name": "Math Tutor"}
	}
	_, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: consumer, AmountMicros: 100_000, IdempotencyKey: "b1", Metadata: meta(broke, brokeAgent)})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != "agent_unavailable" {
		t.Fatalf("broke creator: %v (%s)", err, reason(err))
	}

	h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: consumer, AmountMicros: 100_000, IdempotencyKey: "q1", Metadata: meta(creator, agent)})
	if err != nil || h.GetBalanceMicros() != 5_000_000 {
		t.Fatalf("consumer reserve: %v %v", h, err)
	}
	capMeta := map[string]string{"payer_role": "consumer", "creator_uid": creator, "markup_micros": "20000", "greeting_micros": "10000",
		"agentId": agent, "messageId": "msg-1"}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: 61_500, Description: "Math Tutor · 12 tokens",
		Metadata: capMeta}); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{"payer_role": "consumer", "creator_uid": creator, "markup_micros": "x"}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: 61_500, Metadata: bad}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("bad split: %v", err)
	}

	// identity asks before deleting an account: earnings are the creator's money too.
	gb, err := c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: creator, IncludeEarningsAndDebt: true})
	if err != nil || gb.GetEarningsMicros() != 30_000 || gb.GetBalanceMicros() != 2_000_000 || gb.GetDebtMicros() != 0 {
		t.Fatalf("balance with earnings: %v %v", gb, err)
	}
	if gb, err = c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: creator}); err != nil || gb.GetEarningsMicros() != 0 {
		t.Fatalf("balance without earnings asked: %v %v", gb, err)
	}

	tok := "token-" + creator
	code, body := call(t, "GET", app.http+"/api/user/earnings", tok, "")
	if code != 200 || body["available"] != 0.03 || body["pending"] != 0.0 || body["currency"] != "usd" ||
		body["minimumWithdrawal"] != 10.0 || body["holdSeconds"] != 0.0 || body["paidOut"] != 0.0 {
		t.Fatalf("earnings: %d %v", code, body)
	}
	if acc := body["payoutAccount"].(map[string]any); acc["status"] != "none" {
		t.Fatalf("payout account %v", acc)
	}
	by := body["byAgent"].([]any)
	if len(by) != 1 || by[0].(map[string]any)["agentId"] != agent || by[0].(map[string]any)["answers"] != 1.0 ||
		by[0].(map[string]any)["users"] != 1.0 || by[0].(map[string]any)["earned"] != 0.03 {
		t.Fatalf("byAgent %v", by)
	}
	code, body = call(t, "GET", app.http+"/api/user/earnings/series?agentId="+agent, tok, "")
	if days, _ := body["days"].([]any); code != 200 || len(days) != 1 || days[0].(map[string]any)["earned"] != 0.03 {
		t.Fatalf("series: %d %v", code, body)
	}
	if code, body = call(t, "GET", app.http+"/api/user/earnings/series?from=2026-13-01", tok, ""); code != 400 || body["error"] != "invalid_range" {
		t.Fatalf("bad date: %d %v", code, body)
	}

	path := app.http + "/api/user/earnings/transfer-to-wallet"
	if code, body = call(t, "POST", path, tok, `{"amount":0.001}`); code != 400 || body["error"] != "validation_failed" ||
		body["message"] != "Enter an amount of at least $0.01." {
		t.Fatalf("tiny transfer: %d %v", code, body)
	}
	if code, body = call(t, "POST", path, tok, `{"amount":1}`); code != 409 || body["error"] != "earnings_insufficient" ||
		body["message"] != "You have $0.03 available to transfer." {
		t.Fatalf("too much: %d %v", code, body)
	}
	code, body = call(t, "POST", path, tok, `{"amount":0.02}`)
	if code != 200 || body["transferred"] != 0.02 || math.Abs(body["available"].(float64)-0.01) > 1e-12 || body["balance"] != 2.02 {
		t.Fatalf("transfer: %d %v", code, body)
	}

	code, body = call(t, "GET", app.http+"/api/user/transactions", tok, "")
	if code != 200 {
		t.Fatalf("history %d %v", code, body)
	}
	items := body["data"].(map[string]any)["items"].([]any)
	var sawTransfer, sawDay bool
	for _, it := range items {
		m := it.(map[string]any)
		if m["description"] == "Transfer from earnings" && m["type"] == "deposit" && m["amount"] == 0.02 {
			sawTransfer = true
		}
		if d, _ := m["description"].(string); strings.HasPrefix(d, "Earnings · Math Tutor · ") && m["type"] == "income" && m["amount"] == 0.03 {
			sawDay = true
		}
	}
	if !sawTransfer || !sawDay {
		t.Fatalf("history %v", items)
	}
	checkLedger(t, app)
}
