package wallet

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// saveTestCard gives uid a saved card and enables auto-recharge: below
// threshold, add amount.
func saveTestCard(t testing.TB, s *PostgresStore, uid string, threshold, amount int64) {
	t.Helper()
	ctx := context.Background()
	if err := s.CreateSetupSession(ctx, "cs_setup_"+uid, uid); err != nil {
		t.Fatal(err)
	}
	res, err := s.SaveCard(ctx, WebhookEvent{ID: evID(), Type: EventCheckoutCompleted, SessionID: "cs_setup_" + uid, Mode: CheckoutModeSetup},
		uid, SavedCard{CustomerID: "cus_" + uid, PaymentMethodID: "pm_" + uid, Label: "Visa •••• 4242"})
	if err != nil || res.Outcome != OutcomeCardSaved {
		t.Fatalf("save card: %+v %v", res, err)
	}
	putSettings(t, s, uid, BillingSettings{AutoRecharge: AutoRechargeSettings{Enabled: true, ThresholdMicros: ptr(threshold), AmountMicros: ptr(amount)}})
}

func rechargesOf(t testing.TB, pool *pgxpool.Pool, uid string) map[string]int {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT status, count(*) FROM recharges WHERE uid = $1 GROUP BY status`, uid)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			t.Fatal(err)
		}
		out[st] = n
	}
	return out
}

func rechargeCredit(rc RechargeCredit) Posting {
	return Posting{UID: rc.UID, Type: TypeDeposit, AmountMicros: rc.AmountCents * MicrosPerCent,
		IdempotencyKey: RechargeKey(rc.PaymentIntentID), Description: "Auto-recharge via Stripe", Provider: ProviderStripe}
}

func piEvent(typ, rechargeID, pi string) WebhookEvent {
	return WebhookEvent{ID: evID(), Type: typ, PaymentIntentID: pi, ChargeID: "ch_" + pi,
		Metadata: map[string]string{MetaRechargeID: rechargeID}, FailureMessage: "Your card was declined."}
}

// TestAutoRechargeOnceUnder100ConcurrentAnswers: 100 answers (Reserve +
// Capture) race across the threshold; exactly one recharge starts, and its
// PaymentIntent's webhook credits it exactly once.
func TestAutoRechargeOnceUnder100ConcurrentAnswers(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "val", 9*MicrosPerDollar)
	saveTestCard(t, s, "val", 5*MicrosPerDollar, 20*MicrosPerDollar)
	var (
		wg      sync.WaitGroup
		started sync.Map
		n       atomic.Int64
		failed  atomic.Value
	)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Reserve(ctx, reservation("val", 50_000, fmt.Sprintf("v%d", i)))
			if err != nil {
				failed.Store(err)
				return
			}
			c, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 50_000, Description: "answer"})
			if err != nil {
				failed.Store(err)
				return
			}
			if c.RechargeID != "" {
				started.Store(c.RechargeID, true)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		t.Fatal(e)
	}
	if n.Load() != 1 {
		t.Fatalf("%d recharges started, want 1", n.Load())
	}
	if got := rechargesOf(t, pool, "val"); got["pending"] != 1 || len(got) != 1 {
		t.Fatalf("recharges %v", got)
	}
	var id string
	started.Range(func(k, _ any) bool { id = k.(string); return false })
	if v := overview(t, s, "val"); !v.AutoRecharge.InFlight || v.AutoRecharge.CardLabel != "Visa •••• 4242" {
		t.Fatalf("view %+v", v.AutoRecharge)
	}

	// The worker claims it (once: a second claim finds nothing while leased).
	r, ok, err := s.ClaimRecharge(ctx, "", time.Minute)
	if err != nil || !ok || r.ID != id || r.AmountCents != 2000 || r.PaymentMethodID != "pm_val" || r.CustomerID != "cus_val" || !r.Enabled {
		t.Fatalf("claim %+v %v %v", r, ok, err)
	}
	if _, ok, _ := s.ClaimRecharge(ctx, "", time.Minute); ok {
		t.Fatal("a leased recharge was claimed twice")
	}
	if err := s.MarkRechargeSent(ctx, id, "pi_val"); err != nil {
		t.Fatal(err)
	}
	ev := piEvent(EventPaymentIntentSucceeded, id, "pi_val")
	res, err := s.ApplyRechargeEvent(ctx, ev, 0, rechargeCredit)
	if err != nil || res.Outcome != OutcomeCredited {
		t.Fatalf("succeeded: %+v %v", res, err)
	}
	for _, again := range []WebhookEvent{ev, piEvent(EventPaymentIntentSucceeded, id, "pi_val")} {
		if res, err := s.ApplyRechargeEvent(ctx, again, 0, rechargeCredit); err != nil || res.Credit != nil {
			t.Fatalf("again: %+v %v", res, err)
		}
	}
	mustBalance(t, s, "val", Balance{Micros: 24 * MicrosPerDollar})
	if got := rechargesOf(t, pool, "val"); got["succeeded"] != 1 || len(got) != 1 {
		t.Fatalf("recharges %v", got)
	}
	// A PaymentIntent that is not a recharge (a Checkout payment's) is ignored.
	if res, err := s.ApplyRechargeEvent(ctx, WebhookEvent{ID: evID(), Type: EventPaymentIntentSucceeded, PaymentIntentID: "pi_other"}, 0, rechargeCredit); err != nil || res.Outcome != OutcomeIgnored {
		t.Fatalf("foreign PaymentIntent: %+v %v", res, err)
	}
	mustInvariants(t, s)
}

// TestDeclinedRechargesTurnAutoRechargeOff: three declines in a row turn
// auto-recharge off with a reason; a success in between resets the count;
// the webhook and the worker seeing the same decline count it once.
func TestDeclinedRechargesTurnAutoRechargeOff(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "wes", 100*MicrosPerDollar)
	saveTestCard(t, s, "wes", 200*MicrosPerDollar, 10*MicrosPerDollar) // always below the threshold
	step := 0
	cross := func() string {
		t.Helper()
		step++
		r, err := s.Reserve(ctx, reservation("wes", 1000, fmt.Sprintf("w%d", step)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 1000, Description: "answer"})
		if err != nil {
			t.Fatal(err)
		}
		return c.RechargeID
	}
	decline := func(id string) RechargeFailure {
		t.Helper()
		pi := "pi_" + id
		f, err := s.FailRecharge(ctx, id, pi, "Your card was declined.", 0)
		if err != nil || !f.Counted {
			t.Fatalf("fail: %+v %v", f, err)
		}
		// The payment_failed webhook for the same decline counts nothing more.
		if res, err := s.ApplyRechargeEvent(ctx, piEvent(EventPaymentIntentPaymentFailed, id, pi), 0, rechargeCredit); err != nil || res.Outcome != OutcomeNoChange {
			t.Fatalf("webhook after the worker: %+v %v", res, err)
		}
		return f
	}
	if f := decline(cross()); f.Failures != 1 || f.Disabled {
		t.Fatalf("first: %+v", f)
	}
	if f := decline(cross()); f.Failures != 2 || f.Disabled {
		t.Fatalf("second: %+v", f)
	}
	// A success resets the count.
	id := cross()
	if err := s.MarkRechargeSent(ctx, id, "pi_ok"); err != nil {
		t.Fatal(err)
	}
	if res, err := s.ApplyRechargeEvent(ctx, piEvent(EventPaymentIntentSucceeded, id, "pi_ok"), 0, rechargeCredit); err != nil || res.Outcome != OutcomeCredited {
		t.Fatalf("success: %+v %v", res, err)
	}
	for i := 1; i <= 3; i++ {
		id := cross()
		if id == "" {
			t.Fatalf("crossing %d started no recharge", i)
		}
		// Declined through the webhook this time.
		res, err := s.ApplyRechargeEvent(ctx, piEvent(EventPaymentIntentPaymentFailed, id, "pi_d"+fmt.Sprint(i)), 0, rechargeCredit)
		if err != nil || res.Outcome != OutcomeFailed {
			t.Fatalf("decline %d: %+v %v", i, res, err)
		}
	}
	v := overview(t, s, "wes")
	if v.Settings.AutoRecharge.Enabled || v.AutoRecharge.DisabledReason == "" || v.AutoRecharge.LastFailure != "Your card was declined." || v.AutoRecharge.InFlight {
		t.Fatalf("after three declines: %+v %+v", v.Settings.AutoRecharge, v.AutoRecharge)
	}
	if id := cross(); id != "" {
		t.Fatal("a recharge started while auto-recharge is off")
	}
	if n := outboxCount(t, pool, "wes", TypeRechargeFailed); n != 5 {
		t.Fatalf("%d recharge.failed events, want 5", n)
	}
	// Enabling again clears the reason and the count.
	putSettings(t, s, "wes", BillingSettings{AutoRecharge: AutoRechargeSettings{Enabled: true, ThresholdMicros: ptr(200 * MicrosPerDollar), AmountMicros: ptr(10 * MicrosPerDollar)}})
	if v := overview(t, s, "wes"); v.AutoRecharge.DisabledReason != "" || !v.Settings.AutoRecharge.Enabled {
		t.Fatalf("re-enabled: %+v", v.AutoRecharge)
	}
	mustInvariants(t, s)
}

// TestRechargeBackOffAndCancel: after a decline no recharge starts before
// the back-off ends; a recharge pending when auto-recharge is turned off is
// canceled by the worker, not paid.
func TestRechargeBackOffAndCancel(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "xia", 100*MicrosPerDollar)
	saveTestCard(t, s, "xia", 200*MicrosPerDollar, 10*MicrosPerDollar)
	spendOnce := func(key string) string {
		r, err := s.Reserve(ctx, reservation("xia", 1000, key))
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 1000, Description: "answer"})
		if err != nil {
			t.Fatal(err)
		}
		return c.RechargeID
	}
	id := spendOnce("x1")
	if _, err := s.FailRecharge(ctx, id, "", "Your card was declined.", time.Hour); err != nil {
		t.Fatal(err)
	}
	if id := spendOnce("x2"); id != "" {
		t.Fatal("a recharge started during the back-off")
	}
	if _, err := pool.Exec(ctx, `UPDATE billing_settings SET auto_recharge_retry_at = now() - interval '1 second' WHERE uid = 'xia'`); err != nil {
		t.Fatal(err)
	}
	id = spendOnce("x3")
	if id == "" {
		t.Fatal("no recharge after the back-off")
	}
	putSettings(t, s, "xia", BillingSettings{})
	r, ok, err := s.ClaimRecharge(ctx, id, time.Minute)
	if err != nil || !ok || r.Enabled {
		t.Fatalf("claim: %+v %v %v", r, ok, err)
	}
	if err := s.CancelRecharge(ctx, id, "off"); err != nil {
		t.Fatal(err)
	}
	if got := rechargesOf(t, pool, "xia"); got["canceled"] != 1 || got["failed"] != 1 {
		t.Fatalf("recharges %v", got)
	}
}
