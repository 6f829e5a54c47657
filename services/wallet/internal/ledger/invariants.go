package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Problems collects what invariant checks found wrong.
type Problems struct{ List []string }

// Report runs sql in tx; each row (a text and two integers) is a problem,
// written with format (e.g. "account %s: stored %d, from transfers %d").
func (p *Problems) Report(ctx context.Context, tx pgx.Tx, format, sql string) error {
	rows, err := tx.Query(ctx, sql)
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var id string
		var a, b int64
		err := r.Scan(&id, &a, &b)
		return fmt.Sprintf(format, id, a, b), err
	})
	p.List = append(p.List, found...)
	return err
}

// Check adds to p what is wrong with the bookkeeping itself, read in tx (a
// REPEATABLE READ snapshot, so every check sees the same ledger):
//   - the balances of all accounts sum to zero (every transfer debits what it
//     credits, so a balance changed without a transfer shows here);
//   - every account's stored balance equals the sum of its credits minus the
//     sum of its debits in transfers;
//   - no user account (wallet, holds, earnings, in transit) is negative and
//     no debt account positive.
//
// (A sum of all debits compared with the sum of all credits would compare
// sum(amount_micros) with itself: each transfer is both; it can never fail.)
func Check(ctx context.Context, tx pgx.Tx, p *Problems) error {
	var balances int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE(sum(balance_micros), 0)::bigint FROM accounts`).Scan(&balances); err != nil {
		return err
	}
	if balances != 0 {
		p.List = append(p.List, fmt.Sprintf("sum of balances %d, want 0", balances))
	}
	return p.Report(ctx, tx, "account %s: stored %d, from transfers %d", `
			WITH movements AS (
				SELECT credit_account AS account, amount_micros AS delta FROM transfers
				UNION ALL
				SELECT debit_account, -amount_micros FROM transfers
			)
			SELECT a.id, a.balance_micros, COALESCE(sum(m.delta), 0)::bigint
			FROM accounts a LEFT JOIN movements m ON m.account = a.id
			GROUP BY a.id, a.balance_micros, a.kind
			HAVING a.balance_micros <> COALESCE(sum(m.delta), 0)
			    OR (a.kind IN ('user_wallet', 'user_holds', 'user_earnings_pending', 'user_earnings_available',
			        'user_payouts_in_transit') AND a.balance_micros < 0)
			    OR (a.kind = 'user_debt' AND a.balance_micros > 0)`)
}
