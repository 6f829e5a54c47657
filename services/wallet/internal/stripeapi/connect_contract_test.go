package stripeapi

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"github.com/agentic-app/agentic/services/wallet/internal/stripesim"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// TestConnectRequestsAgainstStripeMock sends the payout requests (Express
// account, onboarding Account Link, Transfer) to stripe-mock, which
// validates every parameter against Stripe's OpenAPI spec.
func TestConnectRequestsAgainstStripeMock(t *testing.T) {
	base := startStripeMock(t)
	c := New(Config{APIBase: base, SecretKey: "sk_test_123", WebhookSecret: "whsec_x", MaxNetworkRetries: stripe.Int64(0)})
	ctx := context.Background()
	acct, err := c.CreateExpressAccount(ctx, wallet.ConnectAccountParams{UID: "uid-1", Email: "ada@example.com", IdempotencyKey: "connect-account-uid-1"})
	if err != nil || !strings.HasPrefix(acct, "acct_") {
		t.Fatalf("stripe-mock rejected the account: %v %v", acct, err)
	}
	if _, err := c.CreateAccountLink(ctx, acct, "http://localhost:8080/dashboard/earnings?payouts=refresh",
		"http://localhost:8080/dashboard/earnings?payouts=return"); err != nil {
		t.Fatalf("stripe-mock rejected the account link: %v", err)
	}
	tr, err := c.CreateTransfer(ctx, wallet.ConnectTransferParams{PayoutID: "0190f0b8-0000-7000-8000-000000000001", UID: "uid-1",
		AccountID: acct, AmountCents: 1500, IdempotencyKey: "payout-0190f0b8-0000-7000-8000-000000000001"})
	if err != nil || !strings.HasPrefix(tr, "tr_") {
		t.Fatalf("stripe-mock rejected the transfer: %v %v", tr, err)
	}
	bad := TransferParams(wallet.ConnectTransferParams{AccountID: acct, AmountCents: 1500})
	bad.AddExtra("not_a_real_param", "1")
	if _, err := c.sc.V1Transfers.Create(ctx, bad); err == nil {
		t.Fatal("stripe-mock accepted an unknown parameter")
	}
}

// TestConnectFlowAgainstSimulator: the same client against the simulator:
// onboarding page (Cancel, Complete) with a signed account.updated, a
// Transfer with transfer.created, the magic failing amount, a reversal.
func TestConnectFlowAgainstSimulator(t *testing.T) {
	const secret = "whsec_connect"
	var (
		mu  sync.Mutex
		got []wallet.WebhookEvent
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := ParseWebhook(body, r.Header.Get("Stripe-Signature"), secret)
		if err != nil {
			t.Errorf("webhook: %v", err)
			w.WriteHeader(400)
			return
		}
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}))
	defer hook.Close()
	var sim *stripesim.Sim
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	sim = stripesim.New(stripesim.Config{PublicURL: base, WebhookURL: hook.URL, WebhookSecret: secret, SecretKey: "sk_test_sim"})
	srv := &http.Server{Handler: sim}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	c := New(Config{APIBase: base, SecretKey: "sk_test_sim", MaxNetworkRetries: stripe.Int64(0)})
	ctx := context.Background()
	waitFor := func(typ string) wallet.WebhookEvent {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			for i, ev := range got {
				if ev.Type == typ {
					got = append(got[:i], got[i+1:]...)
					mu.Unlock()
					return ev
				}
			}
			mu.Unlock()
		}
		t.Fatalf("no %s webhook", typ)
		return wallet.WebhookEvent{}
	}

	acct, err := c.CreateExpressAccount(ctx, wallet.ConnectAccountParams{UID: "u1", Email: "u1@example.com", IdempotencyKey: "connect-account-u1"})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.CreateExpressAccount(ctx, wallet.ConnectAccountParams{UID: "u1", IdempotencyKey: "connect-account-u1"}); again != acct {
		t.Fatalf("idempotent account: %s %s", again, acct)
	}
	// A transfer before onboarding is refused.
	if _, err := c.CreateTransfer(ctx, wallet.ConnectTransferParams{PayoutID: "p0", AccountID: acct, AmountCents: 1000, IdempotencyKey: "k0"}); !errors.Is(err, wallet.ErrTransferRefused) {
		t.Fatalf("transfer to an account without payouts: %v, want a definitive refusal", err)
	}
	url, err := c.CreateAccountLink(ctx, acct, "http://app.test/dashboard/earnings?payouts=refresh", "http://app.test/dashboard/earnings?payouts=return")
	if err != nil || !strings.HasPrefix(url, base+"/connect/onboarding/") {
		t.Fatalf("link %q %v", url, err)
	}
	page, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	for _, want := range []string{"Stripe simulator", ">Complete</button>", ">Cancel</button>", `aria-label="Complete onboarding"`} {
		if !strings.Contains(string(html), want) {
			t.Fatalf("page lacks %q", want)
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(url+"/cancel", "application/x-www-form-urlencoded", nil)
	if err != nil || resp.StatusCode != 303 || resp.Header.Get("Location") != "http://app.test/dashboard/earnings?payouts=refresh" {
		t.Fatalf("cancel: %v %v", resp, err)
	}
	resp, err = noRedirect.Post(url+"/complete", "application/x-www-form-urlencoded", nil)
	if err != nil || resp.StatusCode != 303 || resp.Header.Get("Location") != "http://app.test/dashboard/earnings?payouts=return" {
		t.Fatalf("complete: %v %v", resp, err)
	}
	ev := waitFor(wallet.EventAccountUpdated)
	if ev.Connect == nil || ev.Connect.AccountID != acct || !ev.Connect.PayoutsEnabled || ev.Connect.Metadata["uid"] != "u1" || ev.Connect.Created == 0 {
		t.Fatalf("account.updated %+v", ev.Connect)
	}
	if st, _ := wallet.AccountState(*ev.Connect); st != wallet.PayoutAccountEnabled {
		t.Fatalf("state %s", st)
	}

	params := wallet.ConnectTransferParams{PayoutID: "p1", UID: "u1", AccountID: acct, AmountCents: 1500, IdempotencyKey: "payout-p1"}
	tr, err := c.CreateTransfer(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.CreateTransfer(ctx, params); again != tr {
		t.Fatalf("idempotent transfer %s %s", again, tr)
	}
	ev = waitFor(wallet.EventTransferCreated)
	if ev.Connect.TransferID != tr || ev.Connect.Amount != 1500 || ev.Connect.Metadata[wallet.MetaPayoutID] != "p1" || ev.Connect.Destination != acct {
		t.Fatalf("transfer.created %+v", ev.Connect)
	}
	resp, err = http.Post(base+"/admin/transfers/"+tr+"/reverse", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reverse %v %v", resp, err)
	}
	ev = waitFor(wallet.EventTransferReversed)
	if !ev.Connect.Reversed || ev.Connect.AmountReversed != 1500 {
		t.Fatalf("transfer.reversed %+v", ev.Connect)
	}

	_, err = c.CreateTransfer(ctx, wallet.ConnectTransferParams{PayoutID: "p2", AccountID: acct, AmountCents: stripesim.FailingTransferCents, IdempotencyKey: "payout-p2"})
	var pe *wallet.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "insufficient available funds") || !errors.Is(err, wallet.ErrTransferRefused) {
		t.Fatalf("magic failure: %v", err)
	}
	sim.Wait()
}

// TestTransferErrorClassification: only a definitive 4xx refusal wraps
// wallet.ErrTransferRefused (the payout fails, its money returns); 429, 409,
// idempotency errors, 5xx, timeouts and connection errors are unknown
// outcomes (the payout stays in transit and is retried with the same key).
func TestTransferErrorClassification(t *testing.T) {
	type answer struct {
		status int
		body   string
	}
	cases := map[string]struct {
		answer  answer
		refused bool
	}{
		"balance_insufficient": {answer{400, `{"error":{"type":"invalid_request_error","code":"balance_insufficient","message":"You have insufficient available funds"}}`}, true},
		"no such destination":  {answer{400, `{"error":{"type":"invalid_request_error","message":"No such destination: 'acct_x'","param":"destination"}}`}, true},
		"bad key":              {answer{401, `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided"}}`}, true},
		"permission":           {answer{403, `{"error":{"type":"invalid_request_error","message":"The provided key does not have access"}}`}, true},
		"idempotency reuse":    {answer{400, `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters"}}`}, false},
		"in progress":          {answer{409, `{"error":{"type":"idempotency_error","message":"There is currently another in-progress request using this Stripe-Idempotency-Key"}}`}, false},
		"rate limited":         {answer{429, `{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests"}}`}, false},
		"lock timeout":         {answer{429, `{"error":{"type":"invalid_request_error","code":"lock_timeout","message":"lock timeout"}}`}, false},
		"server error":         {answer{500, `{"error":{"type":"api_error","message":"An unknown error occurred"}}`}, false},
		"bad gateway html":     {answer{502, `<html>Bad Gateway</html>`}, false},
		"unavailable":          {answer{503, ``}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.answer.status)
				_, _ = io.WriteString(w, tc.answer.body)
			}))
			defer srv.Close()
			c := New(Config{APIBase: srv.URL, SecretKey: "sk_test_x", MaxNetworkRetries: stripe.Int64(0)})
			_, err := c.CreateTransfer(context.Background(), wallet.ConnectTransferParams{PayoutID: "p", AccountID: "acct_x", AmountCents: 1000, IdempotencyKey: "payout-p"})
			var pe *wallet.ProviderError
			if err == nil || !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *wallet.ProviderError", err)
			}
			if got := errors.Is(err, wallet.ErrTransferRefused); got != tc.refused {
				t.Fatalf("refused = %v, want %v (%v)", got, tc.refused, err)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
		defer srv.Close()
		defer close(release)
		c := New(Config{APIBase: srv.URL, SecretKey: "sk_test_x", MaxNetworkRetries: stripe.Int64(0),
			HTTPClient: &http.Client{Timeout: 100 * time.Millisecond}})
		_, err := c.CreateTransfer(context.Background(), wallet.ConnectTransferParams{PayoutID: "p", AccountID: "acct_x", AmountCents: 1000, IdempotencyKey: "payout-p"})
		if err == nil || errors.Is(err, wallet.ErrTransferRefused) {
			t.Fatalf("timeout: %v, want an unknown outcome", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		c := New(Config{APIBase: "http://" + freePort(t), SecretKey: "sk_test_x", MaxNetworkRetries: stripe.Int64(0)})
		_, err := c.CreateTransfer(context.Background(), wallet.ConnectTransferParams{PayoutID: "p", AccountID: "acct_x", AmountCents: 1000, IdempotencyKey: "payout-p"})
		if err == nil || errors.Is(err, wallet.ErrTransferRefused) {
			t.Fatalf("connection refused: %v, want an unknown outcome", err)
		}
	})
}
