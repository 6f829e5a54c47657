package wallet

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// problemsOf returns what CheckInvariants reports (nil when nothing).
func problemsOf(t *testing.T, s *PostgresStore) []string {
	t.Helper()
	err := s.CheckInvariants(context.Background())
	if err == nil {
		return nil
	}
	var iv *InvariantViolation
	if !errors.As(err, &iv) {
		t.Fatal(err)
	}
	return iv.Problems
}

// TestInvariantsCatchCorruption: each ledger check can fail. A balance
// changed without a transfer, and an open hold that no longer matches its
// holds account, are each reported by the check that owns them.
func TestInvariantsCatchCorruption(t *testing.T) {
	s, pool := newStore(t)
	ctx := context.Background()
	fund(t, s, "ivy", 1_000_000)
	r, err := s.Reserve(ctx, reservation("ivy", 300_000, "iv-1"))
	if err != nil {
		t.Fatal(err)
	}
	mustInvariants(t, s)

	// A wallet balance moved by 7 without a transfer.
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros + 7 WHERE id = 'user:ivy'`); err != nil {
		t.Fatal(err)
	}
	got := problemsOf(t, s)
	for _, want := range []string{
		"sum of balances 7, want 0",
		"account user:ivy: stored 700007, from transfers 700000",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("corrupted balance: want %q among %q", want, got)
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE accounts SET balance_micros = balance_micros - 7 WHERE id = 'user:ivy'`); err != nil {
		t.Fatal(err)
	}
	mustInvariants(t, s)

	// An open hold whose amount disagrees with the holds account.
	if _, err := pool.Exec(ctx, `UPDATE holds SET amount_micros = 300001 WHERE id = $1`, r.Hold.ID); err != nil {
		t.Fatal(err)
	}
	got = problemsOf(t, s)
	if want := "holds of ivy: account 300000, open holds 300001"; !slices.Equal(got, []string{want}) {
		t.Errorf("corrupted hold: want only %q, got %q", want, got)
	}
}
