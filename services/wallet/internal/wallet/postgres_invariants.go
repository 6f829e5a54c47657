package wallet

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// InvariantViolation describes a broken ledger invariant.
type InvariantViolation struct{ Problems []string }

func (e *InvariantViolation) Error() string {
	return fmt.Sprintf("ledger invariants violated: %v", e.Problems)
}

// CheckInvariants verifies, in one REPEATABLE READ snapshot, the ledger's
// own bookkeeping (ledger.Check: the balances sum to zero, every account's
// stored balance equals its credits minus its debits, no user account
// (wallet or holds) is negative and no debt account positive), then the
// billing rules' records against it: that the monthly usage counters equal
// the expenses of their month, that every holds account equals its user's
// open holds and that every settled hold's captured and returned transfers
// add up to the hold (and, with the later migrations, the agent-fee and
// Stripe payment checks). It returns an *InvariantViolation listing the
// problems.
func (s *PostgresStore) CheckInvariants(ctx context.Context) error {
	var problems ledger.Problems
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		// report runs a query whose rows (three columns) each describe a problem.
		report := func(tx pgx.Tx, format, sql string) error { return problems.Report(ctx, tx, format, sql) }
		if err := ledger.Check(ctx, tx, &problems); err != nil {
			return err
		}
		// This month's usage counters equal the expenses of their month.
		if err := report(tx, "usage of %s: counter %d, expenses %d", `
			WITH spent AS (
				SELECT uid, (date_trunc('month', created_at AT TIME ZONE 'UTC'))::date AS month, sum(amount_micros) AS micros
				FROM transfers WHERE type = 'expense' GROUP BY 1, 2
			)
			SELECT COALESCE(u.uid, e.uid) || ' ' || COALESCE(u.month, e.month)::text,
				COALESCE(u.micros, 0), COALESCE(e.micros, 0)::bigint
			FROM usage_months u FULL JOIN spent e ON e.uid = u.uid AND e.month = u.month
			WHERE COALESCE(u.micros, 0) <> COALESCE(e.micros, 0)`); err != nil {
			return err
		}
		// Refunds and disputes moved exactly what their rows say: a payment's
		// refunded cents are its refund transfers (wallet and debt parts), a
		// dispute's withdrawn and reinstated cents its transfers.
		if err := report(tx, "stripe %s: recorded %d, transfers %d", `
			SELECT 'refunds of ' || p.payment_intent_id, p.refunded_cents * 10000,
				COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE starts_with(t.idempotency_key, 'stripe:refund:' || p.payment_intent_id || ':')), 0)::bigint
			FROM stripe_payments p
			WHERE p.refunded_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
				WHERE starts_with(t.idempotency_key, 'stripe:refund:' || p.payment_intent_id || ':')), 0)
			UNION ALL
			SELECT 'dispute ' || d.id, d.withdrawn_cents * 10000 - d.reinstated_cents * 10000,
				(COALESCE((SELECT sum(amount_micros) FROM transfers t WHERE starts_with(t.idempotency_key, 'stripe:dispute:' || d.id || ':withdrawn:')), 0)
				 - COALESCE((SELECT sum(amount_micros) FROM transfers t WHERE t.idempotency_key = 'stripe:dispute:' || d.id || ':reinstated'), 0))::bigint
			FROM stripe_disputes d
			WHERE d.withdrawn_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE starts_with(t.idempotency_key, 'stripe:dispute:' || d.id || ':withdrawn:')), 0)
			   OR d.reinstated_cents * 10000 <> COALESCE((SELECT sum(amount_micros) FROM transfers t
					WHERE t.idempotency_key = 'stripe:dispute:' || d.id || ':reinstated'), 0)`); err != nil {
			return err
		}
		// Every holds account carries exactly its user's open holds.
		if err := report(tx, "holds of %s: account %d, open holds %d", `
			WITH open AS (SELECT uid, sum(amount_micros) AS held FROM holds WHERE status = 'held' GROUP BY uid),
			     acc AS (SELECT uid, balance_micros FROM accounts WHERE kind = 'user_holds')
			SELECT COALESCE(acc.uid, open.uid), COALESCE(acc.balance_micros, 0), COALESCE(open.held, 0)::bigint
			FROM acc FULL JOIN open ON open.uid = acc.uid
			WHERE COALESCE(acc.balance_micros, 0) <> COALESCE(open.held, 0)`); err != nil {
			return err
		}
		// Earnings (issue 28): see checkEarnings.
		if err := checkEarnings(ctx, tx, report); err != nil {
			return err
		}
		// A settled hold's expense and returned parts add up to the hold.
		return report(tx, "hold %s: captured + returned %d, held %d", `
			SELECT h.id::text, COALESCE(c.amount_micros, 0) + COALESCE(r.amount_micros, 0), h.amount_micros
			FROM holds h
			LEFT JOIN transfers c ON c.id = h.capture_transfer_id
			LEFT JOIN transfers r ON r.id = h.release_transfer_id
			WHERE h.status <> 'held'
			  AND (h.captured_micros <> COALESCE(c.amount_micros, 0)
			    OR h.amount_micros <> COALESCE(c.amount_micros, 0) + COALESCE(r.amount_micros, 0))`)
	})
	if err != nil {
		return err
	}
	if len(problems.List) > 0 {
		return &InvariantViolation{Problems: problems.List}
	}
	return nil
}
