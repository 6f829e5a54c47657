// Package ledger is the wallet's double-entry bookkeeping: accounts with a
// balance in integer micro-dollars, immutable transfers that each debit one
// account and credit another by the same amount, and the checks that the
// stored balances agree with the transfers. It knows nothing of fees, debt,
// limits, holds or earnings: the billing rules (package wallet) decide what
// to move and call these primitives inside their own transaction, under the
// locks they took (every function takes the caller's pgx.Tx).
package ledger

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// ErrKeyRace: a concurrent transaction inserted the same idempotency key
// first (for another wallet); the caller re-reads the winner.
var ErrKeyRace = errors.New("idempotency key inserted concurrently")

// Querier reads one row (a pool, a connection or a transaction).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
