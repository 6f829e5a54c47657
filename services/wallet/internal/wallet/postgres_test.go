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

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newStore(t testing.TB) (*PostgresStore, *pgxpool.Pool) {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "wallet")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return NewPostgresStore(pool), pool
}

func posting(uid string, typ TransferType, micros int64, key string) Posting {
	prov := ProviderPlatform
	if typ == TypeDeposit {
		prov = ProviderStripe
	}
	return Posting{UID: uid, Type: typ, AmountMicros: micros, IdempotencyKey: key, Provider: prov,
		Description: string(typ) + " " + key, Metadata: map[string]string{"k": key}}
}

func mustInvariants(t testing.TB, s *PostgresStore) {
	t.Helper()
	if err := s.CheckInvariants(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerProperty applies random sequences of deposits, incomes, charges
// (some above the balance), retries with the same key (same and different
// parameters) and bursts of concurrent charges, and compares the ledger with
// a model after every step: balances equal the model, never negative, and
// the debits equal the credits.
func TestLedgerProperty(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 42))
	uids := []string{"u1", "u2", "u3"}
	model := map[string]int64{}
	type done struct {
		p  Posting
		id string
	}
	var history []done
	keyN := 0

	for step := 0; step < 200; step++ {
		uid := uids[rng.IntN(len(uids))]
		switch op := rng.IntN(10); {
		case op < 3: // deposit or income
			typ := TypeDeposit
			if op == 2 {
				typ = TypeIncome
			}
			keyN++
			p := posting(uid, typ, int64(1+rng.IntN(5_000_000)), fmt.Sprintf("k%d", keyN))
			res, err := s.Post(ctx, p)
			if err != nil || res.Replayed {
				t.Fatalf("step %d credit: %v %+v", step, err, res)
			}
			model[uid] += p.AmountMicros
			history = append(history, done{p, res.Transfer.ID})
		case op < 6: // charge, possibly above the balance
			keyN++
			p := posting(uid, TypeExpense, int64(1+rng.IntN(3_000_000)), fmt.Sprintf("k%d", keyN))
			res, err := s.Post(ctx, p)
			switch {
			case p.AmountMicros > model[uid]:
				if !errors.Is(err, ErrInsufficientFunds) {
					t.Fatalf("step %d: charge %d over balance %d: %v", step, p.AmountMicros, model[uid], err)
				}
			case err != nil:
				t.Fatalf("step %d charge: %v", step, err)
			default:
				model[uid] -= p.AmountMicros
				history = append(history, done{p, res.Transfer.ID})
				if res.BalanceMicros != model[uid] {
					t.Fatalf("step %d: balance after %d, model %d", step, res.BalanceMicros, model[uid])
				}
			}
		case op < 8 && len(history) > 0: // retry an earlier posting with the same key
			h := history[rng.IntN(len(history))]
			res, err := s.Post(ctx, h.p)
			if err != nil || !res.Replayed || res.Transfer.ID != h.id {
				t.Fatalf("step %d retry: %v %+v", step, err, res)
			}
			changed := h.p
			changed.AmountMicros++
			if _, err := s.Post(ctx, changed); !errors.Is(err, ErrIdempotencyConflict) {
				t.Fatalf("step %d: reused key with other params: %v", step, err)
			}
		default: // burst of concurrent charges, some sharing a key
			n := 2 + rng.IntN(8)
			amount := int64(1 + rng.IntN(2_000_000))
			var ok atomic.Int64
			var wg sync.WaitGroup
			keyN++
			base := keyN
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p := posting(uid, TypeExpense, amount, fmt.Sprintf("burst%d-%d", base, i%3))
					res, err := s.Post(ctx, p)
					if err == nil && !res.Replayed {
						ok.Add(1)
					} else if err != nil && !errors.Is(err, ErrInsufficientFunds) {
						t.Errorf("burst: %v", err)
					}
				}()
			}
			wg.Wait()
			want := min(int64(min(n, 3)), model[uid]/amount)
			if ok.Load() != want {
				t.Fatalf("step %d: %d distinct charges of %d from %d succeeded, want %d", step, ok.Load(), amount, model[uid], want)
			}
			model[uid] -= ok.Load() * amount
		}
		for _, u := range uids {
			b, err := s.Balance(ctx, u)
			if err != nil || b.Micros != model[u] || b.Micros < 0 {
				t.Fatalf("step %d: balance(%s) = %d, %v; model %d", step, u, b, err, model[u])
			}
		}
		if step%20 == 0 {
			mustInvariants(t, s)
		}
	}
	mustInvariants(t, s)
}

func TestConcurrentChargesNeverOverdraw(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.Post(ctx, posting("alice", TypeDeposit, 20*MicrosPerDollar, "dep")); err != nil {
		t.Fatal(err)
	}
	var ok, insufficient atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Post(ctx, posting("alice", TypeExpense, MicrosPerDollar, fmt.Sprintf("c%d", i)))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrInsufficientFunds):
				insufficient.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	b, _ := s.Balance(ctx, "alice")
	if ok.Load() != 20 || insufficient.Load() != 30 || b.Micros != 0 {
		t.Fatalf("ok %d insufficient %d balance %d", ok.Load(), insufficient.Load(), b)
	}
	mustInvariants(t, s)

	// The same key from 20 goroutines: one transfer.
	if _, err := s.Post(ctx, posting("bob", TypeIncome, 5*MicrosPerDollar, "inc")); err != nil {
		t.Fatal(err)
	}
	ids := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Post(ctx, posting("bob", TypeExpense, 3*MicrosPerDollar, "same"))
			if err != nil {
				t.Error(err)
				return
			}
			ids <- res.Transfer.ID
		}()
	}
	wg.Wait()
	close(ids)
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Fatalf("different transfers for one key: %s %s", first, id)
		}
	}
	if b, _ := s.Balance(ctx, "bob"); b.Micros != 2*MicrosPerDollar {
		t.Fatalf("bob balance %d", b)
	}
	// Same key, another user: conflict (not a second transfer).
	if _, err := s.Post(ctx, posting("carol", TypeIncome, 3*MicrosPerDollar, "same")); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("cross-user key reuse: %v", err)
	}
	mustInvariants(t, s)
}

func TestLedgerGuards(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	if _, err := s.Post(ctx, posting("nobody", TypeExpense, 1, "x")); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("charge without wallet: %v", err)
	}
	if b, err := s.Balance(ctx, "nobody"); err != nil || b != (Balance{}) {
		t.Fatalf("balance without wallet: %d %v", b, err)
	}
	res, err := s.Post(ctx, posting("dan", TypeDeposit, 10, "d"))
	if err != nil {
		t.Fatal(err)
	}
	// The database itself refuses a negative wallet, an UPDATE/DELETE of a transfer.
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = -1 WHERE id = 'user:dan'`); err == nil {
		t.Fatal("negative wallet accepted")
	}
	if _, err := pool.Exec(ctx, `UPDATE transfers SET amount_micros = 1 WHERE id = $1`, res.Transfer.ID); err == nil {
		t.Fatal("transfer update accepted")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM transfers WHERE id = $1`, res.Transfer.ID); err == nil {
		t.Fatal("transfer delete accepted")
	}
	// The invariant check notices a tampered balance.
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros + 5 WHERE id = 'user:dan'`); err != nil {
		t.Fatal(err)
	}
	var iv *InvariantViolation
	if err := s.CheckInvariants(ctx); !errors.As(err, &iv) {
		t.Fatalf("tampering not detected: %v", err)
	}
}

// TestPagingStableWhileInserting pages through a user's history with the
// snapshot while new transfers keep arriving: no duplicates, no gaps.
func TestPagingStableWhileInserting(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	for i := 0; i < 45; i++ {
		if _, err := s.Post(ctx, posting("eve", TypeIncome, int64(i+1), fmt.Sprintf("i%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	first, err := s.Transfers(ctx, "eve", PageQuery{Limit: 10})
	if err != nil || len(first.Items) != 10 || !first.HasMore || first.Snapshot == 0 {
		t.Fatalf("first page %+v %v", first, err)
	}
	seen := map[string]bool{}
	for _, it := range first.Items {
		seen[it.ID] = true
	}
	snap := first.Snapshot
	prev := first.Items[len(first.Items)-1].Seq
	added := 0
	for offset := 10; ; offset += 10 {
		// New transfers (and other users') between pages.
		for j := 0; j < 3; j++ {
			if _, err := s.Post(ctx, posting("eve", TypeIncome, 7, fmt.Sprintf("new%d-%d", offset, j))); err != nil {
				t.Fatal(err)
			}
			added++
			if _, err := s.Post(ctx, posting("frank", TypeIncome, 7, fmt.Sprintf("f%d-%d", offset, j))); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.Transfers(ctx, "eve", PageQuery{Limit: 10, Offset: offset, Snapshot: &snap})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			if seen[it.ID] || it.Seq >= prev || it.UID != "eve" {
				t.Fatalf("duplicate or out of order item %+v", it)
			}
			seen[it.ID] = true
			prev = it.Seq
		}
		if !p.HasMore {
			break
		}
	}
	if len(seen) != 45 {
		t.Fatalf("saw %d items, want 45", len(seen))
	}
	latest, _ := s.Transfers(ctx, "eve", PageQuery{Limit: 100})
	if len(latest.Items) != 45+added || latest.Snapshot <= snap {
		t.Fatalf("latest: %d items, snapshot %d", len(latest.Items), latest.Snapshot)
	}
}
