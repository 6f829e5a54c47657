package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/wallet/internal/ledger"
)

// debtOf reads what uid owes (0 without a debt account), locking the debt
// account; the caller holds the wallet lock.
func debtOf(ctx context.Context, tx pgx.Tx, uid string) (int64, error) {
	var debt int64
	err := tx.QueryRow(ctx, `SELECT -balance_micros FROM accounts WHERE id = $1 FOR UPDATE`, DebtAccount(uid)).Scan(&debt)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read debt: %w", err)
	}
	return debt, nil
}

// repayDebt pays uid's debt from the wallet, as far as the wallet allows,
// right after credit brought money in (wallet locked): a "repayment"
// transfer wallet → debt keyed by the credit, so it happens once per credit.
// It returns the available balance after it.
func (s *PostgresStore) repayDebt(ctx context.Context, tx pgx.Tx, uid string, credit Transfer) (int64, error) {
	var available int64
	if err := tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1`, UserAccount(uid)).Scan(&available); err != nil {
		return 0, fmt.Errorf("read wallet: %w", err)
	}
	debt, err := debtOf(ctx, tx, uid)
	if err != nil || debt == 0 {
		return available, err
	}
	pay := min(debt, available)
	if pay <= 0 {
		return available, nil
	}
	if _, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: "debt:repay:" + credit.ID, Debit: UserAccount(uid),
		Credit: DebtAccount(uid), Amount: pay, Type: TypeRepayment, UID: uid, Description: "Debt repayment",
		Provider: credit.Provider, Metadata: map[string]string{"credit_transfer_id": credit.ID}}); err != nil {
		return 0, err
	}
	if available, err = ledger.AddBalance(ctx, tx, UserAccount(uid), -pay); err != nil {
		return 0, err
	}
	if _, err := ledger.AddBalance(ctx, tx, DebtAccount(uid), pay); err != nil {
		return 0, err
	}
	return available, nil
}

// stripePayment is a credited Stripe payment (a checkout top-up or an
// auto-recharge) to record.
type stripePayment struct {
	pi, chargeID, uid, transferID, sessionID, rechargeID string
	cents                                                int64
}

// recordPayment records a credited payment (once: a later call is a no-op)
// and applies the refund and dispute events that arrived before it. The
// caller holds the owner's wallet lock.
func (s *PostgresStore) recordPayment(ctx context.Context, tx pgx.Tx, p stripePayment) error {
	tag, err := tx.Exec(ctx, `INSERT INTO stripe_payments (payment_intent_id, charge_id, uid, amount_cents,
			deposit_transfer_id, checkout_session_id, recharge_id)
		VALUES ($1, NULLIF($2, ''), $3, $4, $5, NULLIF($6, ''), NULLIF($7, '')::uuid)
		ON CONFLICT DO NOTHING`, p.pi, p.chargeID, p.uid, p.cents, p.transferID, p.sessionID, p.rechargeID)
	if err != nil {
		return fmt.Errorf("record payment %s: %w", p.pi, err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	// Early events, oldest first, through the same rules as on arrival.
	rows, err := tx.Query(ctx, `DELETE FROM stripe_unmatched_events WHERE payment_intent_id = $1
		OR (charge_id IS NOT NULL AND charge_id = NULLIF($2, '')) RETURNING event, received_at`, p.pi, p.chargeID)
	if err != nil {
		return fmt.Errorf("read early events: %w", err)
	}
	type early struct {
		ev WebhookEvent
		at time.Time
	}
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (early, error) {
		var (
			raw []byte
			e   early
		)
		if err := r.Scan(&raw, &e.at); err != nil {
			return e, err
		}
		return e, json.Unmarshal(raw, &e.ev)
	})
	if err != nil {
		return fmt.Errorf("read early events: %w", err)
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	for _, e := range evs {
		if _, err := s.applyReversalEvent(ctx, tx, e.ev, p.uid); err != nil {
			return err
		}
		if err := s.setOutcome(ctx, tx, e.ev.ID, "applied_late"); err != nil {
			return err
		}
	}
	return nil
}

// paymentRow is a locked stripe_payments row.
type paymentRow struct {
	pi, chargeID, uid string
	amount, refunded  int64
	disputed          int64
}

// findPaymentOwner finds the owner of the payment an event is about, by
// PaymentIntent or charge id ("" when not credited here).
func findPaymentOwner(ctx context.Context, tx pgx.Tx, ev WebhookEvent) (string, error) {
	var uid string
	err := tx.QueryRow(ctx, `SELECT uid FROM stripe_payments
		WHERE payment_intent_id = NULLIF($1, '') OR charge_id = NULLIF($2, '') LIMIT 1`, ev.PaymentIntentID, ev.ChargeID).Scan(&uid)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find payment: %w", err)
	}
	return uid, nil
}

// lockPayment locks the payment row (after the owner's wallet) and learns its charge id.
func lockPayment(ctx context.Context, tx pgx.Tx, ev WebhookEvent) (paymentRow, error) {
	var p paymentRow
	err := tx.QueryRow(ctx, `SELECT payment_intent_id, COALESCE(charge_id, ''), uid, amount_cents, refunded_cents, disputed_cents
		FROM stripe_payments WHERE payment_intent_id = NULLIF($1, '') OR charge_id = NULLIF($2, '') LIMIT 1 FOR UPDATE`,
		ev.PaymentIntentID, ev.ChargeID).Scan(&p.pi, &p.chargeID, &p.uid, &p.amount, &p.refunded, &p.disputed)
	if err != nil {
		return p, fmt.Errorf("lock payment: %w", err)
	}
	if p.chargeID == "" && ev.ChargeID != "" {
		if _, err := tx.Exec(ctx, `UPDATE stripe_payments SET charge_id = $2 WHERE payment_intent_id = $1`, p.pi, ev.ChargeID); err != nil {
			return p, fmt.Errorf("record charge id: %w", err)
		}
		p.chargeID = ev.ChargeID
	}
	return p, nil
}

// ApplyReversal applies a charge.refunded or charge.dispute.* event exactly
// once (by event id), in one transaction: lock the owner's wallet, then the
// payment row, then move what the event changes compared with what was
// applied before (cumulative refunds; a dispute's withdrawal and
// reinstatement at most once each). Events about a payment not credited yet
// are kept and applied when it is.
func (s *PostgresStore) ApplyReversal(ctx context.Context, ev WebhookEvent) (WebhookResult, error) {
	object := ev.ChargeID
	if ev.DisputeID != "" {
		object = ev.DisputeID
	}
	return s.withEvent(ctx, ev, object, func(tx pgx.Tx) (WebhookResult, error) {
		uid, err := findPaymentOwner(ctx, tx, ev)
		if err != nil {
			return WebhookResult{}, err
		}
		if uid == "" {
			raw, err := json.Marshal(ev)
			if err != nil {
				return WebhookResult{}, err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO stripe_unmatched_events (event_id, type, payment_intent_id, charge_id, event)
				VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5) ON CONFLICT DO NOTHING`,
				ev.ID, ev.Type, ev.PaymentIntentID, ev.ChargeID, raw); err != nil {
				return WebhookResult{}, fmt.Errorf("keep early event: %w", err)
			}
			return WebhookResult{Outcome: OutcomeUnmatched}, nil
		}
		if _, _, err := lockWallet(ctx, tx, uid); err != nil {
			return WebhookResult{}, err
		}
		return s.applyReversalEvent(ctx, tx, ev, uid)
	})
}

// applyReversalEvent applies ev to the payment of uid (wallet locked).
func (s *PostgresStore) applyReversalEvent(ctx context.Context, tx pgx.Tx, ev WebhookEvent, uid string) (WebhookResult, error) {
	p, err := lockPayment(ctx, tx, ev)
	if err != nil {
		return WebhookResult{}, err
	}
	res := WebhookResult{Outcome: OutcomeNoChange, UID: uid}
	if ev.Type == EventChargeRefunded {
		// amount_refunded is cumulative: apply only the part not applied
		// yet, so duplicates and older events (reordered) move nothing.
		cum := min(ev.AmountRefunded, p.amount)
		delta := min(cum-p.refunded, p.amount-p.refunded-p.disputed)
		if delta <= 0 {
			return res, nil
		}
		rev, err := s.reverse(ctx, tx, reversal{uid: uid, typ: TypeRefund, cents: delta, pi: p.pi, chargeID: p.chargeID,
			key: fmt.Sprintf("stripe:refund:%s:%d", p.pi, cum), description: "Refund of a Stripe top-up"})
		if err != nil {
			return res, err
		}
		if _, err := tx.Exec(ctx, `UPDATE stripe_payments SET refunded_cents = refunded_cents + $2, updated_at = now()
			WHERE payment_intent_id = $1`, p.pi, delta); err != nil {
			return res, fmt.Errorf("update payment: %w", err)
		}
		res.Outcome, res.Reversal = OutcomeReversed, &rev
		return res, nil
	}
	return s.applyDispute(ctx, tx, ev, p)
}

// disputeRow is a locked stripe_disputes row.
type disputeRow struct {
	status             string
	closed, reinstated bool
	amount, withdrawn  int64
}

// applyDispute moves a dispute's money: the withdrawal once (created or
// funds_withdrawn, or a loss seen first), the reinstatement once (a win or
// funds_reinstated after a withdrawal). A win seen before the withdrawal
// means the money never leaves; an inquiry (warning_*) moves nothing.
func (s *PostgresStore) applyDispute(ctx context.Context, tx pgx.Tx, ev WebhookEvent, p paymentRow) (WebhookResult, error) {
	res := WebhookResult{Outcome: OutcomeNoChange, UID: p.uid}
	if ev.DisputeID == "" || ev.DisputeAmount <= 0 {
		return res, nil
	}
	closing := ev.Type == EventDisputeClosed
	var d disputeRow
	err := tx.QueryRow(ctx, `INSERT INTO stripe_disputes (id, payment_intent_id, uid, amount_cents, status, closed)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET
			status = CASE WHEN stripe_disputes.closed THEN stripe_disputes.status ELSE EXCLUDED.status END,
			closed = stripe_disputes.closed OR EXCLUDED.closed, updated_at = now()
		RETURNING status, closed, reinstated, amount_cents, withdrawn_cents`,
		ev.DisputeID, p.pi, p.uid, ev.DisputeAmount, ev.DisputeStatus, closing).
		Scan(&d.status, &d.closed, &d.reinstated, &d.amount, &d.withdrawn)
	if err != nil {
		return res, fmt.Errorf("record dispute: %w", err)
	}
	withdraw, reinstate := false, false
	switch ev.Type {
	case EventDisputeCreated, EventDisputeFundsWithdrawn:
		// Not after a close (a win seen first: the money never leaves; a
		// loss seen first: it left then) and not for inquiries (warning_*),
		// which withdraw nothing.
		withdraw = !d.closed && !d.reinstated && d.withdrawn == 0 &&
			!strings.HasPrefix(ev.DisputeStatus, disputeInquiryStatusPrefix)
	case EventDisputeClosed:
		if ev.DisputeStatus == DisputeStatusLost {
			withdraw = d.withdrawn == 0 && !d.reinstated
		} else {
			reinstate = true
		}
	case EventDisputeFundsReinstated:
		reinstate = true
	}
	switch {
	case withdraw:
		cents := min(d.amount, p.amount-p.refunded-p.disputed)
		if cents <= 0 {
			return res, nil
		}
		rev, err := s.reverse(ctx, tx, reversal{uid: p.uid, typ: TypeDispute, cents: cents, pi: p.pi, chargeID: p.chargeID,
			disputeID: ev.DisputeID, key: "stripe:dispute:" + ev.DisputeID + ":withdrawn",
			description: "Stripe dispute: top-up withdrawn"})
		if err != nil {
			return res, err
		}
		if _, err := tx.Exec(ctx, `UPDATE stripe_disputes SET withdrawn_cents = $2 WHERE id = $1`, ev.DisputeID, cents); err != nil {
			return res, fmt.Errorf("update dispute: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE stripe_payments SET disputed_cents = disputed_cents + $2, updated_at = now()
			WHERE payment_intent_id = $1`, p.pi, cents); err != nil {
			return res, fmt.Errorf("update payment: %w", err)
		}
		res.Outcome, res.Reversal = OutcomeReversed, &rev
	case reinstate && !d.reinstated:
		// Seen once: a withdrawal arriving after it moves nothing.
		if _, err := tx.Exec(ctx, `UPDATE stripe_disputes SET reinstated = true, reinstated_cents = withdrawn_cents
			WHERE id = $1`, ev.DisputeID); err != nil {
			return res, fmt.Errorf("update dispute: %w", err)
		}
		if d.withdrawn == 0 {
			return res, nil
		}
		eff, err := s.reinstate(ctx, tx, p, ev.DisputeID, d.withdrawn)
		if err != nil {
			return res, err
		}
		res.Outcome, res.RechargeID = OutcomeReinstated, eff.rechargeID
	}
	return res, nil
}

// reversal is money a refund or dispute takes back.
type reversal struct {
	uid                          string
	typ                          TransferType // TypeRefund or TypeDispute
	cents                        int64
	pi, chargeID, disputeID, key string
	description                  string
}

// reverse takes r back (wallet locked): what the wallet has available
// (money on hold is left alone: it belongs to answers in progress), the rest
// is booked to the user's debt account, so the wallet never goes negative
// and the debt is visible.
func (s *PostgresStore) reverse(ctx context.Context, tx pgx.Tx, r reversal) (Reversal, error) {
	micros := r.cents * MicrosPerCent
	var available int64
	if err := tx.QueryRow(ctx, `SELECT balance_micros FROM accounts WHERE id = $1`, UserAccount(r.uid)).Scan(&available); err != nil {
		return Reversal{}, fmt.Errorf("read wallet: %w", err)
	}
	take := min(micros, max(available, 0))
	rest := micros - take
	meta := map[string]string{"payment_intent_id": r.pi}
	if r.chargeID != "" {
		meta["charge_id"] = r.chargeID
	}
	if r.disputeID != "" {
		meta["dispute_id"] = r.disputeID
	}
	var walletTransfer Transfer
	if take > 0 {
		t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: r.key + ":wallet", Debit: UserAccount(r.uid), Credit: AccountStripeClearing,
			Amount: take, Type: r.typ, UID: r.uid, Description: r.description, Provider: ProviderStripe, Metadata: meta})
		if err != nil {
			return Reversal{}, err
		}
		walletTransfer = t
		if available, err = ledger.AddBalance(ctx, tx, UserAccount(r.uid), -take); err != nil {
			return Reversal{}, err
		}
	}
	debt, err := debtOf(ctx, tx, r.uid)
	if err != nil {
		return Reversal{}, err
	}
	if rest > 0 {
		if err := ledger.Create(ctx, tx, ledger.KindUserDebt, DebtAccount(r.uid), r.uid); err != nil {
			return Reversal{}, fmt.Errorf("create debt account: %w", err)
		}
		if _, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: r.key + ":debt", Debit: DebtAccount(r.uid), Credit: AccountStripeClearing,
			Amount: rest, Type: TypeDebt, UID: r.uid, Description: r.description + " (already spent: owed)",
			Provider: ProviderStripe, Metadata: meta}); err != nil {
			return Reversal{}, err
		}
		owed, err := ledger.AddBalance(ctx, tx, DebtAccount(r.uid), -rest)
		if err != nil {
			return Reversal{}, err
		}
		debt = -owed
	}
	if _, err := ledger.AddBalance(ctx, tx, AccountStripeClearing, micros); err != nil {
		return Reversal{}, err
	}
	var held, at int64
	if err := tx.QueryRow(ctx, `SELECT COALESCE((SELECT balance_micros FROM accounts WHERE id = $1), 0),
		(extract(epoch FROM now()) * 1000000)::bigint`, HoldsAccount(r.uid)).Scan(&held, &at); err != nil {
		return Reversal{}, fmt.Errorf("read holds: %w", err)
	}
	reason := "refund"
	if r.typ == TypeDispute {
		reason = "dispute"
	}
	if err := s.enqueue(ctx, tx, userEvent(r.uid, TypeDepositReversed, &eventsv1.WalletDepositReversed{
		Uid: r.uid, Reason: reason, AmountMicros: micros, FromWalletMicros: take, ToDebtMicros: rest,
		PaymentIntentId: r.pi, ChargeId: r.chargeID, DisputeId: r.disputeID, TransferId: walletTransfer.ID,
		BalanceMicros: available + held, DebtMicros: debt, OccurredAt: ts(time.UnixMicro(at)),
	})); err != nil {
		return Reversal{}, err
	}
	return Reversal{UID: r.uid, AmountMicros: micros, FromWalletMicros: take, ToDebtMicros: rest}, nil
}

// reinstate gives a won dispute's withdrawn money back (wallet locked): a
// deposit from Stripe clearing, which pays the debt first like any credit.
func (s *PostgresStore) reinstate(ctx context.Context, tx pgx.Tx, p paymentRow, disputeID string, cents int64) (debitEffects, error) {
	micros := cents * MicrosPerCent
	t, err := ledger.Insert(ctx, tx, ledger.Entry[TransferType]{Key: "stripe:dispute:" + disputeID + ":reinstated", Debit: AccountStripeClearing,
		Credit: UserAccount(p.uid), Amount: micros, Type: TypeDeposit, UID: p.uid,
		Description: "Stripe dispute won: top-up reinstated", Provider: ProviderStripe,
		Metadata: map[string]string{"payment_intent_id": p.pi, "dispute_id": disputeID}})
	if err != nil {
		return debitEffects{}, err
	}
	if _, err := ledger.AddBalance(ctx, tx, UserAccount(p.uid), micros); err != nil {
		return debitEffects{}, err
	}
	if _, err := ledger.AddBalance(ctx, tx, AccountStripeClearing, -micros); err != nil {
		return debitEffects{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE stripe_payments SET disputed_cents = disputed_cents - $2, updated_at = now()
		WHERE payment_intent_id = $1`, p.pi, cents); err != nil {
		return debitEffects{}, fmt.Errorf("update payment: %w", err)
	}
	eff, err := s.afterCredit(ctx, tx, p.uid, t)
	if err != nil {
		return debitEffects{}, err
	}
	bal, err := userBalance(ctx, tx, p.uid)
	if err != nil {
		return debitEffects{}, err
	}
	debt, err := debtOf(ctx, tx, p.uid)
	if err != nil {
		return debitEffects{}, err
	}
	return eff, s.enqueue(ctx, tx, userEvent(p.uid, TypeDepositReinstated, &eventsv1.WalletDepositReinstated{
		Uid: p.uid, AmountMicros: micros, PaymentIntentId: p.pi, DisputeId: disputeID, TransferId: t.ID,
		BalanceMicros: bal.Micros, DebtMicros: debt, OccurredAt: ts(t.CreatedAt),
	}))
}
