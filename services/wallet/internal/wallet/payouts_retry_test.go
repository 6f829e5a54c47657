package wallet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Unknown outcomes of the Transfer call, the payout reconciler and
// webhooks racing the API answer (docs/wallet.md "Payouts").

// enabledCreator gives uid an enabled connected account and available
// earnings.
func enabledCreator(t *testing.T, s *PostgresStore, pool *pgxpool.Pool, p *Payouts, uid string, micros int64) {
	t.Helper()
	ctx := context.Background()
	seedAvailable(t, pool, uid, micros)
	if _, err := p.AccountLink(ctx, uid, ""); err != nil {
		t.Fatal(err)
	}
	acct, err := s.ConnectAccount(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyConnectEvent(ctx, accountEvent(acct.StripeAccountID, uid, 1, true)); err != nil {
		t.Fatal(err)
	}
}

// makeDue brings a payout's next Transfer call forward to now.
func makeDue(t *testing.T, pool *pgxpool.Pool, id string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `UPDATE payouts SET next_attempt_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

func onlyPayout(t *testing.T, p *Payouts, uid string) Payout {
	t.Helper()
	list, err := p.Payouts(context.Background(), uid)
	if err != nil || len(list) != 1 {
		t.Fatalf("payouts of %s: %+v %v", uid, list, err)
	}
	return list[0]
}

func TestPayoutRetryDelay(t *testing.T) {
	for attempts, want := range map[int]time.Duration{0: 30 * time.Second, 1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute,
		7: 32 * time.Minute, 8: time.Hour, 20: time.Hour, 1000: time.Hour} {
		if got := PayoutRetryDelay(attempts); got != want {
			t.Errorf("PayoutRetryDelay(%d) = %s, want %s", attempts, got, want)
		}
	}
}

// A Transfer Stripe made although the call timed out: the payout stays in
// transit (never refunded), the retry with the same key records the same
// Transfer (no second one), and transfer.created settles it once.
func TestPayoutUnknownOutcomeKeepsMoneyAndRetryCompletes(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{createThenTimeout: 1}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const uid = "creator-timeout"
	enabledCreator(t, s, pool, p, uid, 30*MicrosPerDollar)

	po, err := p.CreatePayout(ctx, uid, 20*MicrosPerDollar)
	if err != nil || po.Status != PayoutInTransit || po.StripeTransferID != "" {
		t.Fatalf("unknown outcome answered %+v %v", po, err)
	}
	got := onlyPayout(t, p, uid)
	if got.Status != PayoutInTransit || got.StripeTransferID != "" || got.Attempts != 1 || got.LastError == "" || got.FailureMessage != "" {
		t.Fatalf("after the timeout %+v", got)
	}
	if d := time.Until(got.NextAttemptAt); d < 20*time.Second || d > 40*time.Second {
		t.Fatalf("next attempt in %s, want about %s", d, PayoutRetryBase)
	}
	if a, tr := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)), payoutTestBalance(t, pool, PayoutsInTransitAccount(uid)); a != 10*MicrosPerDollar || tr != 20*MicrosPerDollar {
		t.Fatalf("available %d in transit %d: the money must stay in transit", a, tr)
	}
	if _, err := p.CreatePayout(ctx, uid, 10*MicrosPerDollar); !errors.Is(err, ErrPayoutInFlight) {
		t.Fatalf("second payout while unconfirmed: %v", err)
	}
	mustPayoutInvariants(t, s)

	// Not due yet: the reconciler leaves it.
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 0 || fc.calls != 1 {
		t.Fatalf("early round handled %d (%v), calls %d", n, err, fc.calls)
	}
	makeDue(t, pool, po.ID)
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 1 {
		t.Fatalf("round handled %d: %v", n, err)
	}
	if fc.calls != 2 || len(fc.transfers) != 1 || fc.transfers[0].IdempotencyKey != "payout-"+po.ID {
		t.Fatalf("calls %d, transfers %+v: want one Transfer, two calls with the same key", fc.calls, fc.transfers)
	}
	got = onlyPayout(t, p, uid)
	if got.Status != PayoutInTransit || got.StripeTransferID != "tr_"+po.ID || got.Attempts != 2 {
		t.Fatalf("after the retry %+v", got)
	}
	// Confirmed: never called again.
	makeDue(t, pool, po.ID)
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 0 || fc.calls != 2 {
		t.Fatalf("confirmed payout retried: %d %v calls %d", n, err, fc.calls)
	}
	ev := transferEvent(EventTransferCreated, got)
	for i, want := range []WebhookOutcome{OutcomePayoutPaid, OutcomeDuplicateEvent} {
		if res, err := s.ApplyConnectEvent(ctx, ev); err != nil || res.Outcome != want {
			t.Fatalf("delivery %d: %+v %v", i, res, err)
		}
	}
	if paid := payoutTestBalance(t, pool, AccountCreatorPayouts); paid != 20*MicrosPerDollar {
		t.Fatalf("paid %d", paid)
	}
	if a := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)); a != 10*MicrosPerDollar {
		t.Fatalf("available %d: refunded although paid", a)
	}
	mustPayoutInvariants(t, s)
}

// Unknown outcomes back off (doubling), and a later definitive refusal fails
// the payout and returns the money exactly once.
func TestPayoutRetryBacksOffThenRefusalRefundsOnce(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{down: 2}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const uid = "creator-backoff"
	enabledCreator(t, s, pool, p, uid, 25*MicrosPerDollar)
	po, err := p.CreatePayout(ctx, uid, 25*MicrosPerDollar)
	if err != nil || po.Status != PayoutInTransit {
		t.Fatalf("%+v %v", po, err)
	}
	makeDue(t, pool, po.ID)
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	got := onlyPayout(t, p, uid)
	if d := time.Until(got.NextAttemptAt); got.Attempts != 2 || d < 50*time.Second || d > 70*time.Second || got.StripeTransferID != "" {
		t.Fatalf("second unknown outcome: %+v (next in %s)", got, d)
	}
	fc.mu.Lock()
	fc.fail = true
	fc.mu.Unlock()
	makeDue(t, pool, po.ID)
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	got = onlyPayout(t, p, uid)
	if got.Status != PayoutFailed || got.FailureMessage != "The transfer to your Stripe account failed (insufficient funds). The amount is available again." {
		t.Fatalf("after the refusal %+v", got)
	}
	// Again: nothing more is returned, nothing is retried.
	if again, err := s.FailPayout(ctx, po.ID, "again"); err != nil || again.Status != PayoutFailed || again.FailureMessage != got.FailureMessage {
		t.Fatalf("second fail %+v %v", again, err)
	}
	makeDue(t, pool, po.ID)
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 0 || fc.calls != 3 {
		t.Fatalf("failed payout retried: %d %v calls %d", n, err, fc.calls)
	}
	if res, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferFailed, got)); err != nil || res.Outcome != OutcomeNoChange {
		t.Fatalf("late transfer.failed %+v %v", res, err)
	}
	if a, tr := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)), payoutTestBalance(t, pool, PayoutsInTransitAccount(uid)); a != 25*MicrosPerDollar || tr != 0 {
		t.Fatalf("available %d in transit %d", a, tr)
	}
	mustPayoutInvariants(t, s)
}

// A payout saved but never sent (the process died after the commit) is
// picked up by the reconciler once the first lease ends; replicas running
// rounds at once call each payout once.
func TestPayoutReconcilerSendsUnsentPayouts(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const n = 8
	ids := make([]string, n)
	for i := range n {
		uid := fmt.Sprintf("creator-crash-%d", i)
		enabledCreator(t, s, pool, p, uid, 40*MicrosPerDollar)
		po, err := s.CreatePayout(ctx, uid, 15*MicrosPerDollar) // committed, no Transfer call
		if err != nil {
			t.Fatal(err)
		}
		if po.Attempts != 1 || time.Until(po.NextAttemptAt) < time.Minute {
			t.Fatalf("first lease %+v", po)
		}
		ids[i] = po.ID
	}
	// The request that created them may still be calling: left alone.
	if got, err := p.ReconcilePayouts(ctx); err != nil || got != 0 || fc.calls != 0 {
		t.Fatalf("round during the first lease handled %d (%v)", got, err)
	}
	for _, id := range ids {
		makeDue(t, pool, id)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total int
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := p.ReconcilePayouts(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += got
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != n || fc.calls != n || len(fc.transfers) != n {
		t.Fatalf("handled %d, calls %d, transfers %d; want %d each", total, fc.calls, len(fc.transfers), n)
	}
	for i, id := range ids {
		got := onlyPayout(t, p, fmt.Sprintf("creator-crash-%d", i))
		if got.ID != id || got.StripeTransferID != "tr_"+id || got.Status != PayoutInTransit {
			t.Fatalf("payout %d %+v", i, got)
		}
		if res, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferCreated, got)); err != nil || res.Outcome != OutcomePayoutPaid {
			t.Fatalf("%+v %v", res, err)
		}
	}
	mustPayoutInvariants(t, s)
}

// transfer.created delivered before the API answer (success or timeout)
// records the Transfer and settles the payout once; the answer and the
// reconciler change nothing afterwards.
func TestPayoutWebhookBeforeAPIResponse(t *testing.T) {
	ctx := context.Background()
	for _, timeout := range []bool{false, true} {
		t.Run(fmt.Sprintf("timeout=%v", timeout), func(t *testing.T) {
			s, pool := newStore(t)
			fc := &fakeConnect{}
			if timeout {
				fc.createThenTimeout = 1
			}
			var delivered []WebhookEvent
			fc.before = func(tp ConnectTransferParams, id string) {
				ev := WebhookEvent{ID: "evt_early_" + id, Type: EventTransferCreated, Connect: &ConnectObject{TransferID: id,
					Amount: tp.AmountCents, Metadata: map[string]string{MetaPayoutID: tp.PayoutID, MetaUID: tp.UID}}}
				res, err := s.ApplyConnectEvent(ctx, ev)
				if err != nil || res.Outcome != OutcomePayoutPaid {
					t.Errorf("early webhook %+v %v", res, err)
				}
				delivered = append(delivered, ev)
			}
			p := NewPayouts(s, fc, nil, PayoutsConfig{})
			uid := fmt.Sprintf("creator-early-%v", timeout)
			enabledCreator(t, s, pool, p, uid, 20*MicrosPerDollar)
			po, err := p.CreatePayout(ctx, uid, 12*MicrosPerDollar)
			if err != nil {
				t.Fatal(err)
			}
			got := onlyPayout(t, p, uid)
			if got.Status != PayoutPaid || got.StripeTransferID != "tr_"+po.ID || got.ReturnedMicros != 0 {
				t.Fatalf("after the answer %+v", got)
			}
			// The duplicate delivery, and a reconciler round.
			if res, err := s.ApplyConnectEvent(ctx, delivered[0]); err != nil || res.Outcome != OutcomeDuplicateEvent {
				t.Fatalf("duplicate %+v %v", res, err)
			}
			if _, err := pool.Exec(ctx, `UPDATE payouts SET next_attempt_at = now() - interval '1 second'`); err != nil {
				t.Fatal(err)
			}
			if n, err := p.ReconcilePayouts(ctx); err != nil || n != 0 || fc.calls != 1 {
				t.Fatalf("reconciler after the webhook: %d %v calls %d", n, err, fc.calls)
			}
			if a, tr := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)), payoutTestBalance(t, pool, PayoutsInTransitAccount(uid)); a != 8*MicrosPerDollar || tr != 0 {
				t.Fatalf("available %d in transit %d", a, tr)
			}
			mustPayoutInvariants(t, s)
		})
	}
}

// Past the idempotency window the reconciler stops calling Stripe (a new
// call could make a second Transfer) and leaves the payout in transit for
// review; a late transfer.created still settles it.
func TestPayoutPastRetryWindowIsNotRetried(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{down: 1}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const uid = "creator-old"
	enabledCreator(t, s, pool, p, uid, 20*MicrosPerDollar)
	po, err := p.CreatePayout(ctx, uid, 10*MicrosPerDollar)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE payouts SET created_at = now() - interval '24 hours', next_attempt_at = now() WHERE id = $1`, po.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := p.ReconcilePayouts(ctx); err != nil || n != 1 || fc.calls != 1 {
		t.Fatalf("%d %v calls %d", n, err, fc.calls)
	}
	got := onlyPayout(t, p, uid)
	if got.Status != PayoutInTransit || got.LastError == "" || time.Until(got.NextAttemptAt) < 50*time.Minute {
		t.Fatalf("%+v", got)
	}
	got.StripeTransferID = "tr_" + po.ID
	if res, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferCreated, got)); err != nil || res.Outcome != OutcomePayoutPaid {
		t.Fatalf("%+v %v", res, err)
	}
	mustPayoutInvariants(t, s)
}
