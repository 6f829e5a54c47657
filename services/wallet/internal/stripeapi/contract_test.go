package stripeapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/agentic-app/agentic/services/wallet/internal/stripesim"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// stripeMockBin finds stripe-mock: $STRIPE_MOCK_BIN, <repo>/bin/stripe-mock, or PATH.
func stripeMockBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STRIPE_MOCK_BIN"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("STRIPE_MOCK_BIN=%s: %v (run services/wallet/scripts/install-stripe-mock.sh)", p, err)
		}
		return p
	}
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			p := filepath.Join(d, "bin", "stripe-mock")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			break
		}
	}
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p
	}
	t.Fatal("stripe-mock not found: run services/wallet/scripts/install-stripe-mock.sh (installs it into bin/stripe-mock), or set STRIPE_MOCK_BIN")
	return ""
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startStripeMock runs stripe-mock on loopback only (both listeners bound to
// 127.0.0.1) and returns its HTTP origin.
func startStripeMock(t *testing.T) string {
	t.Helper()
	bin := stripeMockBin(t)
	httpAddr, httpsAddr := freePort(t), freePort(t)
	cmd := exec.Command(bin, "-http-addr", httpAddr, "-https-addr", httpsAddr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start stripe-mock: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	base := "http://" + httpAddr
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", httpAddr, 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("stripe-mock did not start: %v\n%s", err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func params() wallet.CheckoutParams {
	return wallet.CheckoutParams{
		UID: "uid-123", Email: "ada@example.com", AmountCents: 1250, Currency: "usd",
		SuccessURL:     "http://localhost:8080/wallet?success=true&session_id={CHECKOUT_SESSION_ID}",
		CancelURL:      "http://localhost:8080/wallet?canceled=true",
		IdempotencyKey: "checkout-test-1",
		Metadata:       map[string]string{"uid": "uid-123", "amount_cents": "1250"},
	}
}

// TestCheckoutAgainstStripeMock sends the wallet's real request to
// stripe-mock, which validates every parameter against Stripe's OpenAPI
// spec: a misspelt or mistyped parameter fails here.
func TestCheckoutAgainstStripeMock(t *testing.T) {
	base := startStripeMock(t)
	c := New(Config{APIBase: base, SecretKey: "sk_test_123", PublishableKey: "pk_test_123", WebhookSecret: "whsec_x",
		MaxNetworkRetries: stripe.Int64(0)})
	s, err := c.CreateCheckoutSession(context.Background(), params())
	if err != nil {
		t.Fatalf("stripe-mock rejected the checkout request: %v", err)
	}
	if !strings.HasPrefix(s.ID, "cs_") {
		t.Fatalf("session %+v", s)
	}

	// A request stripe-mock must reject proves the validation is active.
	bad := Params(params())
	bad.AddExtra("not_a_real_param", "5")
	if _, err := c.sc.V1CheckoutSessions.Create(context.Background(), bad); err == nil {
		t.Fatal("stripe-mock accepted an unknown parameter: validation is not active")
	}
}

// TestCheckoutAgainstSimulatorAndErrors checks the same request against the
// dev simulator and maps provider failures to ProviderError (HTTP 502).
func TestCheckoutAgainstSimulatorAndErrors(t *testing.T) {
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
	s, err := c.CreateCheckoutSession(context.Background(), params())
	if err != nil {
		t.Fatal(err)
	}
	cs, ok := sim.Session(s.ID)
	if !ok || cs.AmountTotal != 1250 || cs.ClientReferenceID != "uid-123" || cs.Metadata["amount_cents"] != "1250" ||
		cs.SuccessURL != params().SuccessURL || cs.CancelURL != params().CancelURL || cs.ProductName != ProductName || cs.Mode != "payment" {
		t.Fatalf("recorded at the simulator: %+v", cs)
	}
	// Same idempotency key → same session.
	again, err := c.CreateCheckoutSession(context.Background(), params())
	if err != nil || again.ID != s.ID {
		t.Fatalf("idempotent replay: %v %v", again, err)
	}

	wrong := New(Config{APIBase: base, SecretKey: "sk_test_wrong", MaxNetworkRetries: stripe.Int64(0)})
	_, err = wrong.CreateCheckoutSession(context.Background(), params())
	var pe *wallet.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "Invalid API Key") {
		t.Fatalf("auth failure: %v", err)
	}
	down := New(Config{APIBase: "http://" + freePort(t), SecretKey: "sk", MaxNetworkRetries: stripe.Int64(0)})
	if _, err := down.CreateCheckoutSession(context.Background(), params()); !errors.As(err, &pe) {
		t.Fatalf("network failure: %v", err)
	}
}

func TestParseWebhook(t *testing.T) {
	const secret = "whsec_parse"
	cs := stripesim.Session{ID: "cs_test_1", Object: "checkout.session", AmountTotal: 500, Currency: "usd",
		PaymentStatus: "paid", Status: "complete", ClientReferenceID: "u1"}
	payload, id := stripesim.Event("checkout.session.completed", cs)
	ev, err := ParseWebhook(payload, stripesim.Sign(payload, secret, time.Now()), secret)
	if err != nil || ev.ID != id || ev.SessionID != "cs_test_1" || ev.PaymentStatus != "paid" || ev.AmountTotal != 500 || ev.ClientReferenceID != "u1" {
		t.Fatalf("%+v %v", ev, err)
	}
	// A clock a little ahead (within the tolerance) is fine.
	if _, err := ParseWebhook(payload, stripesim.Sign(payload, secret, time.Now().Add(2*time.Minute)), secret); err != nil {
		t.Fatalf("slightly ahead: %v", err)
	}
	// Another API version is accepted (IgnoreAPIVersionMismatch).
	old := []byte(strings.Replace(string(payload), stripe.APIVersion, "2020-08-27", 1))
	if _, err := ParseWebhook(old, stripesim.Sign(old, secret, time.Now()), secret); err != nil {
		t.Fatalf("old api version: %v", err)
	}
	for name, hdr := range map[string]string{
		"stale":  stripesim.Sign(payload, secret, time.Now().Add(-6*time.Minute)),
		"future": stripesim.Sign(payload, secret, time.Now().Add(6*time.Minute)),
		"wrong":  stripesim.Sign(payload, "whsec_other", time.Now()),
		"empty":  "",
		"broken": "t=x,v1=zz",
	} {
		if _, err := ParseWebhook(payload, hdr, secret); !errors.Is(err, wallet.ErrBadSignature) {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
