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

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func fund(t testing.TB, s *PostgresStore, uid string, micros int64) {
	t.Helper()
	if _, err := s.Post(context.Background(), posting(uid, TypeDeposit, micros, "fund-"+uid+fmt.Sprint(micros))); err != nil {
		t.Fatal(err)
	}
}

func reservation(uid string, micros int64, key string) Reservation {
	return Reservation{UID: uid, AmountMicros: micros, IdempotencyKey: key, TTL: time.Hour, Metadata: map[string]string{"agent": "a1"}}
}

func mustBalance(t testing.TB, s *PostgresStore, uid string, want Balance) {
	t.Helper()
	got, err := s.Balance(context.Background(), uid)
	if err != nil || got != want {
		t.Fatalf("balance(%s) = %+v, %v; want %+v", uid, got, err, want)
	}
}

// history returns uid's visible transfers, newest first.
func history(t testing.TB, s *PostgresStore, uid string) []Transfer {
	t.Helper()
	p, err := s.Transfers(context.Background(), uid, PageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func expire(t testing.TB, pool *pgxpool.Pool, holdID string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = $1`, holdID); err != nil {
		t.Fatal(err)
	}
}

func TestHoldLifecycle(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	fund(t, s, "alice", 10*MicrosPerDollar)

	// Reserve: available drops, the balance does not, nothing in the history.
	r, err := s.Reserve(ctx, reservation("alice", 3*MicrosPerDollar, "answer-1"))
	if err != nil || r.Replayed || r.Hold.Status != HoldHeld || r.Hold.ID == "" || r.Hold.UID != "alice" ||
		r.Hold.Metadata["agent"] != "a1" || r.Balance != (Balance{Micros: 10 * MicrosPerDollar, HeldMicros: 3 * MicrosPerDollar}) {
		t.Fatalf("reserve: %+v %v", r, err)
	}
	if d := time.Until(r.Hold.ExpiresAt); d < 59*time.Minute || d > 61*time.Minute {
		t.Fatalf("expires in %v, want 1h", d)
	}
	mustBalance(t, s, "alice", Balance{Micros: 10_000_000, HeldMicros: 3_000_000})
	if h := history(t, s, "alice"); len(h) != 1 || h[0].Type != TypeDeposit {
		t.Fatalf("history after reserve: %+v", h)
	}

	// Capture less than held: the expense is in the history, the rest is back.
	meta := map[string]string{"agentId": "a1", "tokens": "812"}
	c, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 1_250_000, Description: "Math Tutor · 812 tokens", Metadata: meta})
	if err != nil || c.Replayed || c.Hold.Status != HoldCaptured || c.Hold.CapturedMicros != 1_250_000 || c.Hold.TransferID == "" ||
		c.Balance != (Balance{Micros: 8_750_000}) {
		t.Fatalf("capture: %+v %v", c, err)
	}
	h := history(t, s, "alice")
	if len(h) != 2 || h[0].Type != TypeExpense || h[0].ID != c.Hold.TransferID || h[0].AmountMicros != 1_250_000 ||
		h[0].Description != "Math Tutor · 812 tokens" || h[0].Metadata["tokens"] != "812" || h[0].Provider != ProviderPlatform {
		t.Fatalf("history after capture: %+v", h)
	}
	// The same capture again: replayed; another amount or description: conflict.
	again, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 1_250_000, Description: "Math Tutor · 812 tokens", Metadata: meta})
	if err != nil || !again.Replayed || again.Hold.TransferID != c.Hold.TransferID || again.Balance != c.Balance {
		t.Fatalf("capture replay: %+v %v", again, err)
	}
	for _, other := range []Capture{
		{HoldID: r.Hold.ID, AmountMicros: 1_250_001, Description: "Math Tutor · 812 tokens", Metadata: meta},
		{HoldID: r.Hold.ID, AmountMicros: 1_250_000, Description: "other", Metadata: meta},
	} {
		if _, err := s.Capture(ctx, other); !errors.Is(err, ErrIdempotencyConflict) {
			t.Fatalf("capture with other parameters: %v", err)
		}
	}
	if _, err := s.Release(ctx, r.Hold.ID); !errors.Is(err, ErrHoldCaptured) {
		t.Fatalf("release of a captured hold: %v", err)
	}
	// Reserve replay after the capture returns the hold as it is now.
	rr, err := s.Reserve(ctx, reservation("alice", 3*MicrosPerDollar, "answer-1"))
	if err != nil || !rr.Replayed || rr.Hold.ID != r.Hold.ID || rr.Hold.Status != HoldCaptured {
		t.Fatalf("reserve replay: %+v %v", rr, err)
	}

	// Capture more than held: refused, nothing moves.
	r2, err := s.Reserve(ctx, reservation("alice", 1_000_000, "answer-2"))
	if err != nil {
		t.Fatal(err)
	}
	var ve *ValidationError
	if _, err := s.Capture(ctx, Capture{HoldID: r2.Hold.ID, AmountMicros: 1_000_001}); !errors.As(err, &ve) {
		t.Fatalf("capture above the hold: %v", err)
	}
	mustBalance(t, s, "alice", Balance{Micros: 8_750_000, HeldMicros: 1_000_000})

	// Release returns all of it; again: replayed; capture after: refused.
	rel, err := s.Release(ctx, r2.Hold.ID)
	if err != nil || rel.Replayed || rel.Hold.Status != HoldReleased || rel.Balance != (Balance{Micros: 8_750_000}) {
		t.Fatalf("release: %+v %v", rel, err)
	}
	if rel2, err := s.Release(ctx, r2.Hold.ID); err != nil || !rel2.Replayed || rel2.Hold.Status != HoldReleased {
		t.Fatalf("release replay: %+v %v", rel2, err)
	}
	if _, err := s.Capture(ctx, Capture{HoldID: r2.Hold.ID, AmountMicros: 1}); !errors.Is(err, ErrHoldReleased) {
		t.Fatalf("capture after release: %v", err)
	}

	// Capture 0: everything goes back, no expense, replayable.
	r3, _ := s.Reserve(ctx, reservation("alice", 500_000, "answer-3"))
	z, err := s.Capture(ctx, Capture{HoldID: r3.Hold.ID, AmountMicros: 0, Description: "nothing generated"})
	if err != nil || z.Hold.Status != HoldCaptured || z.Hold.CapturedMicros != 0 || z.Hold.TransferID != "" || z.Balance != (Balance{Micros: 8_750_000}) {
		t.Fatalf("capture 0: %+v %v", z, err)
	}
	if z2, err := s.Capture(ctx, Capture{HoldID: r3.Hold.ID, AmountMicros: 0, Description: "nothing generated"}); err != nil || !z2.Replayed {
		t.Fatalf("capture 0 replay: %+v %v", z2, err)
	}
	// Capture the whole hold: no return transfer needed.
	r4, _ := s.Reserve(ctx, reservation("alice", 750_000, "answer-4"))
	if full, err := s.Capture(ctx, Capture{HoldID: r4.Hold.ID, AmountMicros: 750_000, Description: "all"}); err != nil || full.Balance != (Balance{Micros: 8_000_000}) {
		t.Fatalf("full capture: %+v %v", full, err)
	}
	if h := history(t, s, "alice"); len(h) != 3 {
		t.Fatalf("history: %d items, want deposit + 2 expenses", len(h))
	}

	// Unknown holds.
	for _, id := range []string{"0190f0f0-0000-7000-8000-000000000000", "not-a-uuid"} {
		if _, err := s.Capture(ctx, Capture{HoldID: id, AmountMicros: 1}); !errors.Is(err, ErrHoldNotFound) {
			t.Fatalf("capture %s: %v", id, err)
		}
		if _, err := s.Release(ctx, id); !errors.Is(err, ErrHoldNotFound) {
			t.Fatalf("release %s: %v", id, err)
		}
	}
	mustInvariants(t, s)
}

func TestReserveIdempotencyAndFunds(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()

	// No wallet at all.
	if _, err := s.Reserve(ctx, reservation("nobody", 1, "k0")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("reserve without wallet: %v", err)
	}
	fund(t, s, "bob", 5_000_000)
	first, err := s.Reserve(ctx, reservation("bob", 2_000_000, "k1"))
	if err != nil {
		t.Fatal(err)
	}
	// Same key and parameters: the same hold, no second hold (TTL and
	// metadata are not compared).
	rep := reservation("bob", 2_000_000, "k1")
	rep.TTL, rep.Metadata = time.Minute, nil
	if r, err := s.Reserve(ctx, rep); err != nil || !r.Replayed || r.Hold.ID != first.Hold.ID || r.Balance.HeldMicros != 2_000_000 {
		t.Fatalf("replay: %+v %v", r, err)
	}
	// Same key, other amount or other user: conflict.
	if _, err := s.Reserve(ctx, reservation("bob", 2_000_001, "k1")); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("other amount: %v", err)
	}
	fund(t, s, "carol", 5_000_000)
	if _, err := s.Reserve(ctx, reservation("carol", 2_000_000, "k1")); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("other user: %v", err)
	}
	// Available is 3: 3.000001 refused, and a Charge cannot spend held money
	// either although the balance (5) would cover it.
	if _, err := s.Reserve(ctx, reservation("bob", 3_000_001, "k2")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("over available: %v", err)
	}
	if _, err := s.Post(ctx, posting("bob", TypeExpense, 4_000_000, "charge")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("charge of held money: %v", err)
	}
	if r, err := s.Reserve(ctx, reservation("bob", 3_000_000, "k2")); err != nil || r.Balance != (Balance{Micros: 5_000_000, HeldMicros: 5_000_000}) {
		t.Fatalf("reserve all available: %+v %v", r, err)
	}
	// Charge's balance includes held money.
	fund(t, s, "bob", 1_000_000)
	if res, err := s.Post(ctx, posting("bob", TypeExpense, 400_000, "charge2")); err != nil || res.BalanceMicros != 5_600_000 {
		t.Fatalf("charge with holds open: %+v %v", res, err)
	}

	// 20 concurrent Reserves with one key (same user) and 20 with another
	// key split over two users: one hold each, the rest replays or conflicts.
	fund(t, s, "dan", 10_000_000)
	fund(t, s, "erin", 10_000_000)
	var wg sync.WaitGroup
	ids := make(chan string, 40)
	var conflicts atomic.Int64
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			uid, key := "dan", "same-user"
			if i%2 == 1 {
				key = "two-users"
				if i%4 == 1 {
					uid = "erin"
				}
			}
			r, err := s.Reserve(ctx, reservation(uid, 1_000_000, key))
			switch {
			case errors.Is(err, ErrIdempotencyConflict):
				conflicts.Add(1)
			case err != nil:
				t.Error(err)
			default:
				ids <- key + "=" + r.Hold.ID
			}
		}()
	}
	wg.Wait()
	close(ids)
	distinct := map[string]bool{}
	for id := range ids {
		distinct[id] = true
	}
	if len(distinct) != 2 || conflicts.Load() != 10 {
		t.Fatalf("holds %v, conflicts %d; want one per key and the losing user's 10 conflicts", distinct, conflicts.Load())
	}
	dan, _ := s.Balance(ctx, "dan")
	erin, _ := s.Balance(ctx, "erin")
	if dan.HeldMicros+erin.HeldMicros != 2_000_000 {
		t.Fatalf("held dan %d + erin %d, want 2 holds of 1", dan.HeldMicros, erin.HeldMicros)
	}
	mustInvariants(t, s)
}

// TestConcurrentReservesNeverOverdraw: 200 Reserves and 50 Charges of X race
// for a wallet holding exactly 50·X. Exactly 50 succeed, the available
// balance is never seen below zero, and after capturing random parts of the
// holds the ledger balances and the captures add up to the expenses.
func TestConcurrentReservesNeverOverdraw(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	const x = 123_457
	fund(t, s, "zoe", 50*x)

	stop := make(chan struct{})
	var watcher sync.WaitGroup
	watcher.Add(1)
	go func() { // watches available and held from outside while the race runs
		defer watcher.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := s.Balance(ctx, "zoe")
			if err != nil {
				t.Error(err)
				return
			}
			if b.AvailableMicros() < 0 || b.HeldMicros < 0 || b.HeldMicros > b.Micros {
				t.Errorf("seen %+v", b)
			}
		}
	}()

	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		holds        []Hold
		charged      atomic.Int64
		insufficient atomic.Int64
	)
	for i := 0; i < 250; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%5 == 4 {
				_, err = s.Post(ctx, posting("zoe", TypeExpense, x, fmt.Sprintf("charge-%d", i)))
				if err == nil {
					charged.Add(1)
				}
			} else {
				var r HoldResult
				r, err = s.Reserve(ctx, reservation("zoe", x, fmt.Sprintf("res-%d", i)))
				if err == nil {
					mu.Lock()
					holds = append(holds, r.Hold)
					mu.Unlock()
				}
			}
			switch {
			case errors.Is(err, ErrInsufficientFunds):
				insufficient.Add(1)
			case err != nil:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := int64(len(holds)) + charged.Load(); n != 50 || insufficient.Load() != 200 {
		t.Fatalf("%d holds + %d charges succeeded, %d refused; want 50 and 200", len(holds), charged.Load(), insufficient.Load())
	}
	mustBalance(t, s, "zoe", Balance{Micros: (50 - charged.Load()) * x, HeldMicros: int64(len(holds)) * x})

	// Capture random parts concurrently (some twice: replays), release a few.
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	amounts := make([]int64, len(holds))
	for i := range holds {
		amounts[i] = rng.Int64N(x + 1)
		if i%10 == 0 {
			amounts[i] = -1 // released
		}
	}
	var capturedSum atomic.Int64
	for i, h := range holds {
		for rep := 0; rep < 2; rep++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if amounts[i] < 0 {
					if _, err := s.Release(ctx, h.ID); err != nil {
						t.Error(err)
					}
					return
				}
				r, err := s.Capture(ctx, Capture{HoldID: h.ID, AmountMicros: amounts[i], Description: "answer"})
				if err != nil {
					t.Error(err)
					return
				}
				if !r.Replayed {
					capturedSum.Add(amounts[i])
				}
			}()
		}
	}
	wg.Wait()
	close(stop)
	watcher.Wait()

	var want int64
	for _, a := range amounts {
		want += max(a, 0)
	}
	var expenses, fromHolds int64
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE(sum(amount_micros), 0)::bigint,
			COALESCE(sum(amount_micros) FILTER (WHERE debit_account = 'holds:zoe'), 0)::bigint
		FROM transfers WHERE uid = 'zoe' AND type = 'expense'`).Scan(&expenses, &fromHolds); err != nil {
		t.Fatal(err)
	}
	if capturedSum.Load() != want || fromHolds != want || expenses != want+charged.Load()*x {
		t.Fatalf("captured %d (calls) / %d (ledger), want %d; expenses %d", capturedSum.Load(), fromHolds, want, expenses)
	}
	mustBalance(t, s, "zoe", Balance{Micros: 50*x - expenses})
	mustInvariants(t, s)
}

func TestHoldExpiry(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "fay", 10_000_000)

	// Capture after expiry (not yet swept): refused, and the hold is expired
	// by that call, its money back at once.
	r1, _ := s.Reserve(ctx, reservation("fay", 4_000_000, "e1"))
	expire(t, pool, r1.Hold.ID)
	res, err := s.Capture(ctx, Capture{HoldID: r1.Hold.ID, AmountMicros: 1})
	if !errors.Is(err, ErrHoldExpired) || res.Hold.Status != HoldExpired || len(res.Expired) != 1 {
		t.Fatalf("capture after expiry: %+v %v", res, err)
	}
	mustBalance(t, s, "fay", Balance{Micros: 10_000_000})
	if _, err := s.Capture(ctx, Capture{HoldID: r1.Hold.ID, AmountMicros: 1}); !errors.Is(err, ErrHoldExpired) {
		t.Fatalf("capture of an expired hold: %v", err)
	}
	if rel, err := s.Release(ctx, r1.Hold.ID); err != nil || !rel.Replayed || rel.Hold.Status != HoldExpired {
		t.Fatalf("release of an expired hold: %+v %v", rel, err)
	}

	// The sweeper: only expired open holds, once.
	r2, _ := s.Reserve(ctx, reservation("fay", 2_000_000, "e2"))
	r3, _ := s.Reserve(ctx, reservation("fay", 1_000_000, "e3"))
	expire(t, pool, r2.Hold.ID)
	swept, err := s.SweepExpiredHolds(ctx, 100)
	if err != nil || len(swept) != 1 || swept[0].ID != r2.Hold.ID || swept[0].AmountMicros != 2_000_000 {
		t.Fatalf("sweep: %+v %v", swept, err)
	}
	if again, err := s.SweepExpiredHolds(ctx, 100); err != nil || len(again) != 0 {
		t.Fatalf("second sweep: %+v %v", again, err)
	}
	mustBalance(t, s, "fay", Balance{Micros: 10_000_000, HeldMicros: 1_000_000})
	if _, err := s.Capture(ctx, Capture{HoldID: r2.Hold.ID, AmountMicros: 0}); !errors.Is(err, ErrHoldExpired) {
		t.Fatalf("capture after sweep: %v", err)
	}
	if st, err := s.HoldStats(ctx); err != nil || st != (HoldStats{Open: 1, HeldMicros: 1_000_000}) {
		t.Fatalf("stats %+v %v", st, err)
	}

	// Release after expiry ends as expired too.
	expire(t, pool, r3.Hold.ID)
	if rel, err := s.Release(ctx, r3.Hold.ID); err != nil || rel.Replayed || rel.Hold.Status != HoldExpired || len(rel.Expired) != 1 {
		t.Fatalf("release after expiry: %+v %v", rel, err)
	}

	// A Reserve that needs money stuck on an expired, unswept hold gets it.
	r4, _ := s.Reserve(ctx, reservation("fay", 10_000_000, "e4"))
	expire(t, pool, r4.Hold.ID)
	r5, err := s.Reserve(ctx, reservation("fay", 6_000_000, "e5"))
	if err != nil || len(r5.Expired) != 1 || r5.Expired[0].ID != r4.Hold.ID || r5.Balance.HeldMicros != 6_000_000 {
		t.Fatalf("reserve over an expired hold: %+v %v", r5, err)
	}
	// ... and a refused one still keeps the expiry it made on the way.
	expire(t, pool, r5.Hold.ID)
	refused, err := s.Reserve(ctx, reservation("fay", 10_000_001, "e6"))
	if !errors.Is(err, ErrInsufficientFunds) || len(refused.Expired) != 1 {
		t.Fatalf("refused reserve: %+v %v", refused, err)
	}
	mustBalance(t, s, "fay", Balance{Micros: 10_000_000})
	if h := history(t, s, "fay"); len(h) != 1 {
		t.Fatalf("holds in the history: %+v", h)
	}
	mustInvariants(t, s)
}

// TestSweepersInParallel: four sweepers (replicas) and a stream of Reserves
// and Charges on the same wallets: every expired hold is expired exactly
// once, nothing deadlocks, the ledger balances.
func TestSweepersInParallel(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	const users, perUser = 8, 15
	for u := 0; u < users; u++ {
		fund(t, s, fmt.Sprintf("sw%d", u), 100_000_000)
		for i := 0; i < perUser; i++ {
			if _, err := s.Reserve(ctx, reservation(fmt.Sprintf("sw%d", u), 1_000_000, fmt.Sprintf("sw%d-%d", u, i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE holds SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func() { // a replica's sweeper
			defer wg.Done()
			for {
				swept, err := s.SweepExpiredHolds(ctx, 7)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, h := range swept {
					seen[h.ID]++
				}
				mu.Unlock()
				if len(swept) == 0 {
					return
				}
			}
		}()
		go func() { // request traffic on the same wallets
			defer wg.Done()
			for i := 0; i < 20; i++ {
				uid := fmt.Sprintf("sw%d", (w+i)%users)
				if _, err := s.Post(ctx, posting(uid, TypeExpense, 1000, fmt.Sprintf("tr%d-%d", w, i))); err != nil {
					t.Error(err)
				}
				r, err := s.Reserve(ctx, Reservation{UID: uid, AmountMicros: 1000, IdempotencyKey: fmt.Sprintf("tr%d-%d", w, i), TTL: time.Hour})
				if err != nil {
					t.Error(err)
					continue
				}
				if _, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: 500}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	// A sweeper may have stopped early while others held the rows: finish.
	rest, err := s.SweepExpiredHolds(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range rest {
		seen[h.ID]++
	}
	if len(seen) != users*perUser {
		t.Fatalf("expired %d holds, want %d", len(seen), users*perUser)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("hold %s expired %d times", id, n)
		}
	}
	if st, _ := s.HoldStats(ctx); st.Open != 0 {
		t.Fatalf("open holds left: %+v", st)
	}
	mustInvariants(t, s)
}

// TestAvailableIsADatabaseConstraint bypasses the code's funds check: the
// database itself refuses a hold (or a return) the accounts cannot cover.
func TestAvailableIsADatabaseConstraint(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "gus", 1_000_000)
	r, err := s.Reserve(ctx, reservation("gus", 600_000, "g1"))
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := s.hold(ctx, tx, reservation("gus", 400_001, "g2"), UserAccount("gus"), HoldsAccount("gus"))
		return err
	})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23514" || pgErr.ConstraintName != "user_wallet_non_negative" {
		t.Fatalf("unchecked hold over available: %v", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros - 600001 WHERE id = 'holds:gus'`); !errors.As(err, &pgErr) ||
		pgErr.ConstraintName != "user_holds_non_negative" {
		t.Fatalf("negative holds account: %v", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE holds SET captured_micros = 1 WHERE id = $1`, r.Hold.ID); err == nil {
		t.Fatal("captured amount on an open hold accepted")
	}
	mustBalance(t, s, "gus", Balance{Micros: 1_000_000, HeldMicros: 600_000})
	// The invariant check notices a holds account that disagrees with the holds.
	if _, err := pool.Exec(ctx, `UPDATE holds SET amount_micros = 600001 WHERE id = $1`, r.Hold.ID); err != nil {
		t.Fatal(err)
	}
	var iv *InvariantViolation
	if err := s.CheckInvariants(ctx); !errors.As(err, &iv) {
		t.Fatalf("tampered hold not detected: %v", err)
	}
}

// TestHistoryPagingSkipsHolds: the snapshot and the pages only count
// user-visible transfers, however many holds sit between them.
func TestHistoryPagingSkipsHolds(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	fund(t, s, "hal", 100_000_000)
	for i := 0; i < 12; i++ {
		r, err := s.Reserve(ctx, reservation("hal", 1_000_000, fmt.Sprintf("h%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Capture(ctx, Capture{HoldID: r.Hold.ID, AmountMicros: int64(1000 + i), Description: fmt.Sprintf("answer %d", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reserve(ctx, reservation("hal", 1_000_000, fmt.Sprintf("open%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	p1, err := s.Transfers(ctx, "hal", PageQuery{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Items) != 5 || !p1.HasMore || p1.Items[0].Description != "answer 11" {
		t.Fatalf("page 1: %+v", p1)
	}
	var maxSeq int64
	if err := s.pool.QueryRow(ctx, `SELECT max(seq) FROM transfers WHERE uid = 'hal' AND type = 'expense'`).Scan(&maxSeq); err != nil {
		t.Fatal(err)
	}
	if p1.Snapshot != maxSeq {
		t.Fatalf("snapshot %d, want the last visible seq %d (not a hold's)", p1.Snapshot, maxSeq)
	}
	n := len(p1.Items)
	for off := 5; ; off += 5 {
		p, err := s.Transfers(ctx, "hal", PageQuery{Limit: 5, Offset: off, Snapshot: &p1.Snapshot})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			if !it.Type.Visible() {
				t.Fatalf("hold in the history: %+v", it)
			}
		}
		n += len(p.Items)
		if !p.HasMore {
			break
		}
	}
	if n != 13 {
		t.Fatalf("%d items, want 12 expenses + 1 deposit", n)
	}
}
