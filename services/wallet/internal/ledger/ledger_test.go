package ledger_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// newPool is a fresh database with the wallet's schema (the ledger's
// tables are the wallet's).
func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "ledger")
	if err := database.Migrate(context.Background(), pool, wallet.Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	return pool
}

func check(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	var p ledger.Problems
	ctx := context.Background()
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return ledger.Check(ctx, tx, &p) }); err != nil {
		t.Fatal(err)
	}
	return p.List
}

// TestMoveKeepsTheBooksAndCheckSeesTampering: Move books a balanced
// transfer, a reused key moves nothing, and Check reports a balance
// changed without a transfer.
func TestMoveKeepsTheBooksAndCheckSeesTampering(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	entry := ledger.Entry[string]{Key: "k1", Debit: wallet.AccountStripeClearing, Credit: "user:lea", Amount: 5,
		Type: "deposit", UID: "lea", Provider: "stripe"}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := ledger.Create(ctx, tx, ledger.KindUserWallet, "user:lea", "lea"); err != nil {
			return err
		}
		if bal, err := ledger.LockBalance(ctx, tx, "user:lea"); err != nil || bal != 0 {
			t.Errorf("new account: %d, %v", bal, err)
		}
		tr, err := ledger.Move(ctx, tx, entry)
		if err != nil {
			return err
		}
		if tr.AmountMicros != 5 || tr.Type != "deposit" || tr.CreditAccount != "user:lea" {
			t.Errorf("transfer %+v", tr)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := check(t, pool); got != nil {
		t.Fatalf("after a move: %q", got)
	}
	// The same key again: the insert finds it taken, nothing moves.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := ledger.Move(ctx, tx, entry)
		return err
	})
	if !errors.Is(err, ledger.ErrKeyRace) {
		t.Fatalf("reused key: %v", err)
	}
	// A user account never goes negative (the accounts' CHECK).
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := ledger.AddBalance(ctx, tx, "user:lea", -6)
		return err
	})
	if err == nil {
		t.Fatal("negative wallet accepted")
	}
	if got := check(t, pool); got != nil {
		t.Fatalf("after refusals: %q", got)
	}

	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros + 2 WHERE id = 'user:lea'`); err != nil {
		t.Fatal(err)
	}
	got := check(t, pool)
	want := []string{"sum of balances 2, want 0", "account user:lea: stored 7, from transfers 5"}
	if !slices.Equal(got, want) {
		t.Fatalf("tampered balance: got %q, want %q", got, want)
	}
}
