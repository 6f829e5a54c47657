package inbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// SendQueue is what a SendWorker delivers from: the replies (the default)
// or the billing notifications. Both hand out Reply values.
type SendQueue interface {
	Claim(ctx context.Context, lease time.Duration) (Reply, bool, error)
	// MarkSent records the relay's acceptance (without requiring the lease).
	MarkSent(ctx context.Context, r Reply) error
	// Retry hands r back for runAt; ErrLostLease when the lease was lost.
	Retry(ctx context.Context, r Reply, lastErr string, runAt time.Time) error
	// Release hands r back at once without counting the attempt.
	Release(ctx context.Context, r Reply) error
	// Fail gives up on r.
	Fail(ctx context.Context, r Reply, lastErr string) error
}

// Replies is the reply queue of s.
func (s *Store) Replies() SendQueue { return replyQueue{s} }

type replyQueue struct{ s *Store }

func (q replyQueue) Claim(ctx context.Context, lease time.Duration) (Reply, bool, error) {
	return q.s.ClaimReply(ctx, lease)
}
func (q replyQueue) MarkSent(ctx context.Context, r Reply) error { return q.s.MarkSent(ctx, r) }
func (q replyQueue) Retry(ctx context.Context, r Reply, lastErr string, runAt time.Time) error {
	return q.s.RetryReply(ctx, r, lastErr, runAt)
}
func (q replyQueue) Release(ctx context.Context, r Reply) error { return q.s.ReleaseReply(ctx, r) }
func (q replyQueue) Fail(ctx context.Context, r Reply, lastErr string) error {
	return q.s.FailReply(ctx, r, lastErr)
}

// NewNotification is a notification e-mail to queue (billing, or a
// subscriber's cap reached).
type NewNotification struct {
	// EventID is the CloudEvents id of the wallet or usage event (at most one
	// e-mail per event).
	EventID, EventType string
	// Kind: balance_low, spend_80, spend_100, recharge_failed, recharge_disabled,
	// subscriber_cap.
	Kind             string
	UID              string
	RFCMessageID     string
	MailFrom, RcptTo string
	Subject          string
	Raw              []byte
}

// QueueNotification stores n in tx (the consumer's transaction, which also
// records the event as processed). It reports false when a notification for
// the event already exists.
func QueueNotification(ctx context.Context, tx pgx.Tx, n NewNotification) (bool, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return false, err
	}
	tag, err := tx.Exec(ctx, `
		INSERT INTO notifications (id, event_id, event_type, kind, uid, rfc_message_id, mail_from, rcpt_to, subject, raw)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (event_id) DO NOTHING`,
		id, n.EventID, n.EventType, n.Kind, n.UID, n.RFCMessageID, n.MailFrom, n.RcptTo, n.Subject, n.Raw)
	if err != nil {
		return false, fmt.Errorf("queue notification: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Notifications is the billing notification queue of s. A Reply from it
// has Kind = the notification kind, SenderUID = the user, MessageID = the
// wallet event id and no AgentID.
func (s *Store) Notifications() SendQueue { return notificationQueue{s} }

type notificationQueue struct{ s *Store }

func (q notificationQueue) Claim(ctx context.Context, lease time.Duration) (Reply, bool, error) {
	var r Reply
	err := q.s.pool.QueryRow(ctx, `
		WITH next AS (
			SELECT id FROM notifications
			WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
			ORDER BY run_at, created_at
			LIMIT 1
			FOR UPDATE SKIP LOCKED
		)
		UPDATE notifications n SET locked_until = now() + $1::interval, lease_token = gen_random_uuid(), attempts = n.attempts + 1
		FROM next WHERE n.id = next.id
		RETURNING n.id::text, n.event_id, n.uid, n.kind, n.rfc_message_id, n.mail_from, n.rcpt_to, n.raw,
			n.attempts, n.lease_token::text, n.created_at`, lease).
		Scan(&r.ID, &r.MessageID, &r.SenderUID, &r.Kind, &r.RFCMessageID, &r.MailFrom, &r.RcptTo, &r.Raw,
			&r.Attempts, &r.Lease, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Reply{}, false, nil
	}
	if err != nil {
		return Reply{}, false, fmt.Errorf("claim notification: %w", err)
	}
	return r, true, nil
}

func (q notificationQueue) MarkSent(ctx context.Context, r Reply) error {
	_, err := q.s.pool.Exec(ctx, `
		UPDATE notifications SET state = 'sent', sent_at = now(), locked_until = NULL, last_error = ''
		WHERE id = $1 AND state = 'pending'`, r.ID)
	return err
}

func (q notificationQueue) Retry(ctx context.Context, r Reply, lastErr string, runAt time.Time) error {
	tag, err := q.s.pool.Exec(ctx, `
		UPDATE notifications SET run_at = $3, locked_until = NULL, lease_token = NULL, last_error = $4
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, r.ID, r.Lease, runAt, truncate(lastErr, 1000))
	if err == nil && tag.RowsAffected() == 0 {
		return ErrLostLease
	}
	return err
}

func (q notificationQueue) Release(ctx context.Context, r Reply) error {
	_, err := q.s.pool.Exec(ctx, `
		UPDATE notifications SET locked_until = NULL, lease_token = NULL, attempts = greatest(attempts - 1, 0)
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, r.ID, r.Lease)
	return err
}

func (q notificationQueue) Fail(ctx context.Context, r Reply, lastErr string) error {
	_, err := q.s.pool.Exec(ctx, `
		UPDATE notifications SET state = 'failed', locked_until = NULL, last_error = $2
		WHERE id = $1 AND state = 'pending'`, r.ID, truncate(lastErr, 1000))
	return err
}
