package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// saveCard goes through POST /api/stripe/setup-session and the simulator's
// hosted page ("Save card" or "Save declining card").
func saveCard(t *testing.T, app running, uid string, declining bool) {
	t.Helper()
	code, body := call(t, "POST", app.http+"/api/stripe/setup-session", "token-"+uid, "")
	if code != 200 || body["success"] != true {
		t.Fatalf("setup-session: %d %v", code, body)
	}
	d := body["data"].(map[string]any)
	pageURL, sid := d["url"].(string), d["sessionId"].(string)
	if !strings.HasPrefix(pageURL, app.simURL+"/pay/cs_test_") || !strings.HasSuffix(pageURL, sid) {
		t.Fatalf("setup session %v", d)
	}
	card := "ok"
	if declining {
		card = "decline"
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(pageURL+"/save", url.Values{"card": {card}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "http://localhost:8080/dashboard/wallet?setup=success" {
		t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func enableAutoRecharge(t *testing.T, app running, uid string, threshold, amount float64) {
	t.Helper()
	code, body := call(t, "PUT", app.http+"/api/user/billing-settings", "token-"+uid,
		fmt.Sprintf(`{"monthlyLimit":null,"lowBalanceThreshold":null,"autoRecharge":{"enabled":true,"threshold":%v,"amount":%v}}`, threshold, amount))
	if code != 200 {
		t.Fatalf("enable: %d %v", code, body)
	}
}

// answers runs n concurrent answers (Reserve + Capture of micros) over gRPC.
func answers(t *testing.T, app running, uid, prefix string, n int, micros int64) {
	t.Helper()
	c := walletClient(t, app)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			h, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: micros, IdempotencyKey: fmt.Sprintf("%s-%d", prefix, i)})
			if err == nil {
				_, err = c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetHold().GetId(), AmountMicros: micros, Description: "answer"})
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func rechargeCount(t *testing.T, app running, uid, status string) int {
	t.Helper()
	pool, err := database.Connect(context.Background(), app.dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM recharges WHERE uid = $1 AND ($2 = '' OR status = $2)`, uid, status).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAutoRechargeThroughSimulator: a card saved through Checkout in setup
// mode; 100 concurrent answers take the balance across the threshold; one
// off-session PaymentIntent is made and its webhook credits the wallet once.
func TestAutoRechargeThroughSimulator(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) { c.RechargeInterval = 200 * time.Millisecond })
	uid := uniq("vera")
	saveCard(t, app, uid, false)
	ar := balances(t, app, uid)["autoRecharge"].(map[string]any)
	if ar["hasCard"] != true || ar["cardLabel"] != "Visa •••• 4242" || ar["enabled"] != false {
		t.Fatalf("after saving: %v", ar)
	}
	enableAutoRecharge(t, app, uid, 5, 20)
	_, payURL := checkout(t, app, uid, 600)
	payHosted(t, payURL)

	answers(t, app, uid, "a", 100, 20_000) // $2 in all: $6 → $4, below $5
	testwait.Until(t, "the recharge to be credited", func() bool { return balance(t, app, uid) == 24 }, waitOpts...)
	if n := rechargeCount(t, app, uid, ""); n != 1 {
		t.Fatalf("%d recharges, want 1", n)
	}
	if n := rechargeCount(t, app, uid, "succeeded"); n != 1 {
		t.Fatalf("recharge not succeeded")
	}
	code, body := call(t, "GET", app.http+"/api/user/transactions?limit=100", "token-"+uid, "")
	deposits := 0
	for _, it := range body["data"].(map[string]any)["items"].([]any) {
		m := it.(map[string]any)
		if m["type"] == "deposit" && m["description"] == "Auto-recharge via Stripe" && m["amount"] == 20.0 {
			deposits++
		}
	}
	if code != 200 || deposits != 1 {
		t.Fatalf("history has %d auto-recharge deposits", deposits)
	}
	if ar := balances(t, app, uid)["autoRecharge"].(map[string]any); ar["inFlight"] != false || ar["lastFailure"] != nil {
		t.Fatalf("after the recharge: %v", ar)
	}
	checkLedger(t, app)
}

// TestDeclinedCardThreeTimesTurnsAutoRechargeOff: the simulator's declining
// card; each crossing makes one attempt (declined: 402 from Stripe, then the
// payment_failed webhook, counted once); the third turns auto-recharge off
// with a visible reason.
func TestDeclinedCardThreeTimesTurnsAutoRechargeOff(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) { c.RechargeInterval = 200 * time.Millisecond })
	uid := uniq("walt")
	saveCard(t, app, uid, true)
	if ar := balances(t, app, uid)["autoRecharge"].(map[string]any); ar["cardLabel"] != "Visa •••• 0341" {
		t.Fatalf("declining card: %v", ar)
	}
	enableAutoRecharge(t, app, uid, 50, 20)
	_, payURL := checkout(t, app, uid, 1000)
	payHosted(t, payURL)
	for i := 1; i <= 3; i++ {
		answers(t, app, uid, fmt.Sprintf("d%d", i), 1, 10_000)
		testwait.Until(t, fmt.Sprintf("decline %d", i), func() bool { return rechargeCount(t, app, uid, "failed") == i }, waitOpts...)
	}
	ar := balances(t, app, uid)["autoRecharge"].(map[string]any)
	if ar["enabled"] != false || ar["disabledReason"] == nil || !strings.Contains(ar["disabledReason"].(string), "3 declined") ||
		ar["lastFailure"] != "Your card was declined." || ar["inFlight"] != false {
		t.Fatalf("after three declines: %v", ar)
	}
	answers(t, app, uid, "after", 1, 10_000)
	time.Sleep(300 * time.Millisecond)
	if n := rechargeCount(t, app, uid, ""); n != 3 {
		t.Fatalf("%d recharges after auto-recharge was turned off, want 3", n)
	}
	if b := balance(t, app, uid); b != 9.96 {
		t.Fatalf("balance %v: a declined recharge credited money", b)
	}
	checkLedger(t, app)
}
