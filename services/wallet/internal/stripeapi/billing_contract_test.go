package stripeapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/agentic-app/agentic/services/wallet/internal/stripesim"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// TestBillingRequestsAgainstStripeMock sends the wallet's auto-recharge and
// reconciliation requests to stripe-mock, which validates every parameter
// against Stripe's OpenAPI spec: customer creation, Checkout in setup mode,
// the SetupIntent read with payment_method expanded, the off-session
// PaymentIntent, and the lists filtered by creation time.
func TestBillingRequestsAgainstStripeMock(t *testing.T) {
	base := startStripeMock(t)
	c := New(Config{APIBase: base, SecretKey: "sk_test_123", WebhookSecret: "whsec_x", MaxNetworkRetries: stripe.Int64(0)})
	ctx := context.Background()
	cus, err := c.CreateCustomer(ctx, "uid-1", "ada@example.com", "customer-uid-1")
	if err != nil || !strings.HasPrefix(cus, "cus_") {
		t.Fatalf("stripe-mock rejected the customer: %v %v", cus, err)
	}
	s, err := c.CreateSetupSession(ctx, wallet.SetupParams{UID: "uid-1", CustomerID: cus,
		SuccessURL: "http://localhost:8080/dashboard/wallet?setup=success", CancelURL: "http://localhost:8080/dashboard/wallet?setup=canceled",
		IdempotencyKey: "setup-1"})
	if err != nil || !strings.HasPrefix(s.ID, "cs_") {
		t.Fatalf("stripe-mock rejected the setup session: %v %v", s, err)
	}
	if _, err := c.RetrieveSetupIntent(ctx, "seti_123"); err != nil {
		t.Fatalf("stripe-mock rejected the setup intent read: %v", err)
	}
	res, err := c.CreateOffSessionPayment(ctx, wallet.OffSessionParams{UID: "uid-1", RechargeID: "0190f0b8-0000-7000-8000-000000000001",
		CustomerID: cus, PaymentMethodID: "pm_123", AmountCents: 2000, IdempotencyKey: "recharge-1"})
	if err != nil || !strings.HasPrefix(res.PaymentIntentID, "pi_") {
		t.Fatalf("stripe-mock rejected the off-session payment: %+v %v", res, err)
	}
	since := time.Now().Add(-72 * time.Hour)
	if _, err := c.ListCheckoutSessions(ctx, since); err != nil {
		t.Fatalf("stripe-mock rejected the session list: %v", err)
	}
	if _, err := c.ListPaymentIntents(ctx, since); err != nil {
		t.Fatalf("stripe-mock rejected the payment intent list: %v", err)
	}
	// Validation is active for these too.
	bad := OffSessionParams(wallet.OffSessionParams{CustomerID: cus, PaymentMethodID: "pm_123", AmountCents: 2000})
	bad.AddExtra("not_a_real_param", "1")
	if _, err := c.sc.V1PaymentIntents.Create(ctx, bad); err == nil {
		t.Fatal("stripe-mock accepted an unknown parameter")
	}
}

// TestBillingFlowsAgainstSimulator: the same client against the simulator:
// setup mode saves a card, off-session payments succeed or are declined per
// card, lists page through everything created.
func TestBillingFlowsAgainstSimulator(t *testing.T) {
	sim := stripesim.New(stripesim.Config{PublicURL: "http://127.0.0.1:8110", SecretKey: "sk_test_sim"})
	srv := &http.Server{Handler: sim}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	base := "http://" + ln.Addr().String()
	c := New(Config{APIBase: base, SecretKey: "sk_test_sim", MaxNetworkRetries: stripe.Int64(0)})
	ctx := context.Background()

	cus, err := c.CreateCustomer(ctx, "u1", "u1@example.com", "customer-u1")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.CreateCustomer(ctx, "u1", "u1@example.com", "customer-u1"); again != cus {
		t.Fatalf("customer idempotency: %s vs %s", again, cus)
	}
	card := func(decline bool) wallet.SavedCard {
		s, err := c.CreateSetupSession(ctx, wallet.SetupParams{UID: "u1", CustomerID: cus, SuccessURL: "http://x/ok", CancelURL: "http://x/no"})
		if err != nil {
			t.Fatal(err)
		}
		form := "card=ok"
		if decline {
			form = "card=decline"
		}
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noRedirect.Post(base+"/pay/"+s.ID+"/save", "application/x-www-form-urlencoded", strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cs, _ := sim.Session(s.ID)
		if cs.Status != "complete" || cs.SetupIntent == nil || cs.Mode != "setup" {
			t.Fatalf("setup session %+v", cs)
		}
		saved, err := c.RetrieveSetupIntent(ctx, *cs.SetupIntent)
		if err != nil || saved.CustomerID != cus || !strings.HasPrefix(saved.PaymentMethodID, "pm_") {
			t.Fatalf("saved %+v %v", saved, err)
		}
		return saved
	}
	good, bad := card(false), card(true)
	if good.Label != "Visa •••• 4242" || bad.Label != "Visa •••• 0341" {
		t.Fatalf("labels %q %q", good.Label, bad.Label)
	}
	ok, err := c.CreateOffSessionPayment(ctx, wallet.OffSessionParams{UID: "u1", RechargeID: "r1", CustomerID: cus,
		PaymentMethodID: good.PaymentMethodID, AmountCents: 2000, IdempotencyKey: "recharge-r1"})
	if err != nil || ok.Declined || ok.Status != "succeeded" {
		t.Fatalf("good card: %+v %v", ok, err)
	}
	if again, _ := c.CreateOffSessionPayment(ctx, wallet.OffSessionParams{UID: "u1", RechargeID: "r1", CustomerID: cus,
		PaymentMethodID: good.PaymentMethodID, AmountCents: 2000, IdempotencyKey: "recharge-r1"}); again.PaymentIntentID != ok.PaymentIntentID {
		t.Fatalf("payment idempotency: %+v", again)
	}
	no, err := c.CreateOffSessionPayment(ctx, wallet.OffSessionParams{UID: "u1", RechargeID: "r2", CustomerID: cus,
		PaymentMethodID: bad.PaymentMethodID, AmountCents: 2000, IdempotencyKey: "recharge-r2"})
	if err != nil || !no.Declined || no.FailureMessage != "Your card was declined." || !strings.HasPrefix(no.PaymentIntentID, "pi_") {
		t.Fatalf("declining card: %+v %v", no, err)
	}
	// Not a card error: a ProviderError (the worker retries later).
	_, err = c.CreateOffSessionPayment(ctx, wallet.OffSessionParams{UID: "u1", RechargeID: "r3", CustomerID: "cus_nope",
		PaymentMethodID: good.PaymentMethodID, AmountCents: 2000})
	var pe *wallet.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("unknown customer: %v", err)
	}
	pis, err := c.ListPaymentIntents(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(pis) != 2 {
		t.Fatalf("payment intents %+v %v", pis, err)
	}
	for _, ev := range pis {
		switch ev.PaymentIntentID {
		case ok.PaymentIntentID:
			if ev.Type != wallet.EventPaymentIntentSucceeded || ev.Metadata[wallet.MetaRechargeID] != "r1" || ev.ChargeID == "" {
				t.Fatalf("succeeded in the list: %+v", ev)
			}
		case no.PaymentIntentID:
			if ev.Type != wallet.EventPaymentIntentPaymentFailed || ev.FailureMessage != "Your card was declined." {
				t.Fatalf("declined in the list: %+v", ev)
			}
		}
	}
	// 120 sessions page through (100 per page).
	for range 118 {
		if _, err := c.CreateCheckoutSession(ctx, wallet.CheckoutParams{UID: "u1", AmountCents: 100, Currency: "usd",
			SuccessURL: "http://x/ok", CancelURL: "http://x/no"}); err != nil {
			t.Fatal(err)
		}
	}
	sessions, err := c.ListCheckoutSessions(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(sessions) != 120 {
		t.Fatalf("%d sessions listed, %v", len(sessions), err)
	}
	if none, err := c.ListCheckoutSessions(ctx, time.Now().Add(time.Hour)); err != nil || len(none) != 0 {
		t.Fatalf("created filter: %d, %v", len(none), err)
	}
}

// TestParseWebhookObjects reads the fields of charges, disputes and
// PaymentIntents (ids given as strings or expanded objects).
func TestParseWebhookObjects(t *testing.T) {
	const secret = "whsec_parse"
	parse := func(typ string, obj any) wallet.WebhookEvent {
		t.Helper()
		payload, _ := stripesim.Event(typ, obj)
		ev, err := ParseWebhook(payload, stripesim.Sign(payload, secret, time.Now()), secret)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	ch := parse("charge.refunded", stripesim.Charge{ID: "ch_1", Object: "charge", Amount: 2000, AmountRefunded: 800, PaymentIntent: "pi_1"})
	if ch.ChargeID != "ch_1" || ch.AmountRefunded != 800 || ch.ChargeAmount != 2000 || ch.PaymentIntentID != "pi_1" {
		t.Fatalf("charge %+v", ch)
	}
	dp := parse("charge.dispute.closed", map[string]any{"id": "dp_1", "object": "dispute", "amount": 500, "status": "won",
		"charge": map[string]any{"id": "ch_2", "object": "charge"}, "payment_intent": "pi_2"})
	if dp.DisputeID != "dp_1" || dp.DisputeStatus != "won" || dp.DisputeAmount != 500 || dp.ChargeID != "ch_2" || dp.PaymentIntentID != "pi_2" {
		t.Fatalf("dispute %+v", dp)
	}
	pi := parse("payment_intent.payment_failed", map[string]any{"id": "pi_3", "object": "payment_intent", "amount": 2000,
		"status": "requires_payment_method", "metadata": map[string]string{"recharge_id": "r"}, "latest_charge": "ch_3",
		"last_payment_error": map[string]any{"message": "Your card was declined.", "code": "card_declined"}})
	if pi.PaymentIntentID != "pi_3" || pi.PaymentIntentStatus != "requires_payment_method" || pi.Metadata["recharge_id"] != "r" ||
		pi.ChargeID != "ch_3" || pi.FailureMessage != "Your card was declined." {
		t.Fatalf("payment intent %+v", pi)
	}
	cs := parse("checkout.session.completed", map[string]any{"id": "cs_1", "object": "checkout.session", "mode": "setup",
		"setup_intent": "seti_1", "customer": "cus_1", "payment_intent": nil, "status": "complete"})
	if cs.Mode != "setup" || cs.SetupIntentID != "seti_1" || cs.CustomerID != "cus_1" || cs.PaymentIntentID != "" {
		t.Fatalf("setup session %+v", cs)
	}
}
