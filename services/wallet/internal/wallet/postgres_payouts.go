package wallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// Payouts in PostgreSQL (migrations/00008_payouts.sql). Lock order, as
// everywhere: the user's wallet row first, then the payout's or the
// connected account's row, then the ledger accounts.

const connectAccountColumns = `uid, COALESCE(stripe_account_id, ''), status, reason, payouts_enabled`

func scanConnectAccount(row pgx.Row) (ConnectAccount, error) {
	var a ConnectAccount
	err := row.Scan(&a.UID, &a.StripeAccountID, &a.Status, &a.Reason, &a.PayoutsEnabled)
	return a, err
}

const payoutColumns = `id::text, uid, stripe_account_id, amount_micros, amount_cents, status, COALESCE(stripe_transfer_id, ''),
	idempotency_key, returned_micros, failure_message, attempts, last_error, next_attempt_at, created_at, updated_at`

func scanPayout(row pgx.Row) (Payout, error) {
	var (
		p      Payout
		status string
	)
	err := row.Scan(&p.ID, &p.UID, &p.StripeAccountID, &p.AmountMicros, &p.AmountCents, &status, &p.StripeTransferID,
		&p.IdempotencyKey, &p.ReturnedMicros, &p.FailureMessage, &p.Attempts, &p.LastError, &p.NextAttemptAt, &p.CreatedAt, &p.UpdatedAt)
	p.Status = PayoutStatus(status)
	return p, err
}

// ConnectAccount implements PayoutStore.
func (s *PostgresStore) ConnectAccount(ctx context.Context, uid string) (ConnectAccount, error) {
	a, err := scanConnectAccount(s.pool.QueryRow(ctx, `SELECT `+connectAccountColumns+` FROM connect_accounts WHERE uid = $1`, uid))
	if errors.Is(err, pgx.ErrNoRows) {
		return ConnectAccount{UID: uid, Status: PayoutAccountNone}, nil
	}
	if err != nil {
		return ConnectAccount{}, fmt.Errorf("read connect account: %w", err)
	}
	return a, nil
}

// RecordConnectAccount implements PayoutStore: the first account recorded
// for uid stays (a concurrent onboarding created the same one: the
// account is created with an idempotency key derived from the uid); an
// account.updated that arrived first has already set the state.
func (s *PostgresStore) RecordConnectAccount(ctx context.Context, uid, stripeAccountID string) (ConnectAccount, error) {
	a, err := scanConnectAccount(s.pool.QueryRow(ctx, `
		INSERT INTO connect_accounts (uid, stripe_account_id, status) VALUES ($1, $2, 'onboarding')
		ON CONFLICT (uid) DO UPDATE SET
			stripe_account_id = COALESCE(connect_accounts.stripe_account_id, EXCLUDED.stripe_account_id),
			status = CASE WHEN connect_accounts.status = 'none' THEN 'onboarding' ELSE connect_accounts.status END,
			updated_at = now()
		RETURNING `+connectAccountColumns, uid, stripeAccountID))
	if err != nil {
		return ConnectAccount{}, fmt.Errorf("record connect account: %w", err)
	}
	return a, nil
}

// lockCreatorWallet locks uid's wallet row, creating the (empty) wallet
// first when the creator never had one.
func lockCreatorWallet(ctx context.Context, tx pgx.Tx, uid string) error {
	if _, exists, err := lockWallet(ctx, tx, uid); err != nil || exists {
		return err
	}
	if err := ledger.Create(ctx, tx, ledger.KindUserWallet, UserAccount(uid), uid); err != nil {
		return fmt.Errorf("create wallet: %w", err)
	}
	_, _, err := lockWallet(ctx, tx, uid)
	return err
}

// moveMoney books a payout transfer and updates both balances (the
// accounts' CHECKs keep every user account ≥ 0). A replayed key moves
// nothing.
func moveMoney(ctx context.Context, tx pgx.Tx, key, debit, credit string, amount int64, typ TransferType, uid, description string,
	meta map[string]string) error {
	if amount <= 0 {
		return nil
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM transfers WHERE idempotency_key = $1)`, key).Scan(&exists); err != nil {
		return fmt.Errorf("read transfer by key: %w", err)
	}
	if exists {
		return nil
	}
	_, err := ledger.Move(ctx, tx, ledger.Entry[TransferType]{Key: key, Debit: debit, Credit: credit, Amount: amount, Type: typ, UID: uid,
		Description: description, Provider: ProviderStripe, Metadata: meta})
	return err
}

// ensureInTransitAccount creates uid's in-transit account if needed.
func ensureInTransitAccount(ctx context.Context, tx pgx.Tx, uid string) error {
	err := ledger.Create(ctx, tx, ledger.KindUserPayoutsInTransit, PayoutsInTransitAccount(uid), uid)
	if err != nil {
		return fmt.Errorf("create in-transit account: %w", err)
	}
	return nil
}

// ensureAvailableAccount creates uid's available-earnings account if needed
// (money returned to a creator whose account was never created: not
// possible in practice, but the return must not fail for it).
func ensureAvailableAccount(ctx context.Context, tx pgx.Tx, uid string) error {
	err := ledger.Create(ctx, tx, ledger.KindUserEarningsAvailable, EarningsAvailableAccount(uid), uid)
	if err != nil {
		return fmt.Errorf("create available earnings account: %w", err)
	}
	return nil
}

// CreatePayout implements PayoutStore. Refusals, in this order:
// ErrPayoutAccountMissing, *PayoutRestrictedError, ErrPayoutInFlight,
// *EarningsShortError (after due earnings matured).
func (s *PostgresStore) CreatePayout(ctx context.Context, uid string, amountMicros int64) (Payout, error) {
	if amountMicros <= 0 || amountMicros%MicrosPerCent != 0 {
		return Payout{}, &ValidationError{Message: "amount must be a positive whole number of cents"}
	}
	var out Payout
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockCreatorWallet(ctx, tx, uid); err != nil {
			return err
		}
		if _, err := s.matureEarnings(ctx, tx, uid); err != nil {
			return err
		}
		acct, err := scanConnectAccount(tx.QueryRow(ctx, `SELECT `+connectAccountColumns+` FROM connect_accounts WHERE uid = $1`, uid))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return ErrPayoutAccountMissing
		case err != nil:
			return fmt.Errorf("read connect account: %w", err)
		case acct.StripeAccountID == "" || acct.Status == PayoutAccountNone:
			return ErrPayoutAccountMissing
		case acct.Status != PayoutAccountEnabled || !acct.PayoutsEnabled:
			reason := acct.Reason
			if reason == "" {
				reason = "onboarding is not finished"
			}
			return &PayoutRestrictedError{Reason: reason}
		}
		var inFlight bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM payouts WHERE uid = $1 AND status = 'in_transit')`, uid).Scan(&inFlight); err != nil {
			return fmt.Errorf("read payouts in flight: %w", err)
		}
		if inFlight {
			return ErrPayoutInFlight
		}
		available := EarningsAvailableAccount(uid)
		have, err := ledger.LockBalance(ctx, tx, available)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("lock available earnings: %w", err)
		}
		if have < amountMicros {
			return &EarningsShortError{AvailableMicros: have}
		}
		if err := ensureInTransitAccount(ctx, tx, uid); err != nil {
			return err
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		// The request makes the first Transfer call (attempts 1); the
		// reconciler takes over if it has not confirmed it by the lease's end
		// (a crash between this commit and the call).
		out, err = scanPayout(tx.QueryRow(ctx, `INSERT INTO payouts (id, uid, stripe_account_id, amount_micros, amount_cents, status,
				idempotency_key, attempts, next_attempt_at)
			VALUES ($1, $2, $3, $4, $5, 'in_transit', $6, 1, now() + $7 * interval '1 microsecond') RETURNING `+payoutColumns,
			id, uid, acct.StripeAccountID, amountMicros, amountMicros/MicrosPerCent, "payout-"+id.String(), PayoutFirstLease.Microseconds()))
		if err != nil {
			var pgErr interface{ SQLState() string }
			if errors.As(err, &pgErr) && pgErr.SQLState() == "23505" {
				return ErrPayoutInFlight
			}
			return fmt.Errorf("insert payout: %w", err)
		}
		return moveMoney(ctx, tx, "payout:"+out.ID, available, PayoutsInTransitAccount(uid), amountMicros, TypePayout, uid,
			"Payout to your Stripe account", map[string]string{MetaPayoutID: out.ID})
	})
	if err != nil {
		return Payout{}, err
	}
	return out, nil
}

// SetPayoutTransfer implements PayoutStore.
func (s *PostgresStore) SetPayoutTransfer(ctx context.Context, payoutID, transferID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE payouts SET stripe_transfer_id = $2, updated_at = now()
		WHERE id = $1 AND stripe_transfer_id IS NULL`, payoutID, transferID)
	if err != nil {
		return fmt.Errorf("record transfer of payout %s: %w", payoutID, err)
	}
	return nil
}

// DeferPayout implements PayoutStore (no change once the payout has a
// Transfer or left transit).
func (s *PostgresStore) DeferPayout(ctx context.Context, payoutID, lastError string, delay time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE payouts SET last_error = $2, next_attempt_at = now() + $3 * interval '1 microsecond', updated_at = now()
		WHERE id = $1 AND status = 'in_transit' AND stripe_transfer_id IS NULL`, payoutID, lastError, delay.Microseconds())
	if err != nil {
		return fmt.Errorf("defer payout %s: %w", payoutID, err)
	}
	return nil
}

// ClaimUnconfirmedPayout implements PayoutStore: replicas take different
// payouts (SKIP LOCKED, and the lease moves next_attempt_at past now). It
// locks only the payout row (the webhooks lock the wallet first, then the
// payout: no cycle); a payout a webhook holds is skipped this round.
func (s *PostgresStore) ClaimUnconfirmedPayout(ctx context.Context) (Payout, bool, error) {
	var (
		out   Payout
		found bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var (
			id       string
			attempts int
		)
		err := tx.QueryRow(ctx, `SELECT id::text, attempts FROM payouts
			WHERE status = 'in_transit' AND stripe_transfer_id IS NULL AND next_attempt_at <= now()
			ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&id, &attempts)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find unconfirmed payout: %w", err)
		}
		out, err = scanPayout(tx.QueryRow(ctx, `UPDATE payouts SET attempts = attempts + 1,
				next_attempt_at = now() + $2 * interval '1 microsecond', updated_at = now()
			WHERE id = $1 RETURNING `+payoutColumns, id, PayoutRetryDelay(attempts+1).Microseconds()))
		if err != nil {
			return fmt.Errorf("claim payout %s: %w", id, err)
		}
		found = true
		return nil
	})
	if err != nil {
		return Payout{}, false, err
	}
	return out, found, nil
}

// lockPayout locks a payout after its owner's wallet (ErrPayoutNotFound
// when unknown).
func lockPayout(ctx context.Context, tx pgx.Tx, payoutID, transferID string) (Payout, error) {
	if _, err := uuid.Parse(payoutID); err != nil {
		payoutID = ""
	}
	var uid string
	err := tx.QueryRow(ctx, `SELECT uid FROM payouts WHERE id = NULLIF($1, '')::uuid OR stripe_transfer_id = NULLIF($2, '') LIMIT 1`,
		payoutID, transferID).Scan(&uid)
	if errors.Is(err, pgx.ErrNoRows) {
		return Payout{}, ErrPayoutNotFound
	}
	if err != nil {
		return Payout{}, fmt.Errorf("find payout: %w", err)
	}
	if err := lockCreatorWallet(ctx, tx, uid); err != nil {
		return Payout{}, err
	}
	p, err := scanPayout(tx.QueryRow(ctx, `SELECT `+payoutColumns+` FROM payouts
		WHERE id = NULLIF($1, '')::uuid OR stripe_transfer_id = NULLIF($2, '') LIMIT 1 FOR UPDATE`, payoutID, transferID))
	if err != nil {
		return Payout{}, fmt.Errorf("lock payout: %w", err)
	}
	return p, nil
}

// returnPayout gives the payout's money back up to target (cumulative
// micros) and sets the status (payout locked). From in transit while the
// payout is in transit, from system:creator_payouts once it was paid.
func returnPayout(ctx context.Context, tx pgx.Tx, p Payout, target int64, status PayoutStatus, message string) (Payout, bool, error) {
	target = min(target, p.AmountMicros)
	delta := target - p.ReturnedMicros
	if delta <= 0 {
		return p, false, nil
	}
	from := PayoutsInTransitAccount(p.UID)
	if p.Status == PayoutPaid {
		from = AccountCreatorPayouts
	} else if p.Status != PayoutInTransit {
		return p, false, nil
	}
	if err := ensureAvailableAccount(ctx, tx, p.UID); err != nil {
		return p, false, err
	}
	desc := "Payout returned"
	if status == PayoutFailed {
		desc = "Payout failed"
	}
	if err := moveMoney(ctx, tx, "payout:"+p.ID+":return:"+strconv.FormatInt(target, 10), from, EarningsAvailableAccount(p.UID),
		delta, TypePayoutReturn, p.UID, desc, map[string]string{MetaPayoutID: p.ID}); err != nil {
		return p, false, err
	}
	if target < p.AmountMicros {
		status = p.Status // a partial reversal keeps the state
	}
	out, err := scanPayout(tx.QueryRow(ctx, `UPDATE payouts SET returned_micros = $2, status = $3,
			failure_message = CASE WHEN $4 = '' THEN failure_message ELSE $4 END, updated_at = now()
		WHERE id = $1 RETURNING `+payoutColumns, p.ID, target, string(status), message))
	if err != nil {
		return p, false, fmt.Errorf("update payout: %w", err)
	}
	return out, true, nil
}

// FailPayout implements PayoutStore.
func (s *PostgresStore) FailPayout(ctx context.Context, payoutID, message string) (Payout, error) {
	var out Payout
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		p, err := lockPayout(ctx, tx, payoutID, "")
		if err != nil {
			return err
		}
		// A payout whose Transfer is known (the API answer or
		// transfer.created recorded it) is settled by the webhooks only.
		if p.Status != PayoutInTransit || p.StripeTransferID != "" {
			out = p
			return nil
		}
		out, _, err = returnPayout(ctx, tx, p, p.AmountMicros, PayoutFailed, message)
		return err
	})
	return out, err
}

// Payouts implements PayoutStore.
func (s *PostgresStore) Payouts(ctx context.Context, uid string, limit int) ([]Payout, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+payoutColumns+` FROM payouts WHERE uid = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, uid, limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Payout, error) { return scanPayout(r) })
	if err != nil {
		return nil, fmt.Errorf("read payouts: %w", err)
	}
	if out == nil {
		out = []Payout{}
	}
	return out, nil
}

// PayoutSummary implements PayoutStore (and PayoutSummarizer): paid out is
// what reached the connected account and was not reversed, in transit what
// is on its way.
func (s *PostgresStore) PayoutSummary(ctx context.Context, uid string) (PayoutSummary, error) {
	var sum PayoutSummary
	if err := s.pool.QueryRow(ctx, `SELECT
			COALESCE(sum(amount_micros - returned_micros) FILTER (WHERE status = 'paid'), 0)::bigint,
			COALESCE(sum(amount_micros - returned_micros) FILTER (WHERE status = 'in_transit'), 0)::bigint
		FROM payouts WHERE uid = $1`, uid).Scan(&sum.PaidOutMicros, &sum.InTransitMicros); err != nil {
		return PayoutSummary{}, fmt.Errorf("sum payouts: %w", err)
	}
	a, err := s.ConnectAccount(ctx, uid)
	if err != nil {
		return PayoutSummary{}, err
	}
	sum.AccountStatus, sum.AccountReason = a.Status, a.Reason
	if a.Status == PayoutAccountEnabled {
		sum.AccountReason = ""
	}
	return sum, nil
}

// ApplyConnectEvent implements PayoutStore: account.updated and
// transfer.created/reversed/failed, each exactly once (by event id, in the
// transaction of its effect), in any order:
//
//   - account.updated sets the account's state unless an event created
//     later was applied before (equal times apply: the last delivery wins);
//   - transfer.created moves an in-transit payout to
//     system:creator_payouts (paid); on a payout already failed or
//     reversed it moves nothing;
//   - transfer.reversed gives back what Stripe reversed (cumulative
//     amount_reversed; the whole payout when it is reversed): from in
//     transit when the payout was not paid yet, else from
//     system:creator_payouts; the payout ends reversed and a later
//     transfer.created finds nothing to pay;
//   - transfer.failed fails an in-transit payout (money back) and
//     reverses a paid one.
func (s *PostgresStore) ApplyConnectEvent(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	o := ev.Connect
	if o == nil {
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	object := o.AccountID
	if ev.Type != EventAccountUpdated {
		object = o.TransferID
	}
	return s.withEvent(ctx, ev, object, func(tx pgx.Tx) (WebhookResult, error) {
		if ev.Type == EventAccountUpdated {
			return applyAccountUpdated(ctx, tx, o)
		}
		return applyTransferEvent(ctx, tx, ev.Type, o)
	})
}

func applyAccountUpdated(ctx context.Context, tx pgx.Tx, o *ConnectObject) (WebhookResult, error) {
	if o.AccountID == "" {
		return WebhookResult{Outcome: OutcomeIgnored}, nil
	}
	var (
		uid  string
		last int64
	)
	err := tx.QueryRow(ctx, `SELECT uid, last_event_created FROM connect_accounts WHERE stripe_account_id = $1 FOR UPDATE`,
		o.AccountID).Scan(&uid, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		// Before the account was recorded (the event outran the API answer):
		// the account names its user in metadata.
		uid = o.Metadata[MetaUID]
		if uid == "" {
			return WebhookResult{Outcome: OutcomeUnknownObject}, nil
		}
		var recorded string
		if err := tx.QueryRow(ctx, `INSERT INTO connect_accounts (uid, stripe_account_id, status) VALUES ($1, $2, 'onboarding')
			ON CONFLICT (uid) DO UPDATE SET stripe_account_id = COALESCE(connect_accounts.stripe_account_id, EXCLUDED.stripe_account_id)
			RETURNING stripe_account_id, last_event_created`, uid, o.AccountID).Scan(&recorded, &last); err != nil {
			return WebhookResult{}, fmt.Errorf("record connect account: %w", err)
		}
		if recorded != o.AccountID {
			return WebhookResult{Outcome: OutcomeUnknownObject}, nil // another account is the user's
		}
		if err := tx.QueryRow(ctx, `SELECT last_event_created FROM connect_accounts WHERE uid = $1 FOR UPDATE`, uid).Scan(&last); err != nil {
			return WebhookResult{}, fmt.Errorf("lock connect account: %w", err)
		}
	} else if err != nil {
		return WebhookResult{}, fmt.Errorf("lock connect account: %w", err)
	}
	if o.Created < last {
		return WebhookResult{Outcome: OutcomeStale, UID: uid}, nil
	}
	status, reason := AccountState(*o)
	if _, err := tx.Exec(ctx, `UPDATE connect_accounts SET status = $2, reason = $3, payouts_enabled = $4,
			last_event_created = $5, updated_at = now() WHERE uid = $1`,
		uid, status, reason, o.PayoutsEnabled, o.Created); err != nil {
		return WebhookResult{}, fmt.Errorf("update connect account: %w", err)
	}
	return WebhookResult{Outcome: OutcomeAccountUpdated, UID: uid}, nil
}

func applyTransferEvent(ctx context.Context, tx pgx.Tx, typ string, o *ConnectObject) (WebhookResult, error) {
	p, err := lockPayout(ctx, tx, o.Metadata[MetaPayoutID], o.TransferID)
	if errors.Is(err, ErrPayoutNotFound) {
		return WebhookResult{Outcome: OutcomeUnknownObject}, nil
	}
	if err != nil {
		return WebhookResult{}, err
	}
	res := WebhookResult{Outcome: OutcomeNoChange, UID: p.UID}
	if p.StripeTransferID == "" && o.TransferID != "" {
		if _, err := tx.Exec(ctx, `UPDATE payouts SET stripe_transfer_id = $2 WHERE id = $1`, p.ID, o.TransferID); err != nil {
			return res, fmt.Errorf("record transfer id: %w", err)
		}
		p.StripeTransferID = o.TransferID
	}
	switch typ {
	case EventTransferCreated:
		if p.Status != PayoutInTransit {
			return res, nil
		}
		if err := moveMoney(ctx, tx, "payout:"+p.ID+":paid", PayoutsInTransitAccount(p.UID), AccountCreatorPayouts,
			p.AmountMicros-p.ReturnedMicros, TypePayoutPaid, p.UID, "Payout sent", map[string]string{MetaPayoutID: p.ID}); err != nil {
			return res, err
		}
		if _, err := tx.Exec(ctx, `UPDATE payouts SET status = 'paid', updated_at = now() WHERE id = $1`, p.ID); err != nil {
			return res, fmt.Errorf("update payout: %w", err)
		}
		res.Outcome = OutcomePayoutPaid
	case EventTransferReversed:
		target := p.AmountMicros
		if o.AmountReversed > 0 && !o.Reversed {
			target = o.AmountReversed * MicrosPerCent
		}
		_, moved, err := returnPayout(ctx, tx, p, target, PayoutReversed, "")
		if err != nil {
			return res, err
		}
		if moved {
			res.Outcome = OutcomePayoutReturned
		}
	case EventTransferFailed:
		status := PayoutFailed
		if p.Status == PayoutPaid {
			status = PayoutReversed
		}
		_, moved, err := returnPayout(ctx, tx, p, p.AmountMicros, status, "The transfer to your Stripe account failed.")
		if err != nil {
			return res, err
		}
		if moved {
			res.Outcome = OutcomePayoutReturned
		}
	default:
		res.Outcome = OutcomeIgnored
	}
	return res, nil
}

// CheckPayoutInvariants verifies that every payout's transfers add up to
// its row: the payout transfer is the amount, the returns are
// returned_micros, a paid payout's payout_paid is what was not returned
// while in transit, and every in-transit account holds its user's payout
// in flight. It returns an *InvariantViolation listing the problems.
func (s *PostgresStore) CheckPayoutInvariants(ctx context.Context) error {
	var problems []string
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			WITH t AS (
				SELECT metadata->>'payout_id' AS pid,
					COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout'), 0)::bigint AS out,
					COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout_paid'), 0)::bigint AS paid,
					COALESCE(sum(amount_micros) FILTER (WHERE type = 'payout_return'), 0)::bigint AS back
				FROM transfers WHERE type IN ('payout', 'payout_paid', 'payout_return') GROUP BY 1
			)
			SELECT p.id::text || ' ' || p.status, p.amount_micros, p.returned_micros, COALESCE(t.out, 0), COALESCE(t.paid, 0), COALESCE(t.back, 0)
			FROM payouts p LEFT JOIN t ON t.pid = p.id::text
			WHERE COALESCE(t.out, 0) <> p.amount_micros OR COALESCE(t.back, 0) <> p.returned_micros
			   OR (p.status = 'in_transit' AND COALESCE(t.paid, 0) <> 0)
			   OR (p.status = 'paid' AND COALESCE(t.paid, 0) = 0)
			UNION ALL
			SELECT 'in transit of ' || a.uid, a.balance_micros, 0,
				COALESCE((SELECT sum(amount_micros - returned_micros) FROM payouts p WHERE p.uid = a.uid AND p.status = 'in_transit'), 0)::bigint, 0, 0
			FROM accounts a WHERE a.kind = 'user_payouts_in_transit'
			  AND a.balance_micros <> COALESCE((SELECT sum(amount_micros - returned_micros) FROM payouts p
					WHERE p.uid = a.uid AND p.status = 'in_transit'), 0)`)
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			var (
				id                           string
				amount, ret, out, paid, back int64
			)
			err := r.Scan(&id, &amount, &ret, &out, &paid, &back)
			return fmt.Sprintf("payout %s: amount %d, returned %d; transfers out %d, paid %d, back %d", id, amount, ret, out, paid, back), err
		})
		problems = append(problems, found...)
		return err
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &InvariantViolation{Problems: problems}
	}
	return nil
}
