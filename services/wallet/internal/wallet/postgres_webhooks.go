package wallet

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// withEvent runs fn in one transaction that first records the Stripe event
// id: a concurrent delivery of the same id waits on the insert and then sees
// a duplicate, and a later one finds it. The event's effect and its record
// commit together, so an event is applied exactly once.
func (s *PostgresStore) withEvent(ctx context.Context, ev WebhookEvent, object string, fn func(tx pgx.Tx) (WebhookResult, error)) (WebhookResult, error) {
	var res WebhookResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		res = WebhookResult{}
		tag, err := tx.Exec(ctx, `INSERT INTO processed_webhook_events (event_id, type, session_id) VALUES ($1, $2, NULLIF($3, ''))
			ON CONFLICT (event_id) DO NOTHING`, ev.ID, ev.Type, object)
		if err != nil {
			return fmt.Errorf("record event: %w", err)
		}
		if tag.RowsAffected() == 0 {
			res.Outcome = OutcomeDuplicateEvent
			return nil
		}
		if res, err = fn(tx); err != nil {
			return err
		}
		return s.setOutcome(ctx, tx, ev.ID, res.Outcome)
	})
	return res, err
}

// ApplyWebhook implements Store. One transaction: record the event id,
// move the session with a conditional update (only one transaction can take
// it from open/processing to paid), and credit the recorded amount with the
// session's deposit key (unique in transfers: a third line of defence). The
// payment (PaymentIntent) is recorded with the deposit for later refunds and
// disputes.
func (s *PostgresStore) ApplyWebhook(ctx context.Context, ev WebhookEvent, deposit func(CheckoutSession) Posting) (WebhookResult, error) {
	return s.withEvent(ctx, ev, ev.SessionID, func(tx pgx.Tx) (WebhookResult, error) {
		var (
			res  WebhookResult
			to   SessionStatus
			from []string
		)
		switch {
		case (ev.Type == EventCheckoutCompleted && ev.PaymentStatus == "paid") || ev.Type == EventCheckoutAsyncPaymentSucceded:
			to, from = SessionPaid, []string{string(SessionOpen), string(SessionProcessing)}
		case ev.Type == EventCheckoutCompleted && ev.PaymentStatus == "unpaid":
			// Delayed payment methods: async_payment_succeeded/failed follows.
			to, from = SessionProcessing, []string{string(SessionOpen)}
		case ev.Type == EventCheckoutAsyncPaymentFailed:
			to, from = SessionFailed, []string{string(SessionOpen), string(SessionProcessing)}
		case ev.Type == EventCheckoutExpired:
			to, from = SessionExpired, []string{string(SessionOpen)}
		default:
			res.Outcome = OutcomeIgnored
			return res, nil
		}

		cs, err := scanSession(tx.QueryRow(ctx, `UPDATE checkout_sessions SET status = $2, updated_at = now(),
				payment_intent_id = COALESCE(payment_intent_id, NULLIF($4, ''))
			WHERE id = $1 AND status = ANY($3) RETURNING `+sessionColumns, ev.SessionID, string(to), from, ev.PaymentIntentID))
		if errors.Is(err, pgx.ErrNoRows) {
			cs, err = scanSession(tx.QueryRow(ctx, `SELECT `+sessionColumns+` FROM checkout_sessions WHERE id = $1`, ev.SessionID))
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				res.Outcome = OutcomeUnknownSession
			case err != nil:
				return res, fmt.Errorf("read session: %w", err)
			default:
				res.Outcome, res.Session = OutcomeAlreadyFinal, cs
				// A session credited before its PaymentIntent was known
				// (an event without it, or before payments were recorded)
				// learns it from a later event.
				if cs.Status == SessionPaid && cs.TransferID != "" && ev.PaymentIntentID != "" {
					// Early refund/dispute events may apply now: under the owner's wallet lock.
					if _, _, err := lockWallet(ctx, tx, cs.UID); err != nil {
						return res, err
					}
					if err := s.recordPayment(ctx, tx, stripePayment{pi: ev.PaymentIntentID, uid: cs.UID,
						cents: cs.AmountCents, transferID: cs.TransferID, sessionID: cs.ID}); err != nil {
						return res, err
					}
				}
			}
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("update session: %w", err)
		}
		res.Session = cs
		if to != SessionPaid {
			res.Outcome = OutcomeMarked
			return res, nil
		}

		pr, err := s.post(ctx, tx, deposit(cs))
		if err != nil {
			return res, fmt.Errorf("credit session %s: %w", cs.ID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE checkout_sessions SET transfer_id = $2 WHERE id = $1`, cs.ID, pr.Transfer.ID); err != nil {
			return res, fmt.Errorf("link transfer: %w", err)
		}
		if pi := cs.PaymentIntentID; pi != "" {
			if err := s.recordPayment(ctx, tx, stripePayment{pi: pi, uid: cs.UID, cents: cs.AmountCents,
				transferID: pr.Transfer.ID, sessionID: cs.ID}); err != nil {
				return res, err
			}
		}
		res.Session.TransferID = pr.Transfer.ID
		res.Outcome, res.Credit = OutcomeCredited, &pr
		return res, nil
	})
}

func (s *PostgresStore) setOutcome(ctx context.Context, tx pgx.Tx, eventID string, o WebhookOutcome) error {
	_, err := tx.Exec(ctx, `UPDATE processed_webhook_events SET outcome = $2 WHERE event_id = $1`, eventID, string(o))
	return err
}
