package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
)

// Auto-recharge in the ledger (migrations/00006_auto_recharge.sql). Lock
// order as everywhere: the user's wallet row first, then the recharge row,
// then the settings row.

// rechargeInFlightSQL tells (in Overview's statement) whether uid ($1) has
// an auto-recharge in flight.
const rechargeInFlightSQL = `EXISTS (SELECT 1 FROM recharges r WHERE r.uid = $1 AND r.status IN ('pending', 'processing'))`

// MaxRechargeFailures declined recharges in a row turn auto-recharge off.
const MaxRechargeFailures = 3

// maybeStartRecharge starts an auto-recharge when a debit left the
// available balance below the user's threshold (wallet locked): a pending
// row, unless one is in flight (the unique partial index decides, so
// concurrent debits start at most one) or a back-off after a decline runs.
func (s *PostgresStore) maybeStartRecharge(ctx context.Context, tx pgx.Tx, uid string, st settingsRow, available int64) (debitEffects, error) {
	ar := st.AutoRecharge
	if !ar.Enabled || st.paymentMethod == "" || ar.ThresholdMicros == nil || ar.AmountMicros == nil ||
		available >= *ar.ThresholdMicros || !st.retryReady {
		return debitEffects{}, nil
	}
	id, err := uuid.NewV7()
	if err != nil {
		return debitEffects{}, err
	}
	var got string
	err = tx.QueryRow(ctx, `INSERT INTO recharges (id, uid, amount_cents, status) VALUES ($1, $2, $3, 'pending')
		ON CONFLICT (uid) WHERE status IN ('pending', 'processing') DO NOTHING RETURNING id::text`,
		id, uid, *ar.AmountMicros/MicrosPerCent).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return debitEffects{}, nil // one is in flight
	}
	if err != nil {
		return debitEffects{}, fmt.Errorf("start recharge: %w", err)
	}
	return debitEffects{rechargeID: got}, nil
}

// Recharge is an auto-recharge claimed by the worker.
type Recharge struct {
	ID, UID                     string
	AmountCents                 int64
	CustomerID, PaymentMethodID string
	Enabled                     bool
	Attempts                    int
}

// ClaimRecharge takes the oldest pending recharge that is due (or the one
// with id, when given) and leases it for lease: its next attempt moves
// forward, so another worker does not take it meanwhile (FOR UPDATE SKIP
// LOCKED; safe across replicas). ok is false when there is none.
func (s *PostgresStore) ClaimRecharge(ctx context.Context, id string, lease time.Duration) (Recharge, bool, error) {
	var r Recharge
	if id != "" {
		if _, err := uuid.Parse(id); err != nil {
			return r, false, nil
		}
	}
	err := s.pool.QueryRow(ctx, `WITH c AS (
			SELECT id FROM recharges WHERE status = 'pending' AND next_attempt_at <= now()
				AND ($1 = '' OR id = NULLIF($1, '')::uuid)
			ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED
		)
		UPDATE recharges r SET attempts = r.attempts + 1, next_attempt_at = now() + $2 * interval '1 microsecond', updated_at = now()
		FROM c WHERE r.id = c.id
		RETURNING r.id::text, r.uid, r.amount_cents, r.attempts,
			COALESCE((SELECT stripe_customer_id FROM billing_settings s WHERE s.uid = r.uid), ''),
			COALESCE((SELECT payment_method_id FROM billing_settings s WHERE s.uid = r.uid), ''),
			COALESCE((SELECT auto_recharge_enabled FROM billing_settings s WHERE s.uid = r.uid), false)`,
		id, lease.Microseconds()).Scan(&r.ID, &r.UID, &r.AmountCents, &r.Attempts, &r.CustomerID, &r.PaymentMethodID, &r.Enabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("claim recharge: %w", err)
	}
	return r, true, nil
}

// MarkRechargeSent records the PaymentIntent of a pending recharge (its
// webhook credits it); a recharge the webhook settled already is left alone.
func (s *PostgresStore) MarkRechargeSent(ctx context.Context, id, paymentIntentID string) error {
	_, err := s.pool.Exec(ctx, `UPDATE recharges SET status = 'processing', payment_intent_id = $2, updated_at = now()
		WHERE id = $1 AND status = 'pending'`, id, paymentIntentID)
	return err
}

// CancelRecharge ends a pending recharge without a payment (auto-recharge
// was turned off, or the card removed, before it was made).
func (s *PostgresStore) CancelRecharge(ctx context.Context, id, reason string) error {
	_, err := s.pool.Exec(ctx, `UPDATE recharges SET status = 'canceled', failure_message = $2, updated_at = now()
		WHERE id = $1 AND status = 'pending'`, id, reason)
	return err
}

// RechargeFailure is what a declined recharge did.
type RechargeFailure struct {
	UID      string
	Counted  bool // false: the recharge had been settled before
	Failures int
	Disabled bool
}

// FailRecharge records a declined recharge (the worker saw the decline in
// Stripe's answer): see failRecharge.
func (s *PostgresStore) FailRecharge(ctx context.Context, id, paymentIntentID, message string, retryAfter time.Duration) (RechargeFailure, error) {
	var out RechargeFailure
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = s.failRecharge(ctx, tx, id, paymentIntentID, message, retryAfter)
		return err
	})
	return out, err
}

// failRecharge moves a pending/processing recharge to failed, once, under
// the owner's wallet lock: the failures in a row are counted, the message
// kept for the balance view, an event tells the user, the next attempt
// waits retryAfter, and the third failure in a row turns auto-recharge off
// with a reason.
func (s *PostgresStore) failRecharge(ctx context.Context, tx pgx.Tx, id, paymentIntentID, message string, retryAfter time.Duration) (RechargeFailure, error) {
	var uid string
	if err := tx.QueryRow(ctx, `SELECT uid FROM recharges WHERE id = $1`, id).Scan(&uid); err != nil {
		return RechargeFailure{}, fmt.Errorf("read recharge: %w", err)
	}
	if _, _, err := lockWallet(ctx, tx, uid); err != nil {
		return RechargeFailure{}, err
	}
	if message == "" {
		message = "The payment was declined."
	}
	var amount int64
	err := tx.QueryRow(ctx, `UPDATE recharges SET status = 'failed', failure_message = $2,
			payment_intent_id = COALESCE(payment_intent_id, NULLIF($3, '')), updated_at = now()
		WHERE id = $1 AND status IN ('pending', 'processing') RETURNING amount_cents`, id, message, paymentIntentID).Scan(&amount)
	if errors.Is(err, pgx.ErrNoRows) {
		return RechargeFailure{UID: uid}, nil
	}
	if err != nil {
		return RechargeFailure{}, fmt.Errorf("fail recharge: %w", err)
	}
	out := RechargeFailure{UID: uid, Counted: true}
	var at time.Time
	err = tx.QueryRow(ctx, `UPDATE billing_settings SET
			auto_recharge_failures = auto_recharge_failures + 1,
			auto_recharge_last_failure = $2,
			auto_recharge_retry_at = now() + $3 * interval '1 microsecond',
			auto_recharge_enabled = auto_recharge_enabled AND auto_recharge_failures + 1 < $4,
			auto_recharge_disabled_reason = CASE WHEN auto_recharge_enabled AND auto_recharge_failures + 1 >= $4
				THEN $5 ELSE auto_recharge_disabled_reason END,
			updated_at = now()
		WHERE uid = $1 RETURNING auto_recharge_failures, NOT auto_recharge_enabled, now()`,
		uid, message, retryAfter.Microseconds(), MaxRechargeFailures,
		fmt.Sprintf("Auto-recharge was turned off after %d declined payments in a row (last: %s). Update your card and turn it on again.",
			MaxRechargeFailures, message)).Scan(&out.Failures, &out.Disabled, &at)
	if err != nil {
		return RechargeFailure{}, fmt.Errorf("count recharge failure: %w", err)
	}
	return out, s.enqueue(ctx, tx, userEvent(uid, TypeRechargeFailed, &eventsv1.WalletRechargeFailed{
		Uid: uid, RechargeId: id, AmountMicros: amount * MicrosPerCent, PaymentIntentId: paymentIntentID,
		FailureMessage: message, ConsecutiveFailures: int32(out.Failures), AutoRechargeDisabled: out.Disabled,
		OccurredAt: ts(at),
	}))
}

// findRecharge finds the recharge a PaymentIntent event is about: by the
// recharge_id metadata the wallet set, or by the PaymentIntent id. "" when
// the PaymentIntent is not a recharge (e.g. a Checkout payment's).
func findRecharge(ctx context.Context, tx pgx.Tx, ev WebhookEvent) (string, error) {
	var id string
	rid := ev.Metadata[MetaRechargeID]
	if _, err := uuid.Parse(rid); err != nil {
		rid = ""
	}
	err := tx.QueryRow(ctx, `SELECT id::text FROM recharges
		WHERE id = NULLIF($1, '')::uuid OR payment_intent_id = NULLIF($2, '') LIMIT 1`, rid, ev.PaymentIntentID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find recharge: %w", err)
	}
	return id, nil
}

// ApplyRechargeEvent applies payment_intent.succeeded (credit the recorded
// amount once: the recharge row moves to succeeded once, and the deposit
// key is the PaymentIntent's) or payment_intent.payment_failed (failRecharge),
// exactly once per event id, in one transaction.
func (s *PostgresStore) ApplyRechargeEvent(ctx context.Context, ev WebhookEvent, retryAfter time.Duration, deposit func(RechargeCredit) Posting) (WebhookResult, error) {
	return s.withEvent(ctx, ev, ev.PaymentIntentID, func(tx pgx.Tx) (WebhookResult, error) {
		id, err := findRecharge(ctx, tx, ev)
		if err != nil || id == "" {
			return WebhookResult{Outcome: OutcomeIgnored}, err
		}
		if ev.Type == EventPaymentIntentPaymentFailed {
			f, err := s.failRecharge(ctx, tx, id, ev.PaymentIntentID, ev.FailureMessage, retryAfter)
			if err != nil {
				return WebhookResult{}, err
			}
			out := WebhookResult{Outcome: OutcomeNoChange, UID: f.UID}
			if f.Counted {
				out.Outcome = OutcomeFailed
			}
			return out, nil
		}
		var uid string
		if err := tx.QueryRow(ctx, `SELECT uid FROM recharges WHERE id = $1`, id).Scan(&uid); err != nil {
			return WebhookResult{}, fmt.Errorf("read recharge: %w", err)
		}
		if _, _, err := lockWallet(ctx, tx, uid); err != nil {
			return WebhookResult{}, err
		}
		var (
			status string
			cents  int64
		)
		if err := tx.QueryRow(ctx, `SELECT status, amount_cents FROM recharges WHERE id = $1 FOR UPDATE`, id).Scan(&status, &cents); err != nil {
			return WebhookResult{}, fmt.Errorf("lock recharge: %w", err)
		}
		if status == "succeeded" {
			return WebhookResult{Outcome: OutcomeAlreadyFinal, UID: uid}, nil
		}
		// Money was received, whatever the row said (a late success after
		// a decline of an earlier attempt is still money): credit it.
		rc := RechargeCredit{ID: id, UID: uid, AmountCents: cents, PaymentIntentID: ev.PaymentIntentID}
		pr, err := s.post(ctx, tx, deposit(rc))
		if err != nil {
			return WebhookResult{}, fmt.Errorf("credit recharge %s: %w", id, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE recharges SET status = 'succeeded', transfer_id = $2, payment_intent_id = $3,
			failure_message = NULL, updated_at = now() WHERE id = $1`, id, pr.Transfer.ID, ev.PaymentIntentID); err != nil {
			return WebhookResult{}, fmt.Errorf("settle recharge: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE billing_settings SET auto_recharge_failures = 0, auto_recharge_last_failure = NULL,
			auto_recharge_retry_at = NULL, updated_at = now() WHERE uid = $1`, uid); err != nil {
			return WebhookResult{}, fmt.Errorf("reset recharge failures: %w", err)
		}
		if err := s.recordPayment(ctx, tx, stripePayment{pi: ev.PaymentIntentID, chargeID: ev.ChargeID, uid: uid,
			cents: cents, transferID: pr.Transfer.ID, rechargeID: id}); err != nil {
			return WebhookResult{}, err
		}
		return WebhookResult{Outcome: OutcomeCredited, UID: uid, Credit: &pr, RechargeID: pr.RechargeID}, nil
	})
}

// RechargeCredit is a succeeded recharge to credit.
type RechargeCredit struct {
	ID, UID, PaymentIntentID string
	AmountCents              int64
}

// RechargeKey is the deposit key of a recharge's PaymentIntent.
func RechargeKey(paymentIntentID string) string { return "stripe:pi:" + paymentIntentID }

// CreateSetupSession records a setup-mode Checkout Session of uid.
func (s *PostgresStore) CreateSetupSession(ctx context.Context, id, uid string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO setup_sessions (id, uid, status) VALUES ($1, $2, 'open')`, id, uid)
	return err
}

// SetupSessionOwner is the user of a recorded setup session ("" when
// unknown) and whether its card was saved already.
func (s *PostgresStore) SetupSessionOwner(ctx context.Context, id string) (string, bool, error) {
	var (
		uid    string
		status string
	)
	err := s.pool.QueryRow(ctx, `SELECT uid, status FROM setup_sessions WHERE id = $1`, id).Scan(&uid, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	return uid, status == "complete", err
}

// StripeCustomer returns uid's Stripe customer ("" when none yet).
func (s *PostgresStore) StripeCustomer(ctx context.Context, uid string) (string, error) {
	var c string
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(stripe_customer_id, '') FROM billing_settings WHERE uid = $1`, uid).Scan(&c)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return c, err
}

// SetStripeCustomer stores uid's Stripe customer unless one is stored
// already, and returns the stored one.
func (s *PostgresStore) SetStripeCustomer(ctx context.Context, uid, customerID string) (string, error) {
	var c string
	err := s.pool.QueryRow(ctx, `INSERT INTO billing_settings (uid, stripe_customer_id) VALUES ($1, $2)
		ON CONFLICT (uid) DO UPDATE SET stripe_customer_id = COALESCE(billing_settings.stripe_customer_id, EXCLUDED.stripe_customer_id)
		RETURNING stripe_customer_id`, uid, customerID).Scan(&c)
	return c, err
}

// SavedCard is a card saved at Stripe for off-session payments.
type SavedCard struct {
	CustomerID, PaymentMethodID, Label string
}

// SaveCard applies a completed setup session (exactly once per event id):
// the card becomes uid's auto-recharge card, and a fresh card clears the
// failures and the reason auto-recharge was turned off (the user turns it on
// again in the settings).
func (s *PostgresStore) SaveCard(ctx context.Context, ev WebhookEvent, uid string, card SavedCard) (WebhookResult, error) {
	return s.withEvent(ctx, ev, ev.SessionID, func(tx pgx.Tx) (WebhookResult, error) {
		if _, _, err := lockWallet(ctx, tx, uid); err != nil {
			return WebhookResult{}, err
		}
		tag, err := tx.Exec(ctx, `UPDATE setup_sessions SET status = 'complete', updated_at = now() WHERE id = $1 AND status = 'open'`, ev.SessionID)
		if err != nil {
			return WebhookResult{}, fmt.Errorf("complete setup session: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return WebhookResult{Outcome: OutcomeAlreadyFinal, UID: uid}, nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO billing_settings (uid, stripe_customer_id, payment_method_id, card_label)
			VALUES ($1, NULLIF($2, ''), $3, $4)
			ON CONFLICT (uid) DO UPDATE SET stripe_customer_id = COALESCE(NULLIF($2, ''), billing_settings.stripe_customer_id),
				payment_method_id = $3, card_label = $4, auto_recharge_failures = 0, auto_recharge_last_failure = NULL,
				auto_recharge_disabled_reason = NULL, auto_recharge_retry_at = NULL, updated_at = now()`,
			uid, card.CustomerID, card.PaymentMethodID, card.Label); err != nil {
			return WebhookResult{}, fmt.Errorf("save card: %w", err)
		}
		return WebhookResult{Outcome: OutcomeCardSaved, UID: uid}, nil
	})
}
