package wallet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func ptr(v int64) *int64 { return &v }

// outboxCount counts the outbox events of type typ keyed by uid.
func outboxCount(t testing.TB, pool *pgxpool.Pool, uid, typ string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE key = $1 AND type = $2`, uid, typ).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func putSettings(t testing.TB, s *PostgresStore, uid string, bs BillingSettings) {
	t.Helper()
	if _, err := s.PutSettings(context.Background(), uid, bs); err != nil {
		t.Fatal(err)
	}
}

func overview(t testing.TB, s *PostgresStore, uid string) BalanceView {
	t.Helper()
	v, err := s.Overview(context.Background(), uid)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMonthlyLimitConcurrentReserves: 200 concurrent Reserves of $0.10
// against a $10 limit (and a $100 wallet): exactly 100 fit, the others are
// refused with ErrMonthlyLimit; capturing them all reaches the limit exactly,
// and the warnings are sent once each.
func TestMonthlyLimitConcurrentReserves(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "lim", 100*MicrosPerDollar)
	putSettings(t, s, "lim", BillingSettings{MonthlyLimitMicros: ptr(10 * MicrosPerDollar)})

	var (
		wg       sync.WaitGroup
		ok, lim  atomic.Int64
		mu       sync.Mutex
		holdIDs  []string
		otherErr atomic.Value
	)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Reserve(ctx, reservation("lim", 100_000, fmt.Sprintf("lim-%d", i)))
			switch {
			case err == nil:
				ok.Add(1)
				mu.Lock()
				holdIDs = append(holdIDs, res.Hold.ID)
				mu.Unlock()
			case errors.Is(err, ErrMonthlyLimit):
				lim.Add(1)
			default:
				otherErr.Store(err)
			}
		}()
	}
	wg.Wait()
	if e := otherErr.Load(); e != nil {
		t.Fatal(e)
	}
	if ok.Load() != 100 || lim.Load() != 100 {
		t.Fatalf("reserved %d, refused by the limit %d; want 100 and 100", ok.Load(), lim.Load())
	}
	// The refusal is the 100% warning (once), although nothing is spent yet.
	if v := overview(t, s, "lim"); v.MonthUsageMicros != 0 || v.HeldMicros != 10*MicrosPerDollar || v.LimitWarning() != LimitWarning100 {
		t.Fatalf("after reserves: %+v warning %q", v, v.LimitWarning())
	}
	for _, id := range holdIDs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Capture(ctx, Capture{HoldID: id, AmountMicros: 100_000, Description: "answer"}); err != nil {
				otherErr.Store(err)
			}
		}()
	}
	wg.Wait()
	if e := otherErr.Load(); e != nil {
		t.Fatal(e)
	}
	v := overview(t, s, "lim")
	if v.MonthUsageMicros != 10*MicrosPerDollar || v.Micros != 90*MicrosPerDollar || v.HeldMicros != 0 {
		t.Fatalf("after captures: %+v", v)
	}
	if _, err := s.Reserve(ctx, reservation("lim", 1, "lim-after")); !errors.Is(err, ErrMonthlyLimit) {
		t.Fatalf("reserve at the limit: %v", err)
	}
	if n := outboxCount(t, pool, "lim", TypeSpendWarning); n != 2 {
		t.Fatalf("%d spend warnings, want 2 (80%% and 100%%, once each)", n)
	}
	// Raising the limit lets answers through again (and re-warns at the new limit's 80% only when reached).
	putSettings(t, s, "lim", BillingSettings{MonthlyLimitMicros: ptr(20 * MicrosPerDollar)})
	if _, err := s.Reserve(ctx, reservation("lim", 1, "lim-raised")); err != nil {
		t.Fatalf("reserve under the raised limit: %v", err)
	}
	if v := overview(t, s, "lim"); v.LimitWarning() != "" {
		t.Fatalf("warning at 50%% of the new limit: %q", v.LimitWarning())
	}
	mustInvariants(t, s)
}

// TestMonthlyLimitNeverExceeded races 200 answers (Reserve of a random worst
// case, then Capture of a random part) against a limit while a watcher reads
// usage + held in single snapshots: the month's usage never exceeds the
// limit, and usage + held never does either.
func TestMonthlyLimitNeverExceeded(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	const limit = 3 * MicrosPerDollar
	fund(t, s, "race", 50*MicrosPerDollar)
	putSettings(t, s, "race", BillingSettings{MonthlyLimitMicros: ptr(limit)})
	stop := make(chan struct{})
	var watchErr atomic.Value
	var watched atomic.Int64
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var used, held int64
			err := pool.QueryRow(ctx, `SELECT COALESCE((SELECT micros FROM usage_months WHERE uid = 'race'), 0),
				COALESCE((SELECT balance_micros FROM accounts WHERE id = 'holds:race'), 0)`).Scan(&used, &held)
			if err == nil && used+held > limit {
				watchErr.Store(fmt.Errorf("usage %d + held %d > limit %d", used, held, limit))
			}
			watched.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	var captured atomic.Int64
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			amount := int64(10_000 + rng.IntN(90_000))
			res, err := s.Reserve(ctx, reservation("race", amount, fmt.Sprintf("race-%d", i)))
			if errors.Is(err, ErrMonthlyLimit) {
				return
			}
			if err != nil {
				watchErr.Store(err)
				return
			}
			part := int64(rng.IntN(int(amount) + 1))
			if _, err := s.Capture(ctx, Capture{HoldID: res.Hold.ID, AmountMicros: part, Description: "answer"}); err != nil {
				watchErr.Store(err)
				return
			}
			captured.Add(part)
		}()
	}
	wg.Wait()
	close(stop)
	if e := watchErr.Load(); e != nil {
		t.Fatal(e)
	}
	v := overview(t, s, "race")
	if v.MonthUsageMicros != captured.Load() || v.MonthUsageMicros > limit || v.HeldMicros != 0 {
		t.Fatalf("usage %d (captured %d), held %d, limit %d", v.MonthUsageMicros, captured.Load(), v.HeldMicros, limit)
	}
	if watched.Load() == 0 {
		t.Fatal("the watcher never ran")
	}
	mustInvariants(t, s)
}

func TestLowBalanceOncePerCrossing(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "low", 10*MicrosPerDollar)
	putSettings(t, s, "low", BillingSettings{LowBalanceThresholdMicros: ptr(5 * MicrosPerDollar)})
	answer := func(key string, micros int64) {
		t.Helper()
		r, err := s.Reserve(ctx, reservation("low", micros, key))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: micros, Description: "answer"}); err != nil {
			t.Fatal(err)
		}
	}
	// A hold alone below the threshold is not a crossing (it may come back).
	r, err := s.Reserve(ctx, reservation("low", 8*MicrosPerDollar, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Release(ctx, r.Hold.ID); err != nil {
		t.Fatal(err)
	}
	answer("a1", 4*MicrosPerDollar) // 6 left: above
	if n := outboxCount(t, pool, "low", TypeBalanceLow); n != 0 {
		t.Fatalf("%d low-balance events above the threshold", n)
	}
	answer("a2", 2*MicrosPerDollar) // 4 left: crossing
	answer("a3", 1*MicrosPerDollar) // 3 left: still below, no second event
	if n := outboxCount(t, pool, "low", TypeBalanceLow); n != 1 {
		t.Fatalf("%d low-balance events, want 1", n)
	}
	if v := overview(t, s, "low"); !v.LowBalance() {
		t.Fatalf("lowBalance false at %d", v.AvailableMicros())
	}
	// A top-up back above the threshold re-arms it; the next crossing warns again.
	if _, err := s.Post(ctx, posting("low", TypeDeposit, 10*MicrosPerDollar, "topup")); err != nil {
		t.Fatal(err)
	}
	if v := overview(t, s, "low"); v.LowBalance() {
		t.Fatal("lowBalance after the top-up")
	}
	answer("a4", 9*MicrosPerDollar)
	if n := outboxCount(t, pool, "low", TypeBalanceLow); n != 2 {
		t.Fatalf("%d low-balance events after a second crossing, want 2", n)
	}
	mustInvariants(t, s)
}

func TestSettingsValidationAndStorage(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	bad := []BillingSettings{
		{MonthlyLimitMicros: ptr(499_999 / MicrosPerCent * MicrosPerCent)},
		{MonthlyLimitMicros: ptr(MaxSettingMicros + MicrosPerCent)},
		{LowBalanceThresholdMicros: ptr(0)},
		{AutoRecharge: AutoRechargeSettings{Enabled: true, ThresholdMicros: ptr(MicrosPerDollar)}},
		{AutoRecharge: AutoRechargeSettings{Enabled: true, AmountMicros: ptr(MicrosPerDollar)}},
		{AutoRecharge: AutoRechargeSettings{AmountMicros: ptr(-MicrosPerDollar)}},
		{MonthlyLimitMicros: ptr(MicrosPerDollar + 1)},
	}
	for _, bs := range bad {
		var se *SettingsError
		if err := ValidateSettings(bs); !errors.As(err, &se) {
			t.Errorf("ValidateSettings(%+v) = %v, want a SettingsError", bs, err)
		}
	}
	if _, err := DollarsToMicros("monthlyLimit", 10.005); err == nil {
		t.Error("fractions of a cent accepted")
	}
	if m, err := DollarsToMicros("monthlyLimit", 19.99); err != nil || m != 19_990_000 {
		t.Errorf("19.99 → %d, %v", m, err)
	}
	// The database refuses what validation would (the last line of defence).
	if _, err := s.pool.Exec(ctx, `INSERT INTO billing_settings (uid, monthly_limit_micros) VALUES ('x', 100)`); err == nil {
		t.Error("the database accepted a $0.0001 limit")
	}
	// Enabling auto-recharge without a saved card.
	on := BillingSettings{AutoRecharge: AutoRechargeSettings{Enabled: true, ThresholdMicros: ptr(MicrosPerDollar), AmountMicros: ptr(5 * MicrosPerDollar)}}
	if _, err := s.PutSettings(ctx, "card-less", on); !errors.Is(err, ErrNoSavedCard) {
		t.Fatalf("enable without a card: %v", err)
	}
	want := BillingSettings{MonthlyLimitMicros: ptr(25 * MicrosPerDollar), LowBalanceThresholdMicros: ptr(2_500_000),
		AutoRecharge: AutoRechargeSettings{ThresholdMicros: ptr(MicrosPerDollar), AmountMicros: ptr(5 * MicrosPerDollar)}}
	got, err := s.PutSettings(ctx, "card-less", want)
	if err != nil || *got.MonthlyLimitMicros != 25*MicrosPerDollar || *got.LowBalanceThresholdMicros != 2_500_000 ||
		got.AutoRecharge.Enabled || *got.AutoRecharge.AmountMicros != 5*MicrosPerDollar {
		t.Fatalf("put: %+v %v", got, err)
	}
	got, err = s.PutSettings(ctx, "card-less", BillingSettings{})
	if err != nil || got.MonthlyLimitMicros != nil || got.LowBalanceThresholdMicros != nil || got.AutoRecharge.AmountMicros != nil {
		t.Fatalf("cleared: %+v %v", got, err)
	}
}
