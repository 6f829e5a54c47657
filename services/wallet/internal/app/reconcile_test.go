package app

import (
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/testwait"
)

// TestReconciliationAppliesDroppedWebhooksOnce: with the simulator's
// webhooks dropped, reconciliation (Stripe's lists) credits a paid session,
// saves a card and credits an auto-recharge, each exactly once, and the
// webhook arriving late afterwards changes nothing.
func TestReconciliationAppliesDroppedWebhooksOnce(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) {
		c.ReconcileInterval = 150 * time.Millisecond
		c.RechargeInterval = 150 * time.Millisecond
	})
	uid := uniq("xena")
	app.sim.PauseWebhooks(true)

	sid, payURL := checkout(t, app, uid, 1250)
	payHosted(t, payURL)
	testwait.Until(t, "reconciliation to credit the session", func() bool { return balance(t, app, uid) == 12.5 }, waitOpts...)
	time.Sleep(600 * time.Millisecond) // several more rounds
	if b := balance(t, app, uid); b != 12.5 {
		t.Fatalf("balance %v after more reconciliation rounds", b)
	}
	// The webhook, late: nothing more.
	cs, _ := app.sim.Session(sid)
	if code, body, _ := sendEvent(t, app, "checkout.session.completed", cs, time.Now(), webhookSecret); code != 200 || body["outcome"] != "already_final" {
		t.Fatalf("late webhook: %d %v", code, body)
	}

	// A card saved while webhooks are dropped, and an auto-recharge whose
	// payment_intent.succeeded is dropped.
	saveCard(t, app, uid, false)
	testwait.Until(t, "reconciliation to save the card", func() bool {
		return balances(t, app, uid)["autoRecharge"].(map[string]any)["hasCard"] == true
	}, waitOpts...)
	enableAutoRecharge(t, app, uid, 12, 20)
	answers(t, app, uid, "x", 10, 100_000) // $1: $12.50 → $11.50, below $12
	testwait.Until(t, "reconciliation to credit the recharge", func() bool { return balance(t, app, uid) == 31.5 }, waitOpts...)
	time.Sleep(600 * time.Millisecond)
	if b := balance(t, app, uid); b != 31.5 {
		t.Fatalf("balance %v after more rounds", b)
	}
	if n := rechargeCount(t, app, uid, "succeeded"); n != 1 || rechargeCount(t, app, uid, "") != 1 {
		t.Fatalf("recharges: %d succeeded of %d", n, rechargeCount(t, app, uid, ""))
	}
	code, body := call(t, "GET", app.http+"/api/user/transactions?limit=100", "token-"+uid, "")
	deposits := 0
	for _, it := range body["data"].(map[string]any)["items"].([]any) {
		if it.(map[string]any)["type"] == "deposit" {
			deposits++
		}
	}
	if code != 200 || deposits != 2 {
		t.Fatalf("%d deposits in the history, want 2", deposits)
	}
	checkLedger(t, app)
}
