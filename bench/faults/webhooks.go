package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// signStripe is Stripe's v1 scheme (the simulator's and stripe-go's
// webhook.GenerateTestSignedPayload): HMAC-SHA256 of "<t>.<payload>".
func signStripe(payload []byte, secret string, at time.Time) string {
	t := at.Unix()
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.", t)
	mac.Write(payload)
	return fmt.Sprintf("t=%d,v1=%s", t, hex.EncodeToString(mac.Sum(nil)))
}

// stripeEvent is the event JSON Stripe (and the simulator) sends.
func stripeEvent(id, typ string, obj map[string]any) []byte {
	return stripeEventAt(id, typ, obj, time.Now().Unix())
}

// stripeEventAt is stripeEvent created at created (Unix seconds): the
// wallet orders account.updated events by it.
func stripeEventAt(id, typ string, obj map[string]any, created int64) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": "2025-01-27.acacia", "created": created,
		"livemode": false, "pending_webhooks": 1, "type": typ,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": obj},
	})
	return b
}

// delivery is one POST to the webhook endpoint.
type delivery struct {
	kind      string // what it is (original, duplicate, replay, ...)
	payload   []byte
	signature string // "" = sign at send time with the secret (a replay)
	resign    bool
	want      int // expected HTTP status class: 200 or 400
}

type webhookConfig struct {
	deliveries, concurrency int
	secret                  string
}

// webhookScenario: N signed deliveries for S = N/10 paid Checkout Sessions
// (created through the gateway, paid on the simulator with its own
// deliveries paused) and a few unpaid ones, with exact duplicates, re-signed
// replays, other events for the same sessions, amount-tampered but signed
// events, and attacks (wrong secret, stale timestamp, body changed after
// signing, unknown session), shuffled and sent with concurrency C.
func (st *suite) webhookScenario(ctx context.Context, cfg webhookConfig) *result {
	res := &result{name: "webhooks", title: fmt.Sprintf("5. %d webhook deliveries (duplicates, replays, reordering, forged; concurrency %d) and a plaintext gRPC Credit", cfg.deliveries, cfg.concurrency)}
	start := time.Now()
	s := st.s
	nPaid := max(cfg.deliveries/10, 1)
	nUnpaid := max(nPaid/10, 1)
	perUser := 5 // CHECKOUT_RATE_LIMIT per minute
	nUsers := (nPaid + nUnpaid + perUser - 1) / perUser

	// 1. Sessions through the gateway.
	st.logf("webhooks: %d users × %d checkout sessions", nUsers, perUser)
	var users []*user
	for range nUsers {
		u, err := s.newUser(ctx, "hook", 0)
		if err != nil {
			return res.abort(err)
		}
		users = append(users, u)
	}
	type sess struct {
		id, uid string
		cents   int64
		obj     map[string]any
	}
	var paid, unpaid []*sess
	for i := range nPaid + nUnpaid {
		u := users[i/perUser]
		cents := int64(100 + 50*(i%7))
		var cs struct {
			SessionID string `json:"sessionId"`
		}
		if err := s.DoRetry(ctx, http.MethodPost, s.Base+"/api/stripe/create-checkout-session", u.Token, map[string]any{"amount": cents}, &cs); err != nil {
			return res.abort(fmt.Errorf("create checkout session: %w", err))
		}
		x := &sess{id: cs.SessionID, uid: u.UID, cents: cents}
		if i < nPaid {
			paid = append(paid, x)
		} else {
			unpaid = append(unpaid, x)
		}
	}
	// 2. Pay them on the simulator with its deliveries paused: the suite
	// delivers the events itself.
	if err := s.simJSON(ctx, http.MethodPost, "/admin/webhooks", map[string]any{"paused": true}, nil); err != nil {
		return res.abort(err)
	}
	defer func() {
		if err := s.simJSON(context.WithoutCancel(ctx), http.MethodPost, "/admin/webhooks", map[string]any{"paused": false}, nil); err != nil {
			res.fail("resume the simulator's webhooks: %v", err)
		}
	}()
	for _, x := range paid {
		if err := s.paySession(ctx, x.id); err != nil {
			return res.abort(err)
		}
	}
	for _, x := range append(slices2(paid), unpaid...) {
		var obj map[string]any
		if err := s.simJSON(ctx, http.MethodGet, "/v1/checkout/sessions/"+x.id, nil, &obj); err != nil {
			return res.abort(err)
		}
		x.obj = obj
	}
	balances0 := map[string]int64{}
	for _, u := range users {
		b, _, err := s.wallet.Balance(ctx, u.UID)
		if err != nil {
			return res.abort(err)
		}
		balances0[u.UID] = b
	}

	// 3. The deliveries.
	rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), 7))
	now := time.Now()
	var ds []delivery
	add := func(kind string, payload []byte, sig string, resign bool, want int) {
		ds = append(ds, delivery{kind: kind, payload: payload, signature: sig, resign: resign, want: want})
	}
	evID := func() string { return "evt_faults_" + randomHex(12) }
	originals := make([]delivery, 0, len(paid))
	for _, x := range paid {
		p := stripeEvent(evID(), "checkout.session.completed", x.obj)
		d := delivery{kind: "original", payload: p, signature: signStripe(p, cfg.secret, now), want: 200}
		originals = append(originals, d)
		ds = append(ds, d)
	}
	var adjacent []delivery // exact duplicates sent right after their original (concurrently)
	for i := 0; len(ds)+len(adjacent) < cfg.deliveries; i++ {
		o := originals[i%len(originals)]
		x := paid[i%len(paid)]
		switch i / len(paid) {
		case 0:
			adjacent = append(adjacent, delivery{kind: "duplicate (same bytes, concurrently)", payload: o.payload, signature: o.signature, want: 200})
		case 1:
			add("duplicate (same bytes, later)", o.payload, o.signature, false, 200)
		case 2:
			add("replay (re-signed later)", o.payload, "", true, 200)
		case 3:
			p := stripeEvent(evID(), "checkout.session.completed", x.obj)
			add("same session, new event id", p, signStripe(p, cfg.secret, now), false, 200)
		case 4:
			p := stripeEvent(evID(), "checkout.session.async_payment_succeeded", x.obj)
			add("async_payment_succeeded", p, signStripe(p, cfg.secret, now), false, 200)
		case 5:
			obj := clone(x.obj)
			obj["amount_total"] = x.cents * 100
			p := stripeEvent(evID(), "checkout.session.completed", obj)
			add("signed, amount ×100", p, signStripe(p, cfg.secret, now), false, 200)
		case 6:
			p := stripeEvent(evID(), "checkout.session.completed", x.obj)
			if i%2 == 0 {
				add("forged: wrong secret", p, signStripe(p, "whsec_attacker", now), false, 400)
			} else {
				add("forged: stale timestamp (-10 min)", p, signStripe(p, cfg.secret, now.Add(-10*time.Minute)), false, 400)
			}
		case 7:
			// Signed, then a byte of the body changed (livemode false → true).
			p := stripeEvent(evID(), "checkout.session.completed", x.obj)
			sig := signStripe(p, cfg.secret, now)
			p = bytes.Replace(p, []byte(`"livemode":false`), []byte(`"livemode":true `), 1)
			add("forged: body changed after signing", p, sig, false, 400)
		default:
			switch i % 3 {
			case 0:
				u := unpaid[i%len(unpaid)]
				p := stripeEvent(evID(), "checkout.session.expired", u.obj)
				add("expired (unpaid session)", p, signStripe(p, cfg.secret, now), false, 200)
			case 1:
				obj := clone(x.obj)
				obj["id"] = "cs_test_faults_unknown_" + randomHex(6)
				p := stripeEvent(evID(), "checkout.session.completed", obj)
				add("unknown session (signed)", p, signStripe(p, cfg.secret, now), false, 200)
			default:
				u := unpaid[i%len(unpaid)]
				obj := clone(u.obj)
				obj["payment_status"], obj["status"] = "paid", "complete"
				p := stripeEvent(evID(), "checkout.session.completed", obj)
				add("forged: unpaid session claimed paid", p, signStripe(p, "whsec_attacker", now), false, 400)
			}
		}
	}
	rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	// Concurrent duplicates go right after their original.
	if len(adjacent) > 0 {
		byPayload := map[string][]delivery{}
		for _, d := range adjacent {
			byPayload[string(d.payload)] = append(byPayload[string(d.payload)], d)
		}
		var out []delivery
		for _, d := range ds {
			out = append(out, d)
			if d.kind == "original" {
				out = append(out, byPayload[string(d.payload)]...)
			}
		}
		ds = out
	}
	ds = ds[:min(len(ds), cfg.deliveries)]

	// 4. Send with concurrency C.
	t, kinds, elapsed := st.deliver(ctx, ds, cfg.concurrency, cfg.secret)
	res.load = t
	res.line("%d deliveries in %s (%.0f/s), each answered as expected (2xx when correctly signed, 400 otherwise): %s",
		len(ds), elapsed.Round(time.Millisecond), float64(len(ds))/elapsed.Seconds(), t.summary())
	for _, k := range sortedKeys(kinds) {
		res.line("  %-50s %s", k, fmtCounts(kinds[k]))
	}
	_, okN, fails := t.totals()
	res.check(len(fails) == 0, "every delivery answered as expected", "%d of %d", okN, len(ds))

	// 5. Effects: each paid session credited exactly once with its recorded
	// amount; unpaid ones expired without credit; every user's balance rose
	// by exactly the sum of their paid sessions.
	var ps []paidSession
	for _, x := range paid {
		ps = append(ps, paidSession{id: x.id, uid: x.uid, cents: x.cents})
	}
	sr, err := st.db.checkSessions(ctx, ps)
	if err != nil {
		return res.abort(err)
	}
	res.check(sr.ok(), "every paid session credited exactly once (recorded amount)", "%s", sr)
	res.money = fmt.Sprintf("%d/%d paid sessions credited once", sr.credited, sr.paid)
	var unpaidCredited int
	var unpaidStatus = map[string]int{}
	for _, x := range unpaid {
		var status string
		var deposits int
		err := st.db["wallet"].QueryRow(ctx, `SELECT status, (SELECT count(*) FROM transfers WHERE idempotency_key = 'stripe:checkout:' || $1) FROM checkout_sessions WHERE id = $1`, x.id).Scan(&status, &deposits)
		if err != nil {
			return res.abort(err)
		}
		unpaidStatus[status]++
		unpaidCredited += deposits
	}
	res.check(unpaidCredited == 0, "unpaid sessions never credited", "%d unpaid sessions (%s), %d deposits", len(unpaid), fmtCounts(unpaidStatus), unpaidCredited)
	var fake int
	_ = st.db["wallet"].QueryRow(ctx, `SELECT count(*) FROM transfers WHERE idempotency_key LIKE 'stripe:checkout:cs_test_faults_unknown_%'`).Scan(&fake)
	res.check(fake == 0, "no credit for unknown sessions", "%d deposits", fake)
	want := map[string]int64{}
	for _, x := range paid {
		want[x.uid] += x.cents * 10_000
	}
	var wrong []string
	for _, u := range users {
		b, _, err := s.wallet.Balance(ctx, u.UID)
		if err != nil {
			return res.abort(err)
		}
		if b-balances0[u.UID] != want[u.UID] {
			wrong = append(wrong, fmt.Sprintf("%s +%d µ$, want +%d", u.UID, b-balances0[u.UID], want[u.UID]))
		}
	}
	res.check(len(wrong) == 0, "balances rose by exactly the paid amounts", "%d users, %d differ %v", len(users), len(wrong), wrong[:min(3, len(wrong))])
	outcomes := map[string]int{}
	rows, err := st.db["wallet"].Query(ctx, `SELECT outcome, count(*) FROM processed_webhook_events WHERE event_id LIKE 'evt_faults_%' AND received_at >= $1 GROUP BY 1`, start)
	if err == nil {
		for rows.Next() {
			var o string
			var n int
			if rows.Scan(&o, &n) == nil {
				outcomes[o] = n
			}
		}
		rows.Close()
	}
	res.line("wallet's recorded outcomes of the distinct event ids: %s", fmtCounts(outcomes))
	// Attack on the internal API: Credit (creates money) without a client
	// certificate, over plaintext gRPC.
	if conn, err := grpc.NewClient(s.wallet.Conn.Target(), grpc.WithTransportCredentials(insecure.NewCredentials())); err == nil {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, cerr := walletv1.NewWalletServiceClient(conn).Credit(cctx, &walletv1.CreditRequest{Uid: users[0].UID, AmountMicros: 1_000_000,
			IdempotencyKey: "bench-faults:" + s.Run + ":plaintext-credit", Description: "bench/faults: attack without credentials"})
		cancel()
		conn.Close()
		res.check(cerr != nil, "wallet Credit without a client certificate refused", "plaintext gRPC Credit → %v", status.Code(cerr))
	}
	res.recovery = "n/a (no outage)"
	return res
}

// deliver sends ds in order with concurrency conc (a delivery without a
// signature is signed at send time: a replay) and counts, per kind, the
// statuses; a delivery answered as expected (2xx when want is 200, 400 when
// want is 400) counts "ok" in the tally.
func (st *suite) deliver(ctx context.Context, ds []delivery, conc int, secret string) (*tally, map[string]map[string]int, time.Duration) {
	t := newTally()
	kinds := map[string]map[string]int{}
	var mu sync.Mutex
	jobs := make(chan delivery)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Go(func() {
			for d := range jobs {
				sig := d.signature
				if d.resign {
					sig = signStripe(d.payload, secret, time.Now())
				}
				code := st.postWebhook(ctx, d.payload, sig)
				out := fmt.Sprintf("%d", code)
				if code == 0 {
					out = "transport"
				}
				okWant := (d.want == 200 && code/100 == 2) || (d.want == 400 && code == 400)
				mu.Lock()
				if kinds[d.kind] == nil {
					kinds[d.kind] = map[string]int{}
				}
				kinds[d.kind][out]++
				mu.Unlock()
				if okWant {
					t.add("webhook", "ok")
				} else {
					t.add("webhook", out)
				}
			}
		})
	}
	for _, d := range ds {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	return t, kinds, time.Since(t0)
}

func (st *suite) postWebhook(ctx context.Context, payload []byte, sig string) int {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, st.s.Base+"/api/stripe/webhook", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Stripe-Signature", sig)
	resp, err := st.s.HC.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func slices2[T any](s []T) []T { return append([]T(nil), s...) }
