package app

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// TestBillingSettingsHTTP: GET/PUT /api/user/billing-settings with their
// validation, and the balance view's spend-control fields.
func TestBillingSettingsHTTP(t *testing.T) {
	app := start(t, redisURL())
	uid := uniq("sam")
	tok := "token-" + uid
	url := app.http + "/api/user/billing-settings"

	code, body := call(t, "GET", url, tok, "")
	if code != 200 || body["success"] != true {
		t.Fatalf("get: %d %v", code, body)
	}
	d := body["data"].(map[string]any)
	ar := d["autoRecharge"].(map[string]any)
	if d["monthlyLimit"] != nil || d["lowBalanceThreshold"] != nil || ar["enabled"] != false || ar["amount"] != nil {
		t.Fatalf("defaults: %v", d)
	}
	for name, tc := range map[string]struct {
		body, code, field string
	}{
		"limit too small":        {`{"monthlyLimit":0.49}`, "invalid_settings", "monthlyLimit"},
		"limit too large":        {`{"monthlyLimit":10000.01}`, "invalid_settings", "monthlyLimit"},
		"threshold zero":         {`{"lowBalanceThreshold":0}`, "invalid_settings", "lowBalanceThreshold"},
		"fraction of a cent":     {`{"monthlyLimit":10.001}`, "invalid_settings", "monthlyLimit"},
		"negative amount":        {`{"autoRecharge":{"enabled":false,"amount":-5}}`, "invalid_settings", "autoRecharge.amount"},
		"enabled without amount": {`{"autoRecharge":{"enabled":true,"threshold":5}}`, "invalid_settings", "autoRecharge.amount"},
		"enabled without card":   {`{"autoRecharge":{"enabled":true,"threshold":5,"amount":20}}`, "no_saved_card", ""},
		"string amount":          {`{"monthlyLimit":"ten"}`, "invalid_json", "monthlyLimit"},
		"malformed":              {`{"monthlyLimit":`, "invalid_json", ""},
	} {
		code, body := call(t, "PUT", url, tok, tc.body)
		msg, _ := body["message"].(string)
		if code != 400 || body["error"] != tc.code || msg == "" || (tc.field != "" && !strings.Contains(msg, tc.field)) {
			t.Errorf("%s: %d %v", name, code, body)
		}
	}
	if code, _ := call(t, "PUT", url, "", `{}`); code != 401 {
		t.Fatalf("no token: %d", code)
	}

	code, body = call(t, "PUT", url, tok, `{"monthlyLimit":2.5,"lowBalanceThreshold":1,"autoRecharge":{"enabled":false,"threshold":1,"amount":20}}`)
	if code != 200 {
		t.Fatalf("put: %d %v", code, body)
	}
	d = body["data"].(map[string]any)
	if d["monthlyLimit"] != 2.5 || d["lowBalanceThreshold"] != 1.0 || d["autoRecharge"].(map[string]any)["amount"] != 20.0 {
		t.Fatalf("put answer: %v", d)
	}

	// The balance view: fund $3, spend $2.10 (84% of $2.50) via Reserve+Capture.
	c := walletClient(t, app)
	ctx := context.Background()
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 3_000_000, IdempotencyKey: "fund"}); err != nil {
		t.Fatal(err)
	}
	b := balances(t, app, uid) // cached now: the capture must drop it
	if b["monthUsage"] != 0.0 || b["limitWarning"] != nil || b["lowBalance"] != false || b["debt"] != 0.0 {
		t.Fatalf("balance before: %v", b)
	}
	h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 2_100_000, IdempotencyKey: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: 2_100_000, Description: "answer"}); err != nil {
		t.Fatal(err)
	}
	b = balances(t, app, uid)
	if b["monthUsage"] != 2.1 || b["limitWarning"] != "limit_80" || b["lowBalance"] != true || b["available"] != 0.9 ||
		b["monthlyLimit"] != 2.5 || b["lowBalanceThreshold"] != 1.0 {
		t.Fatalf("balance after: %v", b)
	}
	// Over the limit: FAILED_PRECONDITION monthly_limit_reached, and the view says limit_100.
	_, err = c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 500_000, IdempotencyKey: "a2"})
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "monthly_limit_reached" || reason(err) != "monthly_limit_reached" {
		t.Fatalf("over the limit: %v (%s)", err, reason(err))
	}
	if b = balances(t, app, uid); b["limitWarning"] != "limit_100" {
		t.Fatalf("after the refusal: %v", b)
	}
	ar = b["autoRecharge"].(map[string]any)
	if ar["hasCard"] != false || ar["cardLabel"] != nil || ar["inFlight"] != false || ar["amount"] != 20.0 {
		t.Fatalf("autoRecharge: %v", ar)
	}
	checkLedger(t, app)
}
