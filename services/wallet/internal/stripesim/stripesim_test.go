package stripesim

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// The simulator is driven with stripe-go itself, so it must accept exactly
// what the SDK sends.
func TestPayDeliversSignedWebhookAndCancelRedirects(t *testing.T) {
	const secret = "whsec_sim_test"
	got := make(chan stripe.Event, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := webhook.ConstructEventWithOptions(body, r.Header.Get("Stripe-Signature"), secret,
			webhook.ConstructEventOptions{Tolerance: 300 * time.Second})
		if err != nil {
			t.Errorf("signature: %v", err)
			w.WriteHeader(400)
			return
		}
		got <- ev
	}))
	defer hook.Close()

	var sim *Sim
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sim.ServeHTTP(w, r) }))
	defer srv.Close()
	sim = New(Config{PublicURL: srv.URL, WebhookURL: hook.URL, WebhookSecret: secret, SecretKey: "sk_test_sim"})

	backend := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{URL: stripe.String(srv.URL),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}})
	sc := stripe.NewClient("sk_test_sim", stripe.WithBackends(&stripe.Backends{API: backend}))
	params := &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency: stripe.String("usd"), UnitAmount: stripe.Int64(1999),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Top-up")},
			},
			Quantity: stripe.Int64(1),
		}},
		SuccessURL:        stripe.String("http://localhost:8080/wallet?success=true&session_id={CHECKOUT_SESSION_ID}"),
		CancelURL:         stripe.String("http://localhost:8080/wallet?canceled=true"),
		ClientReferenceID: stripe.String("uid-1"),
		Metadata:          map[string]string{"uid": "uid-1", "amount_cents": "1999"},
	}
	params.SetIdempotencyKey("key-1")
	cs, err := sc.V1CheckoutSessions.Create(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cs.ID, "cs_test_") || cs.URL != srv.URL+"/pay/"+cs.ID || cs.AmountTotal != 1999 || cs.Status != "open" || cs.Metadata["uid"] != "uid-1" {
		t.Fatalf("session %+v", cs)
	}
	// Idempotent replay returns the same session.
	again, err := sc.V1CheckoutSessions.Create(context.Background(), params)
	if err != nil || again.ID != cs.ID {
		t.Fatalf("replay %v %v", again, err)
	}
	if _, err := stripe.NewClient("sk_wrong", stripe.WithBackends(&stripe.Backends{API: backend})).V1CheckoutSessions.Create(context.Background(), &stripe.CheckoutSessionCreateParams{}); err == nil {
		t.Fatal("wrong key accepted")
	}

	page, _ := http.Get(cs.URL)
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	for _, want := range []string{"$19.99", ">Pay</button>", ">Cancel</button>"} {
		if !strings.Contains(string(html), want) {
			t.Fatalf("page lacks %q", want)
		}
	}

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(cs.URL+"/cancel", "application/x-www-form-urlencoded", nil)
	if err != nil || resp.StatusCode != 303 || resp.Header.Get("Location") != "http://localhost:8080/wallet?canceled=true" {
		t.Fatalf("cancel: %v %v", resp, err)
	}
	resp, err = noRedirect.Post(cs.URL+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil || resp.StatusCode != 303 || resp.Header.Get("Location") != "http://localhost:8080/wallet?success=true&session_id="+cs.ID {
		t.Fatalf("pay: %v %v", resp, err)
	}
	select {
	case ev := <-got:
		var obj map[string]any
		_ = json.Unmarshal(ev.Data.Raw, &obj)
		if ev.Type != "checkout.session.completed" || obj["id"] != cs.ID || obj["payment_status"] != "paid" || obj["client_reference_id"] != "uid-1" {
			t.Fatalf("event %s %v", ev.Type, obj)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no webhook")
	}
	retrieved, err := sc.V1CheckoutSessions.Retrieve(context.Background(), cs.ID, nil)
	if err != nil || retrieved.Status != "complete" || retrieved.PaymentStatus != "paid" {
		t.Fatalf("retrieve %+v %v", retrieved, err)
	}
}
