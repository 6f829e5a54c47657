package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// fakeConnect is an in-memory Stripe Connect. Transfers are idempotent by
// key like Stripe's: a repeated key answers the Transfer made before.
type fakeConnect struct {
	mu        sync.Mutex
	accounts  map[string]string // idempotency key → account
	transfers []ConnectTransferParams
	byKey     map[string]string // idempotency key → transfer id
	calls     int
	fail      bool // refuse (a definitive 4xx)
	// createThenTimeout: the next calls make the Transfer, then answer a
	// timeout (an unknown outcome); down counts the next calls that fail
	// before reaching Stripe.
	createThenTimeout int
	down              int
	// before runs before each call's answer (a webhook outrunning it).
	before func(p ConnectTransferParams, id string)
	n      int
}

var errFakeTimeout = errors.New("post https://api.stripe.com/v1/transfers: context deadline exceeded (Client.Timeout exceeded while awaiting headers)")

func (f *fakeConnect) CreateExpressAccount(_ context.Context, p ConnectAccountParams) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.accounts == nil {
		f.accounts = map[string]string{}
	}
	if id, ok := f.accounts[p.IdempotencyKey]; ok {
		return id, nil
	}
	f.n++
	id := fmt.Sprintf("acct_%d", f.n)
	f.accounts[p.IdempotencyKey] = id
	return id, nil
}

func (f *fakeConnect) CreateAccountLink(_ context.Context, acct, refresh, ret string) (string, error) {
	return "https://connect.example/" + acct + "?r=" + refresh + "&t=" + ret, nil
}

func (f *fakeConnect) CreateTransfer(_ context.Context, p ConnectTransferParams) (string, error) {
	f.mu.Lock()
	f.calls++
	if f.down > 0 {
		f.down--
		f.mu.Unlock()
		return "", &ProviderError{Message: "Payment provider error: could not create the transfer", Err: errFakeTimeout}
	}
	if f.fail {
		f.mu.Unlock()
		return "", &ProviderError{Message: "Payment provider error: could not create the transfer (insufficient funds)",
			Err: fmt.Errorf("%w: 400 balance_insufficient", ErrTransferRefused)}
	}
	if f.byKey == nil {
		f.byKey = map[string]string{}
	}
	id, ok := f.byKey[p.IdempotencyKey]
	if !ok {
		id = "tr_" + p.PayoutID
		f.byKey[p.IdempotencyKey] = id
		f.transfers = append(f.transfers, p)
	}
	timeout := f.createThenTimeout > 0
	if timeout {
		f.createThenTimeout--
	}
	before := f.before
	f.mu.Unlock()
	if before != nil {
		before(p, id)
	}
	if timeout {
		return "", &ProviderError{Message: "Payment provider error: could not create the transfer", Err: errFakeTimeout}
	}
	return id, nil
}

// seedAvailable credits uid's available earnings (from platform revenue).
func seedAvailable(t *testing.T, pool *pgxpool.Pool, uid string, micros int64) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := ensureAvailableAccount(ctx, tx, uid); err != nil {
			return err
		}
		return moveMoney(ctx, tx, fmt.Sprintf("test:seed:%s:%d", uid, rand.Int64()), AccountPlatformRevenue, EarningsAvailableAccount(uid),
			micros, TypeEarningRelease, uid, "seed", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func payoutTestBalance(t *testing.T, pool *pgxpool.Pool, id string) int64 {
	t.Helper()
	var b int64
	err := pool.QueryRow(context.Background(), `SELECT COALESCE((SELECT balance_micros FROM accounts WHERE id = $1), 0)`, id).Scan(&b)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var payoutEvN int

func accountEvent(acct, uid string, created int64, enabled bool) WebhookEvent {
	payoutEvN++
	o := &ConnectObject{Created: created, AccountID: acct, PayoutsEnabled: enabled, DetailsSubmitted: true,
		Metadata: map[string]string{MetaUID: uid}}
	if !enabled {
		o.DisabledReason = "requirements.past_due"
		o.CurrentlyDue = []string{"individual.verification.document"}
	}
	return WebhookEvent{ID: fmt.Sprintf("evt_acct_%d_%d", payoutEvN, rand.Int64()), Type: EventAccountUpdated, Connect: o}
}

func transferEvent(typ string, p Payout) WebhookEvent {
	payoutEvN++
	o := &ConnectObject{TransferID: "tr_" + p.ID, Amount: p.AmountCents, Metadata: map[string]string{MetaPayoutID: p.ID, MetaUID: p.UID}}
	if typ == EventTransferReversed {
		o.AmountReversed, o.Reversed = p.AmountCents, true
	}
	return WebhookEvent{ID: fmt.Sprintf("evt_tr_%d_%d", payoutEvN, rand.Int64()), Type: typ, Connect: o}
}

func mustPayoutInvariants(t *testing.T, s *PostgresStore) {
	t.Helper()
	if err := s.CheckPayoutInvariants(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestPayoutHappyPathAndRefusals(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{}
	p := NewPayouts(s, fc, nil, PayoutsConfig{AppBaseURL: "http://app.test/"})
	const uid = "creator-1"
	seedAvailable(t, pool, uid, 25*MicrosPerDollar+5)

	if _, err := p.CreatePayout(ctx, uid, 15*MicrosPerDollar); !errors.Is(err, ErrPayoutAccountMissing) {
		t.Fatalf("no account: %v", err)
	}
	url, err := p.AccountLink(ctx, uid, "c@example.com")
	if err != nil || url != "https://connect.example/acct_1?r=http://app.test/dashboard/earnings?payouts=refresh&t=http://app.test/dashboard/earnings?payouts=return" {
		t.Fatalf("link %q %v", url, err)
	}
	if _, err := p.AccountLink(ctx, uid, "c@example.com"); err != nil || fc.n != 1 {
		t.Fatalf("second link created another account: %d %v", fc.n, err)
	}
	sum, _ := p.PayoutSummary(ctx, uid)
	if sum.AccountStatus != PayoutAccountOnboarding {
		t.Fatalf("summary %+v", sum)
	}
	var re *PayoutRestrictedError
	if _, err := p.CreatePayout(ctx, uid, 15*MicrosPerDollar); !errors.As(err, &re) || re.Reason != "onboarding is not finished" {
		t.Fatalf("onboarding: %v", err)
	}
	if res, err := s.ApplyConnectEvent(ctx, accountEvent("acct_1", uid, 100, false)); err != nil || res.Outcome != OutcomeAccountUpdated {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := p.CreatePayout(ctx, uid, 15*MicrosPerDollar); !errors.As(err, &re) || re.Reason != "Stripe needs more information" {
		t.Fatalf("restricted: %v", err)
	}
	if _, err := s.ApplyConnectEvent(ctx, accountEvent("acct_1", uid, 200, true)); err != nil {
		t.Fatal(err)
	}
	// An older event delivered late changes nothing.
	if res, err := s.ApplyConnectEvent(ctx, accountEvent("acct_1", uid, 150, false)); err != nil || res.Outcome != OutcomeStale {
		t.Fatalf("stale: %+v %v", res, err)
	}
	var ve *ValidationError
	if _, err := p.CreatePayout(ctx, uid, 9_990_000); !errors.As(err, &ve) || ve.Message != "The minimum withdrawal is $10.00." {
		t.Fatalf("minimum: %v", err)
	}
	var se *EarningsShortError
	if _, err := p.CreatePayout(ctx, uid, 26*MicrosPerDollar); !errors.As(err, &se) || se.AvailableMicros != 25*MicrosPerDollar+5 {
		t.Fatalf("insufficient: %v", err)
	}
	po, err := p.CreatePayout(ctx, uid, 15*MicrosPerDollar)
	if err != nil || po.Status != PayoutInTransit || po.StripeTransferID != "tr_"+po.ID || po.AmountCents != 1500 {
		t.Fatalf("payout %+v %v", po, err)
	}
	if tr := fc.transfers[0]; tr.AccountID != "acct_1" || tr.AmountCents != 1500 || tr.IdempotencyKey != "payout-"+po.ID || tr.UID != uid {
		t.Fatalf("transfer %+v", tr)
	}
	if _, err := p.CreatePayout(ctx, uid, 10*MicrosPerDollar); !errors.Is(err, ErrPayoutInFlight) {
		t.Fatalf("in flight: %v", err)
	}
	if a, tr := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)), payoutTestBalance(t, pool, PayoutsInTransitAccount(uid)); a != 10*MicrosPerDollar+5 || tr != 15*MicrosPerDollar {
		t.Fatalf("available %d in transit %d", a, tr)
	}
	sum, _ = p.PayoutSummary(ctx, uid)
	if sum.InTransitMicros != 15*MicrosPerDollar || sum.AccountStatus != PayoutAccountEnabled {
		t.Fatalf("summary %+v", sum)
	}
	if res, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferCreated, po)); err != nil || res.Outcome != OutcomePayoutPaid {
		t.Fatalf("created %+v %v", res, err)
	}
	sum, _ = p.PayoutSummary(ctx, uid)
	list, _ := p.Payouts(ctx, uid)
	if sum.PaidOutMicros != 15*MicrosPerDollar || sum.InTransitMicros != 0 || len(list) != 1 || list[0].Status != PayoutPaid {
		t.Fatalf("after paid %+v %+v", sum, list)
	}
	// The next payout may go now.
	if _, err := p.CreatePayout(ctx, uid, 10*MicrosPerDollar); err != nil {
		t.Fatal(err)
	}
	mustPayoutInvariants(t, s)
}

func TestPayoutTransferFailureReturnsMoney(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{fail: true}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const uid = "creator-f"
	seedAvailable(t, pool, uid, 20*MicrosPerDollar)
	if _, err := p.AccountLink(ctx, uid, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyConnectEvent(ctx, accountEvent("acct_1", uid, 1, true)); err != nil {
		t.Fatal(err)
	}
	var pe *ProviderError
	if _, err := p.CreatePayout(ctx, uid, 12*MicrosPerDollar); !errors.As(err, &pe) ||
		pe.Message != "The transfer to your Stripe account failed (insufficient funds). The amount is available again." {
		t.Fatalf("failure: %v", err)
	}
	list, _ := p.Payouts(ctx, uid)
	if len(list) != 1 || list[0].Status != PayoutFailed || list[0].FailureMessage == "" {
		t.Fatalf("list %+v", list)
	}
	if a := payoutTestBalance(t, pool, EarningsAvailableAccount(uid)); a != 20*MicrosPerDollar {
		t.Fatalf("available %d", a)
	}
	// A late transfer.created of the failed payout moves nothing.
	if res, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferCreated, list[0])); err != nil || res.Outcome != OutcomeNoChange {
		t.Fatalf("%+v %v", res, err)
	}
	fc.fail = false
	if _, err := p.CreatePayout(ctx, uid, 20*MicrosPerDollar); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
	mustPayoutInvariants(t, s)
}

// TestConnectWebhookStorm delivers, concurrently and shuffled, every
// transfer event of many payouts several times (some reversed, some
// failed, reversals often before creations) and account.updated storms:
// each payout ends in the right state, money moved once.
func TestConnectWebhookStorm(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fc := &fakeConnect{}
	p := NewPayouts(s, fc, nil, PayoutsConfig{})
	const users = 12
	type want struct {
		po     Payout
		status PayoutStatus
	}
	var (
		wants []want
		evs   []WebhookEvent
	)
	for i := range users {
		uid := fmt.Sprintf("storm-%d", i)
		seedAvailable(t, pool, uid, 50*MicrosPerDollar)
		if _, err := p.AccountLink(ctx, uid, ""); err != nil {
			t.Fatal(err)
		}
		acct := fmt.Sprintf("acct_%d", i+1)
		// Account storm: the newest (enabled) must win whatever the order.
		accEvs := []WebhookEvent{accountEvent(acct, uid, 10, false), accountEvent(acct, uid, 20, true), accountEvent(acct, uid, 5, false)}
		rand.Shuffle(len(accEvs), func(a, b int) { accEvs[a], accEvs[b] = accEvs[b], accEvs[a] })
		for _, ev := range accEvs {
			for range 2 {
				if _, err := s.ApplyConnectEvent(ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		po, err := p.CreatePayout(ctx, uid, int64(10+i)*MicrosPerDollar)
		if err != nil {
			t.Fatalf("payout %d: %v", i, err)
		}
		w := want{po: po, status: PayoutPaid}
		evs = append(evs, transferEvent(EventTransferCreated, po))
		switch i % 3 {
		case 1:
			w.status = PayoutReversed
			evs = append(evs, transferEvent(EventTransferReversed, po))
		case 2:
			w.status = PayoutReversed // failed after created or before it: reversed or failed
			evs = append(evs, transferEvent(EventTransferFailed, po))
		}
		wants = append(wants, w)
	}
	// Each event three times, shuffled, applied by 6 workers.
	var all []WebhookEvent
	for range 3 {
		all = append(all, evs...)
	}
	rand.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
	ch := make(chan WebhookEvent)
	var wg sync.WaitGroup
	errs := make(chan error, len(all))
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range ch {
				if _, err := s.ApplyConnectEvent(ctx, ev); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, ev := range all {
		ch <- ev
	}
	close(ch)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, w := range wants {
		uid := w.po.UID
		list, _ := p.Payouts(ctx, uid)
		got := list[0]
		avail := payoutTestBalance(t, pool, EarningsAvailableAccount(uid))
		acct, _ := s.ConnectAccount(ctx, uid)
		if acct.Status != PayoutAccountEnabled {
			t.Fatalf("%s account %+v", uid, acct)
		}
		switch {
		case i%3 == 0:
			if got.Status != PayoutPaid || avail != 50*MicrosPerDollar-w.po.AmountMicros {
				t.Fatalf("%s: %s available %d", uid, got.Status, avail)
			}
		case i%3 == 1:
			if got.Status != PayoutReversed || avail != 50*MicrosPerDollar {
				t.Fatalf("%s: %s available %d", uid, got.Status, avail)
			}
		default:
			if (got.Status != PayoutReversed && got.Status != PayoutFailed) || avail != 50*MicrosPerDollar {
				t.Fatalf("%s: %s available %d", uid, got.Status, avail)
			}
		}
		if payoutTestBalance(t, pool, PayoutsInTransitAccount(uid)) != 0 {
			t.Fatalf("%s: money left in transit", uid)
		}
	}
	mustPayoutInvariants(t, s)
	var paid int64
	for i, w := range wants {
		if i%3 == 0 {
			paid += w.po.AmountMicros
		}
	}
	if got := payoutTestBalance(t, pool, AccountCreatorPayouts); got != paid {
		t.Fatalf("creator payouts %d, want %d", got, paid)
	}
}

// A transfer.reversed that arrives before transfer.created ends reversed
// with the money returned once, and a partial reversal returns only its part.
func TestTransferReversedBeforeCreatedAndPartial(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	p := NewPayouts(s, &fakeConnect{}, nil, PayoutsConfig{})
	const uid = "creator-r"
	seedAvailable(t, pool, uid, 40*MicrosPerDollar)
	if _, err := p.AccountLink(ctx, uid, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyConnectEvent(ctx, accountEvent("acct_1", uid, 1, true)); err != nil {
		t.Fatal(err)
	}
	po, err := p.CreatePayout(ctx, uid, 20*MicrosPerDollar)
	if err != nil {
		t.Fatal(err)
	}
	rev := transferEvent(EventTransferReversed, po)
	for _, ev := range []WebhookEvent{rev, rev, transferEvent(EventTransferCreated, po), rev} {
		if _, err := s.ApplyConnectEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := p.Payouts(ctx, uid)
	if list[0].Status != PayoutReversed || payoutTestBalance(t, pool, EarningsAvailableAccount(uid)) != 40*MicrosPerDollar {
		t.Fatalf("%+v", list[0])
	}
	// Partial: $5 of $20 reversed after payment.
	po, err = p.CreatePayout(ctx, uid, 20*MicrosPerDollar)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyConnectEvent(ctx, transferEvent(EventTransferCreated, po)); err != nil {
		t.Fatal(err)
	}
	part := transferEvent(EventTransferReversed, po)
	part.Connect.AmountReversed, part.Connect.Reversed = 500, false
	if _, err := s.ApplyConnectEvent(ctx, part); err != nil {
		t.Fatal(err)
	}
	sum, _ := p.PayoutSummary(ctx, uid)
	if sum.PaidOutMicros != 15*MicrosPerDollar || payoutTestBalance(t, pool, EarningsAvailableAccount(uid)) != 25*MicrosPerDollar {
		t.Fatalf("partial: %+v", sum)
	}
	mustPayoutInvariants(t, s)
}
