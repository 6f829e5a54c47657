package app

import (
	"context"
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// payHosted presses Pay on the simulator's hosted page.
func payHosted(t *testing.T, payURL string) {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(payURL+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("pay: %d", resp.StatusCode)
	}
}

// admin calls a simulator admin route (JSON) and returns its answer.
func admin(t *testing.T, app running, path, body string) map[string]any {
	t.Helper()
	code, out := call(t, "POST", app.simURL+path, "", body, "Content-Type", "application/json")
	if code != 200 {
		t.Fatalf("%s: %d %v", path, code, out)
	}
	return out
}

func debtAndBalance(t *testing.T, app running, uid string) (float64, float64) {
	t.Helper()
	b := balances(t, app, uid)
	return b["balance"].(float64), b["debt"].(float64)
}

// TestRefundsAndDisputesThroughSimulator drives refunds and disputes from the
// simulator's admin calls: each sends correctly signed webhooks, and the
// wallet takes the money back, makes debt of what was spent, refuses answers
// while in debt and repays it from the next top-up.
func TestRefundsAndDisputesThroughSimulator(t *testing.T) {
	app := start(t, redisURL())
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("rita")

	sid1, url1 := checkout(t, app, uid, 2000)
	payHosted(t, url1)
	if cs, _ := app.sim.Session(sid1); cs.PaymentIntent == nil {
		t.Fatal("paid session without a PaymentIntent")
	}
	h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 5_000_000, IdempotencyKey: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: 5_000_000, Description: "answer"}); err != nil {
		t.Fatal(err)
	}
	// Partial refund ($8), then the rest ($12) of which only $7 is left.
	admin(t, app, "/admin/refunds", `{"session":"`+sid1+`","amount":800}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 7 || debt != 0 {
		t.Fatalf("after the partial refund: balance %v debt %v", bal, debt)
	}
	admin(t, app, "/admin/refunds", `{"session":"`+sid1+`"}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 0 || debt != 5 {
		t.Fatalf("after the full refund: balance %v debt %v", bal, debt)
	}
	_, err = c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1, IdempotencyKey: "r2"})
	if status.Code(err) != codes.FailedPrecondition || reason(err) != "debt_outstanding" {
		t.Fatalf("reserve in debt: %v (%s)", err, reason(err))
	}
	// The history shows both refunds (the owed part is the balance's debt).
	code, body := call(t, "GET", app.http+"/api/user/transactions?limit=20", "token-"+uid, "")
	items := body["data"].(map[string]any)["items"].([]any)
	if code != 200 || len(items) != 4 || items[0].(map[string]any)["type"] != "refund" || items[0].(map[string]any)["amount"] != 7.0 ||
		items[1].(map[string]any)["amount"] != 8.0 {
		t.Fatalf("history: %d %v", code, items)
	}

	// The next top-up repays the debt first.
	sid2, url2 := checkout(t, app, uid, 1000)
	payHosted(t, url2)
	if bal, debt := debtAndBalance(t, app, uid); bal != 5 || debt != 0 {
		t.Fatalf("after repaying: balance %v debt %v", bal, debt)
	}
	// Dispute lost on the second payment: $10 withdrawn ($5 from the wallet, $5 debt), stays.
	d := admin(t, app, "/admin/disputes", `{"session":"`+sid2+`"}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 0 || debt != 5 {
		t.Fatalf("after the dispute: balance %v debt %v", bal, debt)
	}
	admin(t, app, "/admin/disputes/"+d["id"].(string)+"/close", `{"outcome":"lost"}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 0 || debt != 5 {
		t.Fatalf("after losing: balance %v debt %v", bal, debt)
	}
	// Dispute won on a third payment: withdrawn then reinstated.
	sid3, url3 := checkout(t, app, uid, 3000)
	payHosted(t, url3)
	if bal, debt := debtAndBalance(t, app, uid); bal != 25 || debt != 0 {
		t.Fatalf("after the third top-up: balance %v debt %v", bal, debt)
	}
	d = admin(t, app, "/admin/disputes", `{"session":"`+sid3+`"}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 0 || debt != 5 {
		t.Fatalf("after the second dispute: balance %v debt %v", bal, debt)
	}
	admin(t, app, "/admin/disputes/"+d["id"].(string)+"/close", `{"outcome":"won"}`)
	if bal, debt := debtAndBalance(t, app, uid); bal != 25 || debt != 0 {
		t.Fatalf("after winning: balance %v debt %v", bal, debt)
	}
	checkLedger(t, app)
}
