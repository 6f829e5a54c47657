package app

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/testwait"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

func walletClient(t *testing.T, app running) walletv1.WalletServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return walletv1.NewWalletServiceClient(conn)
}

// reason is the ErrorInfo reason of a gRPC error ("" without one).
func reason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// balances is GET /api/user/balance's data.
func balances(t *testing.T, app running, uid string) map[string]any {
	t.Helper()
	code, body := call(t, "GET", app.http+"/api/user/balance", "token-"+uid, "")
	if code != 200 || body["success"] != true {
		t.Fatalf("balance: %d %v", code, body)
	}
	return body["data"].(map[string]any)
}

func metrics(t *testing.T, app running) string {
	t.Helper()
	resp, err := http.Get(app.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return buf.String()
}

func TestGRPCHolds(t *testing.T) {
	app := start(t, redisURL())
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("holly")

	// No wallet: insufficient_funds, told apart by message and reason.
	_, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1, IdempotencyKey: "r0"})
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "insufficient_funds" || reason(err) != "insufficient_funds" {
		t.Fatalf("reserve without wallet: %v (%s)", err, reason(err))
	}
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 10_000_000, IdempotencyKey: "fund"}); err != nil {
		t.Fatal(err)
	}
	// Cache the balance, then reserve: the HTTP balance must show the hold at once.
	if d := balances(t, app, uid); d["balance"] != 10.0 || d["held"] != 0.0 || d["available"] != 10.0 {
		t.Fatalf("balance before: %v", d)
	}
	before := time.Now()
	r, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 2_500_000, IdempotencyKey: "answer-1", TtlSeconds: 0,
		Metadata: map[string]string{"conversationId": "c1"}})
	h := r.GetHold()
	if err != nil || r.GetReplayed() || h.GetStatus() != "held" || h.GetAmountMicros() != 2_500_000 || h.GetUid() != uid ||
		h.GetIdempotencyKey() != "answer-1" || r.GetBalanceMicros() != 10_000_000 || r.GetHeldMicros() != 2_500_000 {
		t.Fatalf("reserve: %v %v", r, err)
	}
	// Default TTL: 5 minutes.
	if ttl := h.GetExpiresAt().AsTime().Sub(before); ttl < 4*time.Minute || ttl > 6*time.Minute {
		t.Fatalf("ttl %v", ttl)
	}
	if d := balances(t, app, uid); d["balance"] != 10.0 || d["held"] != 2.5 || d["available"] != 7.5 {
		t.Fatalf("balance with a hold: %v", d)
	}
	gb, err := c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid})
	if err != nil || gb.GetBalanceMicros() != 10_000_000 || gb.GetHeldMicros() != 2_500_000 {
		t.Fatalf("GetBalance: %v %v", gb, err)
	}
	// Replay and conflicting reuse of the key.
	if rep, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 2_500_000, IdempotencyKey: "answer-1"}); err != nil ||
		!rep.GetReplayed() || rep.GetHold().GetId() != h.GetId() {
		t.Fatalf("reserve replay: %v %v", rep, err)
	}
	if _, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 2_500_001, IdempotencyKey: "answer-1"}); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("reserve key reuse: %v", err)
	}
	// More than available: insufficient_funds (the balance, 10, would cover it).
	if _, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 7_500_001, IdempotencyKey: "big"}); status.Code(err) != codes.FailedPrecondition ||
		reason(err) != "insufficient_funds" {
		t.Fatalf("reserve over available: %v", err)
	}
	if _, err := c.Charge(ctx, &walletv1.ChargeRequest{Uid: uid, AmountMicros: 7_500_001, IdempotencyKey: "big"}); status.Code(err) != codes.FailedPrecondition ||
		reason(err) != "insufficient_funds" {
		t.Fatalf("charge over available: %v", err)
	}
	// Validation.
	for name, req := range map[string]*walletv1.ReserveRequest{
		"zero":         {Uid: uid, AmountMicros: 0, IdempotencyKey: "v"},
		"no key":       {Uid: uid, AmountMicros: 1},
		"no uid":       {AmountMicros: 1, IdempotencyKey: "v"},
		"ttl > 1h":     {Uid: uid, AmountMicros: 1, IdempotencyKey: "v", TtlSeconds: 3601},
		"huge ttl":     {Uid: uid, AmountMicros: 1, IdempotencyKey: "v", TtlSeconds: 1 << 62},
		"negative ttl": {Uid: uid, AmountMicros: 1, IdempotencyKey: "v", TtlSeconds: -1},
	} {
		if _, err := c.Reserve(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("%s: %v", name, err)
		}
	}

	// Capture more than held: INVALID_ARGUMENT; then less: the rest comes back.
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetId(), AmountMicros: 2_500_001}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("capture above the hold: %v", err)
	}
	capReq := &walletv1.CaptureRequest{HoldId: h.GetId(), AmountMicros: 812_345, Description: "Math Tutor · 812 tokens",
		Metadata: map[string]string{"agentId": "a1", "tokens": "812"}}
	cp, err := c.Capture(ctx, capReq)
	if err != nil || cp.GetReplayed() || cp.GetHold().GetStatus() != "captured" || cp.GetHold().GetCapturedMicros() != 812_345 ||
		cp.GetHold().GetTransferId() == "" || cp.GetBalanceMicros() != 9_187_655 || cp.GetHeldMicros() != 0 {
		t.Fatalf("capture: %v %v", cp, err)
	}
	if again, err := c.Capture(ctx, capReq); err != nil || !again.GetReplayed() || again.GetHold().GetTransferId() != cp.GetHold().GetTransferId() {
		t.Fatalf("capture replay: %v %v", again, err)
	}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: h.GetId(), AmountMicros: 1, Description: capReq.Description}); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("capture with another amount: %v", err)
	}
	if _, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: h.GetId()}); status.Code(err) != codes.FailedPrecondition || reason(err) != "hold_captured" {
		t.Fatalf("release of a captured hold: %v", err)
	}
	if d := balances(t, app, uid); d["balance"] != 9.187655 || d["held"] != 0.0 || d["available"] != 9.187655 {
		t.Fatalf("balance after capture: %v", d)
	}

	// Release; capture after it is refused; unknown holds are NOT_FOUND.
	r2, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1_000_000, IdempotencyKey: "answer-2", TtlSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: r2.GetHold().GetId()})
	if err != nil || rel.GetHold().GetStatus() != "released" || rel.GetHeldMicros() != 0 || rel.GetBalanceMicros() != 9_187_655 {
		t.Fatalf("release: %v %v", rel, err)
	}
	if again, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: r2.GetHold().GetId()}); err != nil || !again.GetReplayed() {
		t.Fatalf("release replay: %v %v", again, err)
	}
	if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: r2.GetHold().GetId(), AmountMicros: 1}); status.Code(err) != codes.FailedPrecondition ||
		reason(err) != "hold_released" {
		t.Fatalf("capture after release: %v", err)
	}
	for _, id := range []string{"0190f0f0-0000-7000-8000-000000000000", "nope"} {
		if _, err := c.Capture(ctx, &walletv1.CaptureRequest{HoldId: id}); status.Code(err) != codes.NotFound {
			t.Fatalf("capture unknown %s: %v", id, err)
		}
		if _, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: id}); status.Code(err) != codes.NotFound {
			t.Fatalf("release unknown %s: %v", id, err)
		}
	}

	// The history shows the top-up and the capture's expense, no holds.
	code, body := call(t, "GET", app.http+"/api/user/transactions", "token-"+uid, "")
	items := body["data"].(map[string]any)["items"].([]any)
	if code != 200 || len(items) != 2 {
		t.Fatalf("transactions: %d %v", code, body)
	}
	exp := items[0].(map[string]any)
	if exp["type"] != "expense" || exp["amount"] != 0.812345 || exp["description"] != "Math Tutor · 812 tokens" ||
		exp["provider"] != "platform" || exp["id"] != cp.GetHold().GetTransferId() || items[1].(map[string]any)["type"] != "income" {
		t.Fatalf("history: %v", items)
	}
	checkLedger(t, app)

	// Events: income + the capture as a charge (holds emit nothing).
	recs := eventstest.Consume(t, app.brokers, wallet.Topic, 2, 20*time.Second, time.Second)
	if len(recs) != 2 {
		t.Fatalf("records %d", len(recs))
	}
	var charged *eventsv1.WalletCharged
	for _, rec := range recs {
		if rec.Headers["ce_type"] == wallet.TypeChargeDebited {
			charged = &eventsv1.WalletCharged{}
			if err := protojson.Unmarshal(rec.Value, charged); err != nil || rec.Key != uid {
				t.Fatalf("record %+v: %v", rec, err)
			}
		}
	}
	if charged == nil || charged.GetAmountMicros() != 812_345 || charged.GetTransferId() != cp.GetHold().GetTransferId() ||
		charged.GetDescription() != "Math Tutor · 812 tokens" || charged.GetMetadata()["tokens"] != "812" ||
		charged.GetBalanceMicros() != 9_187_655 || charged.GetIdempotencyKey() != "hold:"+h.GetId()+":capture" {
		t.Fatalf("charge event: %v", charged)
	}

	m := metrics(t, app)
	for _, want := range []string{`wallet_holds_total{event="opened"} 2`, `wallet_holds_total{event="captured"} 1`,
		`wallet_holds_total{event="released"} 1`, `wallet_hold_micros_total{event="captured"} 812345`,
		`wallet_requests_total{method="Reserve",outcome="success"}`} {
		if !strings.Contains(m, want) {
			t.Fatalf("metrics lack %s", want)
		}
	}
}

// TestHoldSweeper runs the service with a fast sweeper: a hold nobody
// captures (the caller crashed) is expired and its money returned without
// any call, and a late capture is refused.
func TestHoldSweeper(t *testing.T) {
	app := start(t, redisURL(), func(c *Config) { c.HoldSweepInterval = 100 * time.Millisecond })
	c := walletClient(t, app)
	ctx := context.Background()
	uid := uniq("ivan")
	if _, err := c.Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 3_000_000, IdempotencyKey: "fund"}); err != nil {
		t.Fatal(err)
	}
	r, err := c.Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 3_000_000, IdempotencyKey: "crash", TtlSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := balances(t, app, uid); d["available"] != 0.0 || d["held"] != 3.0 { // cached now
		t.Fatalf("balance with the hold: %v", d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		gb, err := c.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid})
		if err != nil {
			t.Fatal(err)
		}
		if gb.GetHeldMicros() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hold not swept")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The sweep drops the cached balance right after its transaction
	// commits (the store's read above can come between the two): the
	// cached balance is right well before its 30 s TTL could have ended it.
	testwait.Until(t, "the cached balance dropped by the sweep", func() bool {
		d := balances(t, app, uid)
		return d["balance"] == 3.0 && d["held"] == 0.0 && d["available"] == 3.0
	}, testwait.Timeout(5*time.Second))
	_, err = c.Capture(ctx, &walletv1.CaptureRequest{HoldId: r.GetHold().GetId(), AmountMicros: 1_000})
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "hold_expired" || reason(err) != "hold_expired" {
		t.Fatalf("capture after expiry: %v", err)
	}
	if rel, err := c.Release(ctx, &walletv1.ReleaseRequest{HoldId: r.GetHold().GetId()}); err != nil || rel.GetHold().GetStatus() != "expired" {
		t.Fatalf("release after expiry: %v %v", rel, err)
	}
	checkLedger(t, app)
	// The open-hold gauges are refreshed at the end of the sweep, after the
	// cache: wait for them the same way.
	for _, want := range []string{`wallet_holds_total{event="expired"} 1`, `wallet_hold_micros_total{event="expired"} 3e+06`,
		"wallet_holds_open 0", "wallet_held_micros 0"} {
		testwait.Until(t, "metric "+want, func() bool { return strings.Contains(metrics(t, app), want) }, testwait.Timeout(5*time.Second))
	}
}
