package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
	"github.com/agentic-app/agentic/services/wallet/internal/stripesim"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

const webhookSecret = "whsec_test_secret"

type running struct {
	http    string
	grpc    string
	dbURL   string
	brokers []string
	sim     *stripesim.Sim
	simURL  string
	setSim  func(http.Handler)
}

func redisURL() string { return "redis://127.0.0.1:6379/0" }

// uniq makes user ids unique per run (the Redis server is shared).
func uniq(name string) string { return fmt.Sprintf("%s-%d", name, time.Now().UnixNano()) }

func start(t testing.TB, redis string, opts ...func(*Config)) running {
	t.Helper()
	dbURL := dbtest.NewURL(t, "wallet")
	brokers := eventstest.StartKafka(t)

	// The simulator delivers webhooks to the app, whose address is known only
	// after it starts: the handler is swapped in afterwards.
	var simH http.Handler = http.NotFoundHandler()
	var mu sync.Mutex
	simSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := simH
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(simSrv.Close)

	started := servicetest.Start(t, func(ctx context.Context, ready servicetest.Ready) error {
		cfg := Config{
			Settings:             servicetest.Settings(dbURL, brokers, ready),
			RedisURL:             redis,
			StripeAPIBase:        simSrv.URL,
			StripeSecretKey:      "sk_test_x",
			StripePublishableKey: "pk_test_x",
			StripeWebhookSecret:  webhookSecret,
			AppBaseURL:           "http://localhost:8080",
			CheckoutRateLimit:    5,
			CheckoutRateWindow:   time.Minute,
		}
		for _, o := range opts {
			o(&cfg)
		}
		return Run(ctx, cfg, nil)
	})
	app := started.HTTP
	sim := stripesim.New(stripesim.Config{
		PublicURL: simSrv.URL, WebhookURL: app + "/api/stripe/webhook", WebhookSecret: webhookSecret,
		SecretKey: "sk_test_x", RetryDelays: []time.Duration{},
	})
	mu.Lock()
	simH = sim
	mu.Unlock()
	setSim := func(h http.Handler) {
		mu.Lock()
		simH = h
		mu.Unlock()
	}
	return running{http: app, grpc: started.GRPC, dbURL: dbURL, brokers: brokers, sim: sim, simURL: simSrv.URL, setSim: setSim}
}

func call(t *testing.T, method, url, token, body string, hdr ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s: %d non-JSON body %q", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

func balance(t *testing.T, app running, uid string) float64 {
	t.Helper()
	code, body := call(t, "GET", app.http+"/api/user/balance", "token-"+uid, "")
	if code != 200 || body["success"] != true {
		t.Fatalf("balance: %d %v", code, body)
	}
	return body["data"].(map[string]any)["balance"].(float64)
}

func checkout(t *testing.T, app running, uid string, cents int) (string, string) {
	t.Helper()
	code, body := call(t, "POST", app.http+"/api/stripe/create-checkout-session", "token-"+uid,
		fmt.Sprintf(`{"amount":%d,"currency":"usd","metadata":{"userId":%q,"email":"x@example.com","timestamp":"2026-01-01T00:00:00Z"}}`, cents, uid))
	if code != 200 || body["publishableKey"] != "pk_test_x" || body["sessionId"] == "" {
		t.Fatalf("checkout: %d %v", code, body)
	}
	return body["sessionId"].(string), body["url"].(string)
}

func sendEvent(t *testing.T, app running, eventType string, cs stripesim.Session, at time.Time, secret string) (int, map[string]any, string) {
	t.Helper()
	payload, id := stripesim.Event(eventType, cs)
	code, body := call(t, "POST", app.http+"/api/stripe/webhook", "", string(payload),
		"Stripe-Signature", stripesim.Sign(payload, secret, at), "Content-Type", "application/json")
	return code, body, id
}

func resend(t *testing.T, app running, payload []byte) (int, map[string]any) {
	t.Helper()
	return call(t, "POST", app.http+"/api/stripe/webhook", "", string(payload),
		"Stripe-Signature", stripesim.Sign(payload, webhookSecret, time.Now()))
}

func checkLedger(t *testing.T, app running) {
	t.Helper()
	ctx := context.Background()
	pool, err := database.Connect(ctx, app.dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := wallet.NewPostgresStore(pool).CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestCheckoutPayAndWebhooks(t *testing.T) {
	app := start(t, redisURL())
	uid := uniq("alice")

	if b := balance(t, app, uid); b != 0 {
		t.Fatalf("new user balance %v", b)
	}
	// Checkout → hosted page → Pay: the simulator delivers a signed
	// checkout.session.completed to the app and redirects to the success URL.
	sid, payURL := checkout(t, app, uid, 1250)
	if !strings.HasPrefix(payURL, app.simURL+"/pay/cs_test_") {
		t.Fatalf("url %s", payURL)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(payURL+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "http://localhost:8080/wallet?success=true&session_id="+sid {
		t.Fatalf("pay: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if b := balance(t, app, uid); b != 12.5 {
		t.Fatalf("balance after pay %v", b)
	}
	code, body := call(t, "GET", app.http+"/api/user/transactions?limit=20&offset=0", "token-"+uid, "")
	items := body["data"].(map[string]any)["items"].([]any)
	meta := body["data"].(map[string]any)["meta"].(map[string]any)
	if code != 200 || len(items) != 1 || meta["hasMore"] != false || meta["snapshot"].(float64) < 1 {
		t.Fatalf("transactions: %d %v", code, body)
	}
	it := items[0].(map[string]any)
	if it["amount"] != 12.5 || it["type"] != "deposit" || it["provider"] != "stripe" || it["description"] == "" {
		t.Fatalf("item %v", it)
	}
	if _, err := time.Parse(time.RFC3339, it["date"].(string)); err != nil {
		t.Fatalf("date %v", it["date"])
	}

	cs, _ := app.sim.Session(sid)
	// Duplicate delivery of the same session under a new event id: no credit.
	if code, body, _ := sendEvent(t, app, "checkout.session.completed", cs, time.Now(), webhookSecret); code != 200 || body["outcome"] != "already_final" {
		t.Fatalf("new event id: %d %v", code, body)
	}
	// The same event id twice: the second is a duplicate.
	payload, _ := stripesim.Event("checkout.session.async_payment_succeeded", cs)
	if code, body := resend(t, app, payload); code != 200 || body["outcome"] != "already_final" {
		t.Fatalf("first: %d %v", code, body)
	}
	if code, body := resend(t, app, payload); code != 200 || body["outcome"] != "duplicate_event" {
		t.Fatalf("duplicate event: %d %v", code, body)
	}
	// Bad signature, wrong secret, stale timestamp, no header: 400, no credit.
	for name, hdr := range map[string]string{
		"garbage":      "t=1,v1=deadbeef",
		"wrong secret": stripesim.Sign(payload, "whsec_other", time.Now()),
		"stale":        stripesim.Sign(payload, webhookSecret, time.Now().Add(-301*time.Second)),
		"missing":      "",
	} {
		code, body := call(t, "POST", app.http+"/api/stripe/webhook", "", string(payload), "Stripe-Signature", hdr)
		if code != 400 || body["error"] != "invalid_signature" {
			t.Fatalf("%s: %d %v", name, code, body)
		}
	}
	// Tampered body with a valid header for the original.
	tampered := bytes.Replace(payload, []byte(`"amount_total":1250`), []byte(`"amount_total":9999`), 1)
	if code, _ := call(t, "POST", app.http+"/api/stripe/webhook", "", string(tampered),
		"Stripe-Signature", stripesim.Sign(payload, webhookSecret, time.Now())); code != 400 {
		t.Fatalf("tampered: %d", code)
	}
	// Unknown session: acknowledged without credit.
	ghost := cs
	ghost.ID = "cs_test_unknown"
	if code, body, _ := sendEvent(t, app, "checkout.session.completed", ghost, time.Now(), webhookSecret); code != 200 || body["outcome"] != "unknown_session" {
		t.Fatalf("unknown session: %d %v", code, body)
	}
	// Other event types are acknowledged.
	if code, body, _ := sendEvent(t, app, "payment_intent.succeeded", cs, time.Now(), webhookSecret); code != 200 || body["outcome"] != "ignored" {
		t.Fatalf("other type: %d %v", code, body)
	}
	if b := balance(t, app, uid); b != 12.5 {
		t.Fatalf("balance after replays %v", b)
	}

	// 20 concurrent deliveries of the same completed event and 20 of
	// distinct event ids for a second session: exactly one credit each way.
	sid2, _ := checkout(t, app, uid, 5000)
	cs2, _ := app.sim.Session(sid2)
	cs2.Status, cs2.PaymentStatus = "complete", "paid"
	same, _ := stripesim.Event("checkout.session.completed", cs2)
	var wg sync.WaitGroup
	outcomes := make(chan string, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := same
			if i%2 == 1 {
				p, _ = stripesim.Event("checkout.session.completed", cs2)
			}
			req, _ := http.NewRequest("POST", app.http+"/api/stripe/webhook", bytes.NewReader(p))
			req.Header.Set("Stripe-Signature", stripesim.Sign(p, webhookSecret, time.Now()))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("concurrent delivery: %d %v", resp.StatusCode, m)
			}
			outcomes <- fmt.Sprint(m["outcome"])
		}()
	}
	wg.Wait()
	close(outcomes)
	credited := 0
	for o := range outcomes {
		if o == "credited" {
			credited++
		}
	}
	if credited != 1 {
		t.Fatalf("%d credits from concurrent deliveries", credited)
	}
	if b := balance(t, app, uid); b != 62.5 {
		t.Fatalf("balance after concurrent deliveries %v", b)
	}

	// Expired and async-failed sessions are marked, never credited; a late
	// paid event for an expired session does nothing.
	sid3, _ := checkout(t, app, uid, 700)
	cs3, _ := app.sim.Session(sid3)
	if code, body, _ := sendEvent(t, app, "checkout.session.expired", cs3, time.Now(), webhookSecret); code != 200 || body["outcome"] != "marked" {
		t.Fatalf("expired: %d %v", code, body)
	}
	cs3.PaymentStatus = "paid"
	if code, body, _ := sendEvent(t, app, "checkout.session.completed", cs3, time.Now(), webhookSecret); code != 200 || body["outcome"] != "already_final" {
		t.Fatalf("paid after expiry: %d %v", code, body)
	}
	// Delayed payment: completed (unpaid) → processing, then async success credits once.
	sid4, _ := checkout(t, app, uid, 100)
	cs4, _ := app.sim.Session(sid4)
	if code, body, _ := sendEvent(t, app, "checkout.session.completed", cs4, time.Now(), webhookSecret); code != 200 || body["outcome"] != "marked" {
		t.Fatalf("unpaid completed: %d %v", code, body)
	}
	if code, body, _ := sendEvent(t, app, "checkout.session.async_payment_succeeded", cs4, time.Now(), webhookSecret); code != 200 || body["outcome"] != "credited" {
		t.Fatalf("async success: %d %v", code, body)
	}
	if b := balance(t, app, uid); b != 63.5 {
		t.Fatalf("final balance %v", b)
	}
	checkLedger(t, app)

	// Events: one deposit.credited per paid session, with the recorded amounts.
	recs := eventstest.Consume(t, app.brokers, wallet.Topic, 3, 20*time.Second, time.Second)
	if len(recs) != 3 {
		t.Fatalf("records: %d", len(recs))
	}
	var cents int64
	for _, r := range recs {
		var ev eventsv1.WalletDepositCredited
		if r.Headers["ce_type"] != wallet.TypeDepositCredited || r.Key != uid || protojson.Unmarshal(r.Value, &ev) != nil {
			t.Fatalf("record %+v", r)
		}
		if ev.GetAmountMicros() != ev.GetAmountCents()*10_000 || ev.GetTransferId() == "" || ev.GetOccurredAt() == nil {
			t.Fatalf("event %v", &ev)
		}
		cents += ev.GetAmountCents()
	}
	if cents != 1250+5000+100 {
		t.Fatalf("credited cents %d", cents)
	}
}

func TestCheckoutValidationAndRateLimit(t *testing.T) {
	// The checkout limit's window does not end mid-test.
	mid := time.Now().Truncate(time.Minute).Add(30 * time.Second)
	app := start(t, redisURL(), func(c *Config) { c.RateLimitNow = func() time.Time { return mid } })
	uid := uniq("bob")
	url := app.http + "/api/stripe/create-checkout-session"
	for _, body := range []string{
		`{"amount":49,"currency":"usd"}`, `{"amount":1000001,"currency":"usd"}`, `{"amount":10.5,"currency":"usd"}`,
		`{"amount":-100,"currency":"usd"}`, `{"amount":1000,"currency":"eur"}`, `{"currency":"usd"}`,
		`{"amount":"1000","currency":"usd"}`, `{"amount":1000,"currency":5}`, `{"amount":1e400}`,
		`[1]`, `{`, ``, `null`,
	} {
		code, m := call(t, "POST", url, "token-"+uid, body)
		if code != 400 || m["error"] == nil || m["message"] == nil {
			t.Fatalf("%s: %d %v", body, code, m)
		}
	}
	if code, m := call(t, "POST", url, "", `{"amount":1000,"currency":"usd"}`); code != 401 || m["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %v", code, m)
	}
	if code, _ := call(t, "POST", url, "token-"+uid, strings.Repeat(" ", 1<<20+10)+`{}`); code != 413 {
		t.Fatalf("big body: %d", code)
	}
	// 5 per minute per user, then 429; another user is unaffected.
	for i := 0; i < 5; i++ {
		checkout(t, app, uid, 50+i)
	}
	code, m := call(t, "POST", url, "token-"+uid, `{"amount":1000,"currency":"usd"}`)
	if code != 429 || m["error"] != "rate_limited" {
		t.Fatalf("6th checkout: %d %v", code, m)
	}
	checkout(t, app, uniq("carol"), 1000)

	// Invalid paging → 400 JSON; bad tokens → 401; wrong method → 405.
	for _, q := range []string{"limit=0", "limit=101", "limit=abc", "offset=-1", "offset=x", "limit=1.5", "snapshot=-1", "snapshot=z", "limit=1&limit=2"} {
		code, m := call(t, "GET", app.http+"/api/user/transactions?"+q, "token-"+uid, "")
		if code != 400 || m["error"] != "invalid_request" {
			t.Fatalf("%s: %d %v", q, code, m)
		}
	}
	if code, m := call(t, "GET", app.http+"/api/user/balance", "bad", ""); code != 401 || m["error"] != "invalid_token" {
		t.Fatalf("bad token: %d %v", code, m)
	}
	if code, _ := call(t, "GET", app.http+"/api/stripe/webhook", "", ""); code != 405 {
		t.Fatalf("GET webhook: %d", code)
	}
	if code, _ := call(t, "POST", app.http+"/api/stripe/webhook", "", strings.Repeat("x", 1<<20+1), "Stripe-Signature", "t=1,v1=00"); code != 413 {
		t.Fatalf("big webhook: %d", code)
	}
}

func TestStripeFailureIs502(t *testing.T) {
	app := start(t, redisURL())
	// Stripe answers 401 (the simulator now wants another key): 502 JSON, nothing recorded.
	app.setSim(stripesim.New(stripesim.Config{SecretKey: "sk_test_other"}))
	code, m := call(t, "POST", app.http+"/api/stripe/create-checkout-session", "token-"+uniq("fay"), `{"amount":1000,"currency":"usd"}`)
	if code != 502 || m["error"] != "payment_provider_error" || !strings.Contains(m["message"].(string), "Invalid API Key") {
		t.Fatalf("stripe failure: %d %v", code, m)
	}
}

func TestCacheAndRedisDown(t *testing.T) {
	// Redis on a closed port: everything still answers from PostgreSQL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	// The per-user quotas fail closed without Redis (TestQuotasFailClosedInTheApp);
	// off here, to show the rest of the wallet does without Redis.
	t.Setenv("RATE_LIMIT_MONEY", "0/1m")
	app := start(t, "redis://"+closed+"/0")
	uid := uniq("dora")
	if b := balance(t, app, uid); b != 0 {
		t.Fatalf("balance %v", b)
	}
	sid, payURL := checkout(t, app, uid, 2000) // rate limiter fails open
	// Do not follow the redirect to the success URL: nothing serves the app's
	// origin in this test.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Post(payURL+"/pay", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if b := balance(t, app, uid); b != 20 {
		t.Fatalf("balance %v (session %s)", b, sid)
	}
	if code, body := call(t, "GET", app.http+"/api/user/transactions", "token-"+uid, ""); code != 200 ||
		len(body["data"].(map[string]any)["items"].([]any)) != 1 {
		t.Fatalf("transactions %d %v", code, body)
	}
	mresp, err := http.Get(app.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(mresp.Body)
	mresp.Body.Close()
	if !strings.Contains(buf.String(), `wallet_redis_errors_total{op="lookup"}`) {
		t.Fatal("redis errors not counted")
	}
}

func TestGRPCChargeCredit(t *testing.T) {
	app := start(t, redisURL())
	uid := uniq("erin")
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := walletv1.NewWalletServiceClient(conn)
	ctx := context.Background()

	// Cache the balance (0), then credit: the HTTP balance must change at once.
	if b := balance(t, app, uid); b != 0 {
		t.Fatal(b)
	}
	cr, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 3_000_000, IdempotencyKey: "inc-1", Description: "Marketplace income", Metadata: map[string]string{"agentId": "a1"}})
	if err != nil || cr.GetReplayed() || cr.GetBalanceMicros() != 3_000_000 || cr.GetTransfer().GetType() != "income" {
		t.Fatalf("credit %v %v", cr, err)
	}
	if b := balance(t, app, uid); b != 3 {
		t.Fatalf("balance after credit %v (cache not invalidated?)", b)
	}
	ch, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 1_234_567, IdempotencyKey: "chg-1", Description: "Agent interaction"})
	if err != nil || ch.GetBalanceMicros() != 1_765_433 {
		t.Fatalf("charge %v %v", ch, err)
	}
	again, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 1_234_567, IdempotencyKey: "chg-1", Description: "Agent interaction"})
	if err != nil || !again.GetReplayed() || again.GetTransfer().GetId() != ch.GetTransfer().GetId() {
		t.Fatalf("replay %v %v", again, err)
	}
	if _, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 2, IdempotencyKey: "chg-1"}); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("key reuse: %v", err)
	}
	if _, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 5_000_000, IdempotencyKey: "chg-2"}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("overdraw: %v", err)
	}
	if _, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 0, IdempotencyKey: "chg-3"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("zero: %v", err)
	}
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 1, IdempotencyKey: "stripe:checkout:x"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("reserved key: %v", err)
	}
	gb, err := c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid})
	if err != nil || gb.GetBalanceMicros() != 1_765_433 {
		t.Fatalf("GetBalance %v %v", gb, err)
	}
	code, body := call(t, "GET", app.http+"/api/user/transactions?limit=1", "token-"+uid, "")
	data := body["data"].(map[string]any)
	items := data["items"].([]any)
	if code != 200 || len(items) != 1 || items[0].(map[string]any)["type"] != "expense" || items[0].(map[string]any)["amount"] != 1.234567 ||
		data["meta"].(map[string]any)["hasMore"] != true {
		t.Fatalf("transactions %v", body)
	}
	snap := data["meta"].(map[string]any)["snapshot"].(float64)
	code, body = call(t, "GET", fmt.Sprintf("%s/api/user/transactions?limit=1&offset=1&snapshot=%d", app.http, int64(snap)), "token-"+uid, "")
	items = body["data"].(map[string]any)["items"].([]any)
	if code != 200 || len(items) != 1 || items[0].(map[string]any)["type"] != "income" {
		t.Fatalf("page 2 %v", body)
	}
	if b := balance(t, app, uid); b != 1.765433 {
		t.Fatalf("balance %v", b)
	}
	checkLedger(t, app)

	recs := eventstest.Consume(t, app.brokers, wallet.Topic, 2, 20*time.Second, time.Second)
	types := map[string]int{}
	for _, r := range recs {
		types[r.Headers["ce_type"]]++
	}
	if len(recs) != 2 || types[wallet.TypeIncomeCredited] != 1 || types[wallet.TypeChargeDebited] != 1 {
		t.Fatalf("events %v", types)
	}
}
