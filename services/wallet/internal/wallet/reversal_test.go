package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

func testDeposit(cs CheckoutSession) Posting {
	return Posting{UID: cs.UID, Type: TypeDeposit, AmountMicros: cs.AmountCents * MicrosPerCent,
		IdempotencyKey: DepositKey(cs.ID), Description: "Wallet top-up via Stripe", Provider: ProviderStripe}
}

var evN atomic.Int64

func evID() string { return fmt.Sprintf("evt_%d", evN.Add(1)) }

// topUp records and pays a checkout session of uid through the webhook
// path, with PaymentIntent pi.
func topUp(t testing.TB, s *PostgresStore, uid, pi string, cents int64) {
	t.Helper()
	ctx := context.Background()
	cs := "cs_" + pi
	if err := s.CreateCheckoutSession(ctx, CheckoutSession{ID: cs, UID: uid, AmountCents: cents, Currency: "usd"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.ApplyWebhook(ctx, WebhookEvent{ID: evID(), Type: EventCheckoutCompleted, SessionID: cs,
		PaymentStatus: "paid", PaymentIntentID: pi, Mode: CheckoutModePayment}, testDeposit)
	if err != nil || res.Outcome != OutcomeCredited {
		t.Fatalf("top-up %s: %+v %v", pi, res, err)
	}
}

func refundEv(pi string, cumulative int64) WebhookEvent {
	return WebhookEvent{ID: evID(), Type: EventChargeRefunded, PaymentIntentID: pi, ChargeID: "ch_" + pi,
		ChargeAmount: 0, AmountRefunded: cumulative}
}

func disputeEv(typ, pi, dp, status string, cents int64) WebhookEvent {
	return WebhookEvent{ID: evID(), Type: typ, PaymentIntentID: pi, ChargeID: "ch_" + pi, DisputeID: dp,
		DisputeStatus: status, DisputeAmount: cents}
}

func apply(t testing.TB, s *PostgresStore, ev WebhookEvent, want WebhookOutcome) WebhookResult {
	t.Helper()
	res, err := s.ApplyReversal(context.Background(), ev)
	if err != nil || (want != "" && res.Outcome != want) {
		t.Fatalf("%s %+v: %+v %v (want %s)", ev.Type, ev, res, err, want)
	}
	return res
}

func spend(t testing.TB, s *PostgresStore, uid, key string, micros int64) {
	t.Helper()
	r, err := s.Reserve(context.Background(), reservation(uid, micros, key))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(context.Background(), Capture{HoldID: r.Hold.ID, AmountMicros: micros, Description: "answer"}); err != nil {
		t.Fatal(err)
	}
}

func mustView(t testing.TB, s *PostgresStore, uid string, balance, debt int64) {
	t.Helper()
	v := overview(t, s, uid)
	if v.Micros != balance || v.DebtMicros != debt {
		t.Fatalf("%s: balance %d debt %d; want %d and %d", uid, v.Micros, v.DebtMicros, balance, debt)
	}
}

func TestRefundOfUnspentDeposit(t *testing.T) {
	s, pool := newStore(t)
	topUp(t, s, "ann", "pi_a", 2000)
	ev := refundEv("pi_a", 2000)
	res := apply(t, s, ev, OutcomeReversed)
	if r := res.Reversal; r == nil || r.AmountMicros != 20*MicrosPerDollar || r.FromWalletMicros != 20*MicrosPerDollar || r.ToDebtMicros != 0 {
		t.Fatalf("reversal %+v", res.Reversal)
	}
	mustView(t, s, "ann", 0, 0)
	apply(t, s, ev, OutcomeDuplicateEvent)
	apply(t, s, refundEv("pi_a", 2000), OutcomeNoChange) // same refund under a new event id
	h := history(t, s, "ann")
	if len(h) != 2 || h[0].Type != TypeRefund || h[0].AmountMicros != 20*MicrosPerDollar || h[0].Provider != ProviderStripe {
		t.Fatalf("history %+v", h)
	}
	if n := outboxCount(t, pool, "ann", TypeDepositReversed); n != 1 {
		t.Fatalf("%d reversed events", n)
	}
	mustInvariants(t, s)
	// The invariants notice a payment row that disagrees with its transfers.
	if _, err := pool.Exec(context.Background(), `UPDATE stripe_payments SET refunded_cents = 1000 WHERE payment_intent_id = 'pi_a'`); err != nil {
		t.Fatal(err)
	}
	var iv *InvariantViolation
	if err := s.CheckInvariants(context.Background()); !errors.As(err, &iv) {
		t.Fatalf("corrupted refund row: %v", err)
	}
}

func TestRefundOfSpentDepositMakesDebtPaidByNextDeposit(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	topUp(t, s, "bob", "pi_b1", 2000)
	spend(t, s, "bob", "b-1", 15*MicrosPerDollar)
	// A hold in progress is not taken by the reversal (its answer is running).
	r, err := s.Reserve(ctx, reservation("bob", 2*MicrosPerDollar, "b-2"))
	if err != nil {
		t.Fatal(err)
	}
	res := apply(t, s, refundEv("pi_b1", 2000), OutcomeReversed)
	if rv := res.Reversal; rv.FromWalletMicros != 3*MicrosPerDollar || rv.ToDebtMicros != 17*MicrosPerDollar {
		t.Fatalf("reversal %+v", rv)
	}
	mustView(t, s, "bob", 2*MicrosPerDollar, 17*MicrosPerDollar)
	// Debt refuses answers.
	if _, err := s.Reserve(ctx, reservation("bob", 1, "b-3")); !errors.Is(err, ErrDebtOutstanding) {
		t.Fatalf("reserve in debt: %v", err)
	}
	// The running answer settles normally.
	if _, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 500_000, Description: "answer"}); err != nil {
		t.Fatal(err)
	}
	mustView(t, s, "bob", 1_500_000, 17*MicrosPerDollar)
	// The next top-up pays the debt first, in the same transaction: all of
	// the wallet (the returned rest of the hold included) goes to the debt.
	topUp(t, s, "bob", "pi_b2", 1000)
	mustView(t, s, "bob", 0, 5_500_000)
	topUp(t, s, "bob", "pi_b3", 2000)
	mustView(t, s, "bob", 14_500_000, 0)
	h := history(t, s, "bob")
	var repaid int64
	for _, it := range h {
		if it.Type == TypeRepayment {
			repaid += it.AmountMicros
		}
	}
	if repaid != 17*MicrosPerDollar {
		t.Fatalf("repayments %d, want 17 dollars: %+v", repaid, h)
	}
	if _, err := s.Reserve(ctx, reservation("bob", 1, "b-4")); err != nil {
		t.Fatalf("reserve after repaying: %v", err)
	}
	mustInvariants(t, s)
}

// TestPartialRefundsDuplicatedAndReordered: cumulative amount_refunded makes
// every ordering, duplicate and concurrent delivery converge on the latest
// total, moved once.
func TestPartialRefundsDuplicatedAndReordered(t *testing.T) {
	s, _ := newStore(t)
	topUp(t, s, "cat", "pi_c", 3000)
	// Newest first, then an older one, then duplicates under new ids.
	apply(t, s, refundEv("pi_c", 2500), OutcomeReversed)
	apply(t, s, refundEv("pi_c", 1000), OutcomeNoChange)
	apply(t, s, refundEv("pi_c", 2500), OutcomeNoChange)
	mustView(t, s, "cat", 5*MicrosPerDollar, 0)
	apply(t, s, refundEv("pi_c", 3000), OutcomeReversed)
	mustView(t, s, "cat", 0, 0)
	mustInvariants(t, s)

	// Concurrent storm: 3 refund steps, each delivered 6 times (3 event ids,
	// each twice) in random order from 18 goroutines.
	topUp(t, s, "dan", "pi_d", 3000)
	var evs []WebhookEvent
	for _, cum := range []int64{500, 1200, 3000} {
		for range 3 {
			ev := refundEv("pi_d", cum)
			evs = append(evs, ev, ev)
		}
	}
	rand.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
	var wg sync.WaitGroup
	var reversed atomic.Int64
	var failed atomic.Value
	for _, ev := range evs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.ApplyReversal(context.Background(), ev)
			if err != nil {
				failed.Store(err)
			}
			if res.Reversal != nil {
				reversed.Add(res.Reversal.AmountMicros)
			}
		}()
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		t.Fatal(e)
	}
	if reversed.Load() != 30*MicrosPerDollar {
		t.Fatalf("reversed %d in total, want $30", reversed.Load())
	}
	mustView(t, s, "dan", 0, 0)
	mustInvariants(t, s)
}

func TestDisputeLostAndWon(t *testing.T) {
	s, _ := newStore(t)
	// Lost: withdrawn once (created and funds_withdrawn both arrive), stays withdrawn.
	topUp(t, s, "eve", "pi_e1", 1000)
	apply(t, s, disputeEv(EventDisputeCreated, "pi_e1", "dp_1", "needs_response", 1000), OutcomeReversed)
	apply(t, s, disputeEv(EventDisputeFundsWithdrawn, "pi_e1", "dp_1", "needs_response", 1000), OutcomeNoChange)
	mustView(t, s, "eve", 0, 0)
	apply(t, s, disputeEv(EventDisputeClosed, "pi_e1", "dp_1", DisputeStatusLost, 1000), OutcomeNoChange)
	mustView(t, s, "eve", 0, 0)

	// Won after part of it was spent: withdrawal makes debt, the win gives
	// it all back, paying the debt first.
	topUp(t, s, "eve", "pi_e2", 1000)
	spend(t, s, "eve", "e-1", 4*MicrosPerDollar)
	apply(t, s, disputeEv(EventDisputeCreated, "pi_e2", "dp_2", "needs_response", 1000), OutcomeReversed)
	mustView(t, s, "eve", 0, 4*MicrosPerDollar)
	apply(t, s, disputeEv(EventDisputeClosed, "pi_e2", "dp_2", DisputeStatusWon, 1000), OutcomeReinstated)
	apply(t, s, disputeEv(EventDisputeFundsReinstated, "pi_e2", "dp_2", DisputeStatusWon, 1000), OutcomeNoChange)
	apply(t, s, disputeEv(EventDisputeClosed, "pi_e2", "dp_2", DisputeStatusWon, 1000), OutcomeNoChange)
	mustView(t, s, "eve", 6*MicrosPerDollar, 0)
	mustInvariants(t, s)
}

// TestDisputeEventsOutOfOrder: a close seen before the dispute's creation.
func TestDisputeEventsOutOfOrder(t *testing.T) {
	s, _ := newStore(t)
	// Won first: nothing ever leaves.
	topUp(t, s, "fay", "pi_f1", 1000)
	apply(t, s, disputeEv(EventDisputeClosed, "pi_f1", "dp_f1", DisputeStatusWon, 1000), OutcomeNoChange)
	apply(t, s, disputeEv(EventDisputeFundsReinstated, "pi_f1", "dp_f1", DisputeStatusWon, 1000), OutcomeNoChange)
	apply(t, s, disputeEv(EventDisputeCreated, "pi_f1", "dp_f1", "needs_response", 1000), OutcomeNoChange)
	apply(t, s, disputeEv(EventDisputeFundsWithdrawn, "pi_f1", "dp_f1", "needs_response", 1000), OutcomeNoChange)
	mustView(t, s, "fay", 10*MicrosPerDollar, 0)
	// Lost first: withdrawn then, once.
	topUp(t, s, "fay", "pi_f2", 500)
	apply(t, s, disputeEv(EventDisputeClosed, "pi_f2", "dp_f2", DisputeStatusLost, 500), OutcomeReversed)
	apply(t, s, disputeEv(EventDisputeCreated, "pi_f2", "dp_f2", "needs_response", 500), OutcomeNoChange)
	mustView(t, s, "fay", 10*MicrosPerDollar, 0)
	// An inquiry moves nothing.
	apply(t, s, disputeEv(EventDisputeCreated, "pi_f1", "dp_f3", "warning_needs_response", 1000), OutcomeNoChange)
	mustView(t, s, "fay", 10*MicrosPerDollar, 0)
	// A refund and a dispute together never take back more than was paid.
	topUp(t, s, "fay", "pi_f4", 1000)
	apply(t, s, refundEv("pi_f4", 600), OutcomeReversed)
	res := apply(t, s, disputeEv(EventDisputeCreated, "pi_f4", "dp_f4", "needs_response", 1000), OutcomeReversed)
	if res.Reversal.AmountMicros != 4*MicrosPerDollar {
		t.Fatalf("dispute after a partial refund took %d", res.Reversal.AmountMicros)
	}
	mustView(t, s, "fay", 10*MicrosPerDollar, 0)
	mustInvariants(t, s)
}

// TestRefundBeforeTheDeposit: the refund's webhook arrives before the
// checkout's (delayed); it is kept and applied with the deposit.
func TestRefundBeforeTheDeposit(t *testing.T) {
	s, _ := newStore(t)
	ev := refundEv("pi_g", 700)
	apply(t, s, ev, OutcomeUnmatched)
	apply(t, s, ev, OutcomeDuplicateEvent)
	mustView(t, s, "gus", 0, 0)
	topUp(t, s, "gus", "pi_g", 1000)
	mustView(t, s, "gus", 3*MicrosPerDollar, 0)
	apply(t, s, refundEv("pi_g", 700), OutcomeNoChange)
	mustInvariants(t, s)
}

// TestPaymentIntentLearntLater: a session credited by an event without its
// PaymentIntent learns it from a later event about the same session, and a
// refund kept meanwhile applies then.
func TestPaymentIntentLearntLater(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if err := s.CreateCheckoutSession(ctx, CheckoutSession{ID: "cs_late", UID: "hal", AmountCents: 1000, Currency: "usd"}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.ApplyWebhook(ctx, WebhookEvent{ID: evID(), Type: EventCheckoutCompleted, SessionID: "cs_late", PaymentStatus: "paid"}, testDeposit); err != nil || res.Outcome != OutcomeCredited {
		t.Fatalf("credit: %+v %v", res, err)
	}
	apply(t, s, refundEv("pi_late", 400), OutcomeUnmatched)
	mustView(t, s, "hal", 10*MicrosPerDollar, 0)
	res, err := s.ApplyWebhook(ctx, WebhookEvent{ID: evID(), Type: EventCheckoutCompleted, SessionID: "cs_late", PaymentStatus: "paid",
		PaymentIntentID: "pi_late"}, testDeposit)
	if err != nil || res.Outcome != OutcomeAlreadyFinal {
		t.Fatalf("second event: %+v %v", res, err)
	}
	mustView(t, s, "hal", 6*MicrosPerDollar, 0)
	mustInvariants(t, s)
}
