package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Kind is an account's kind (accounts.kind; the migrations' CHECKs keep a
// user's wallet, holds, earnings and in-transit accounts ≥ 0 and a debt
// account ≤ 0).
type Kind string

// Account kinds.
const (
	KindUserWallet            Kind = "user_wallet"
	KindUserHolds             Kind = "user_holds"
	KindUserDebt              Kind = "user_debt"
	KindUserEarningsPending   Kind = "user_earnings_pending"
	KindUserEarningsAvailable Kind = "user_earnings_available"
	KindUserPayoutsInTransit  Kind = "user_payouts_in_transit"
)

// Create creates uid's account id of kind if it does not exist yet (no
// lock taken: lock it with LockBalance afterwards when needed).
func Create(ctx context.Context, tx pgx.Tx, kind Kind, id, uid string) error {
	// kind is one of the constants above, never input: spelled into the
	// statement so that each kind's statement is the one it always was.
	_, err := tx.Exec(ctx, `INSERT INTO accounts (id, kind, uid) VALUES ($1, '`+string(kind)+`', $2) ON CONFLICT (id) DO NOTHING`,
		id, uid)
	return err
}

// LockBalanceSQL locks an account's row and reads its balance.
const LockBalanceSQL = `SELECT balance_micros FROM accounts WHERE id = $1 FOR UPDATE`

// LockBalance locks account's row and returns its balance; pgx.ErrNoRows
// (unwrapped) when the account does not exist.
func LockBalance(ctx context.Context, tx pgx.Tx, account string) (int64, error) {
	var bal int64
	err := tx.QueryRow(ctx, LockBalanceSQL, account).Scan(&bal)
	return bal, err
}

// AddBalanceSQL adds $2 to account $1 and returns the new balance.
const AddBalanceSQL = `UPDATE accounts SET balance_micros = balance_micros + $2, updated_at = now()
		WHERE id = $1 RETURNING balance_micros`

// AddBalance adds delta to an existing account and returns its new balance;
// the accounts' CHECK constraints refuse a negative user account here.
func AddBalance(ctx context.Context, tx pgx.Tx, account string, delta int64) (int64, error) {
	return ScanBalance(tx.QueryRow(ctx, AddBalanceSQL, account, delta), account)
}

// ScanBalance reads the row of AddBalanceSQL.
func ScanBalance(row pgx.Row, account string) (int64, error) {
	var bal int64
	err := row.Scan(&bal)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("account %s missing", account)
	}
	if err != nil {
		return 0, fmt.Errorf("update %s: %w", account, err)
	}
	return bal, nil
}

// Move books one transfer and updates both balances (debit first, then
// credit: the caller's lock order must allow it). The accounts' CHECKs keep
// every user account on its side of zero.
func Move[T ~string](ctx context.Context, tx pgx.Tx, e Entry[T]) (Transfer[T], error) {
	t, err := Insert(ctx, tx, e)
	if err != nil {
		return Transfer[T]{}, err
	}
	if _, err := AddBalance(ctx, tx, e.Debit, -e.Amount); err != nil {
		return Transfer[T]{}, err
	}
	if _, err := AddBalance(ctx, tx, e.Credit, e.Amount); err != nil {
		return Transfer[T]{}, err
	}
	return t, nil
}

// AddOrCreateSQL adds $3 to uid $2's account $1 of kind, creating the
// account with that balance when it does not exist yet (one statement: an
// account first credited here needs no separate create and lock).
func AddOrCreateSQL(kind Kind) string {
	// kind: a constant, see Create.
	return `INSERT INTO accounts (id, kind, uid, balance_micros) VALUES ($1, '` + string(kind) + `', $2, $3)
		ON CONFLICT (id) DO UPDATE SET balance_micros = accounts.balance_micros + EXCLUDED.balance_micros, updated_at = now()`
}

// AddOrCreate runs AddOrCreateSQL.
func AddOrCreate(ctx context.Context, tx pgx.Tx, kind Kind, id, uid string, delta int64) error {
	_, err := tx.Exec(ctx, AddOrCreateSQL(kind), id, uid, delta)
	return err
}
