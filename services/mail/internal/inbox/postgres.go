package inbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/mail/internal/mailtext"
	"github.com/agentic-app/agentic/services/platform/events"
)

// Store persists messages and replies in PostgreSQL; every state change
// writes its event to the outbox in the same transaction.
type Store struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
}

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, outbox: events.NewOutbox(Source)}
}

// ErrLostLease: the job was taken over by another worker (its lease had
// expired); this worker's result is dropped.
var ErrLostLease = errors.New("lease lost")

// Inbound is a checked message about to be stored.
type Inbound struct {
	Parsed   mailtext.Parsed
	Raw      []byte
	RemoteIP string
	Auth     string
	Received time.Time
}

func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// Insert stores in for every recipient (one row per agent) and returns how
// many rows were new and how many were redeliveries of a stored Message-ID.
func (s *Store) Insert(ctx context.Context, in Inbound, rcpts []Recipient) (stored, dups int, err error) {
	p := in.Parsed
	err = s.tx(ctx, func(tx pgx.Tx) error {
		stored, dups = 0, 0
		for _, r := range rcpts {
			thread, err := threadKey(ctx, tx, r.Agent.ID, p)
			if err != nil {
				return err
			}
			id, err := uuid.NewV7()
			if err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `
				INSERT INTO messages (id, agent_id, agent_email, agent_name, sender_uid, sender_email, sender_name,
					rfc_message_id, in_reply_to, refs, thread_key, subject, body, body_from_html, attachments,
					auto_submitted, raw, size_bytes, remote_ip, auth_result, received_at, run_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $21)
				ON CONFLICT (agent_id, rfc_message_id) DO NOTHING`,
				id, r.Agent.ID, NormalizeAddress(r.Agent.Email), r.Agent.Name, r.SenderUID, p.From, p.FromName,
				p.MessageID, nonNil(p.InReplyTo), nonNil(p.References), thread, p.Subject, p.Text, p.FromHTML,
				nonNil(p.Attachments), p.AutoSubmitted, in.Raw, len(in.Raw), in.RemoteIP, in.Auth, in.Received)
			if err != nil {
				return fmt.Errorf("insert message: %w", err)
			}
			if tag.RowsAffected() == 0 {
				dups++
				continue
			}
			stored++
			if _, err := s.outbox.Enqueue(ctx, tx, receivedEvent(id.String(), r.Agent.ID, r.SenderUID, in, thread)); err != nil {
				return err
			}
		}
		return nil
	})
	return stored, dups, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// threadKey maps a message to its thread's root Message-ID. A reply refers
// to earlier messages (In-Reply-To: the parent; References: root first);
// the nearest one this agent already knows — a message it received or a
// reply it sent — gives the thread, so replies continue the conversation
// even when a client shortens References. Otherwise the first reference
// (the root) is the key, and a new thread is keyed by the message's own id.
func threadKey(ctx context.Context, tx pgx.Tx, agentID string, p mailtext.Parsed) (string, error) {
	var order []string // nearest parent first
	order = append(order, p.InReplyTo...)
	for i := len(p.References) - 1; i >= 0; i-- {
		order = append(order, p.References[i])
	}
	if len(order) == 0 {
		return p.MessageID, nil
	}
	rows, err := tx.Query(ctx, `
		SELECT rfc_message_id, thread_key FROM messages WHERE agent_id = $1 AND rfc_message_id = ANY($2)
		UNION ALL
		SELECT rfc_message_id, thread_key FROM replies WHERE agent_id = $1 AND rfc_message_id = ANY($2)`,
		agentID, order)
	if err != nil {
		return "", fmt.Errorf("thread lookup: %w", err)
	}
	known := map[string]string{}
	for rows.Next() {
		var id, key string
		if err := rows.Scan(&id, &key); err != nil {
			rows.Close()
			return "", err
		}
		known[id] = key
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	for _, id := range order {
		if k, ok := known[id]; ok {
			return k, nil
		}
	}
	if len(p.References) > 0 {
		return p.References[0], nil
	}
	return p.InReplyTo[0], nil
}

// Message is a stored message as the answer worker sees it.
type Message struct {
	ID, AgentID, AgentEmail, AgentName string
	SenderUID, SenderEmail, SenderName string
	RFCMessageID                       string
	InReplyTo, References              []string
	ThreadKey, Subject, Body           string
	Attachments                        []string
	AutoSubmitted                      bool
	ReceivedAt                         time.Time
	Attempts, ModelFailures            int
	Lease                              string
	RateCounted                        bool
}

const messageColumns = `m.id::text, m.agent_id::text, m.agent_email, m.agent_name, m.sender_uid, m.sender_email,
	m.sender_name, m.rfc_message_id, m.in_reply_to, m.refs, m.thread_key, m.subject, m.body, m.attachments,
	m.auto_submitted, m.received_at, m.attempts, m.model_failures, COALESCE(m.lease_token::text, ''),
	m.rate_counted_at IS NOT NULL`

func scanMessage(row pgx.Row) (Message, error) {
	var m Message
	err := row.Scan(&m.ID, &m.AgentID, &m.AgentEmail, &m.AgentName, &m.SenderUID, &m.SenderEmail, &m.SenderName,
		&m.RFCMessageID, &m.InReplyTo, &m.References, &m.ThreadKey, &m.Subject, &m.Body, &m.Attachments,
		&m.AutoSubmitted, &m.ReceivedAt, &m.Attempts, &m.ModelFailures, &m.Lease, &m.RateCounted)
	return m, err
}

// ClaimMessage leases the oldest due pending message (FOR UPDATE SKIP
// LOCKED: concurrent workers never take the same one) whose thread has no
// earlier pending message of the same sender, so a thread's messages are
// answered in arrival order. ok is false when there is none.
func (s *Store) ClaimMessage(ctx context.Context, lease time.Duration) (m Message, ok bool, err error) {
	m, err = scanMessage(s.pool.QueryRow(ctx, `
		WITH next AS (
			SELECT c.id FROM messages c
			WHERE c.state = 'pending' AND c.run_at <= now() AND (c.locked_until IS NULL OR c.locked_until < now())
				AND NOT EXISTS (
					SELECT 1 FROM messages e
					WHERE e.state = 'pending' AND e.agent_id = c.agent_id AND e.thread_key = c.thread_key
						AND e.sender_uid = c.sender_uid AND e.seq < c.seq)
			ORDER BY c.run_at, c.seq
			LIMIT 1
			FOR UPDATE SKIP LOCKED
		)
		UPDATE messages m SET locked_until = now() + $1::interval, lease_token = gen_random_uuid(), attempts = m.attempts + 1
		FROM next WHERE m.id = next.id
		RETURNING `+messageColumns, lease))
	if errors.Is(err, pgx.ErrNoRows) {
		return Message{}, false, nil
	}
	if err != nil {
		return Message{}, false, fmt.Errorf("claim message: %w", err)
	}
	return m, true, nil
}

// NewReply is a reply to queue.
type NewReply struct {
	ID           uuid.UUID
	Kind         string
	RFCMessageID string
	MailFrom     string
	RcptTo       string
	Raw          []byte
}

// lockLeased locks m's row if this worker still holds its lease.
func lockLeased(ctx context.Context, tx pgx.Tx, m Message) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM messages WHERE id = $1 AND lease_token = $2 AND state = 'pending' FOR UPDATE`,
		m.ID, m.Lease).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrLostLease
	}
	return err
}

func (s *Store) insertReply(ctx context.Context, tx pgx.Tx, m Message, r NewReply) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO replies (id, message_id, agent_id, kind, rfc_message_id, thread_key, mail_from, rcpt_to, raw)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (message_id) DO NOTHING`,
		r.ID, m.ID, m.AgentID, r.Kind, r.RFCMessageID, m.ThreadKey, r.MailFrom, r.RcptTo, r.Raw)
	if err != nil {
		return fmt.Errorf("queue reply: %w", err)
	}
	return nil
}

// FinishAnswered records the answer and queues its reply, in one
// transaction. ErrLostLease when another worker took the message over.
func (s *Store) FinishAnswered(ctx context.Context, m Message, a Answer, r NewReply) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockLeased(ctx, tx, m); err != nil {
			return err
		}
		now := time.Now().UTC()
		if _, err := tx.Exec(ctx, `
			UPDATE messages SET state = 'answered', conversation_id = $2, answer_message_id = $3, total_micros = $4,
				done_at = $5, locked_until = NULL, last_error = ''
			WHERE id = $1`, m.ID, a.ConversationID, a.MessageID, a.TotalMicros, now); err != nil {
			return err
		}
		if err := s.insertReply(ctx, tx, m, r); err != nil {
			return err
		}
		_, err := s.outbox.Enqueue(ctx, tx, answeredEvent(m, a, now))
		return err
	})
}

// FinishRefused records that m is not answered, and queues r (a short
// polite reply) when it is not nil.
func (s *Store) FinishRefused(ctx context.Context, m Message, reason string, r *NewReply) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockLeased(ctx, tx, m); err != nil {
			return err
		}
		return s.refuse(ctx, tx, m, reason, r)
	})
}

func (s *Store) refuse(ctx context.Context, tx pgx.Tx, m Message, reason string, r *NewReply) error {
	now := time.Now().UTC()
	if _, err := tx.Exec(ctx, `
		UPDATE messages SET state = 'refused', refuse_reason = $2, done_at = $3, locked_until = NULL
		WHERE id = $1`, m.ID, reason, now); err != nil {
		return err
	}
	if r != nil {
		if err := s.insertReply(ctx, tx, m, *r); err != nil {
			return err
		}
	}
	_, err := s.outbox.Enqueue(ctx, tx, refusedEvent(m, reason, r != nil, now))
	return err
}

// TakeRate counts m against its sender's limit of answers per window, once
// per message. When the sender is over the limit, m is refused (reason
// rate_limited) in the same transaction with the reply notice(first)
// returns — first is true when the sender has not been told about the
// limit within the window, so a flood gets one notice, not one per message.
// Concurrent workers serialise on the sender (advisory lock).
func (s *Store) TakeRate(ctx context.Context, m Message, limit int, window time.Duration, notice func(first bool) (*NewReply, error)) (allowed bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7302, hashtext($1))`, m.SenderEmail); err != nil {
			return err
		}
		if err := lockLeased(ctx, tx, m); err != nil {
			return err
		}
		var counted bool
		if err := tx.QueryRow(ctx, `SELECT rate_counted_at IS NOT NULL FROM messages WHERE id = $1`, m.ID).Scan(&counted); err != nil {
			return err
		}
		if counted {
			allowed = true
			return nil
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM messages WHERE sender_email = $1 AND rate_counted_at > now() - $2::interval`,
			m.SenderEmail, window).Scan(&n); err != nil {
			return err
		}
		if n < limit {
			allowed = true
			_, err := tx.Exec(ctx, `UPDATE messages SET rate_counted_at = now() WHERE id = $1`, m.ID)
			return err
		}
		var told bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM replies WHERE rcpt_to = $1 AND kind = 'rate_limited' AND created_at > now() - $2::interval)`,
			m.SenderEmail, window).Scan(&told); err != nil {
			return err
		}
		r, err := notice(!told)
		if err != nil {
			return err
		}
		return s.refuse(ctx, tx, m, ReasonRateLimited, r)
	})
	return allowed, err
}

// Retry hands m back to run again at runAt, recording why. modelFailure
// counts a "model unavailable" answer.
func (s *Store) Retry(ctx context.Context, m Message, lastErr string, runAt time.Time, modelFailure bool) error {
	inc := 0
	if modelFailure {
		inc = 1
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE messages SET run_at = $3, locked_until = NULL, lease_token = NULL, last_error = $4,
			model_failures = model_failures + $5
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, m.ID, m.Lease, runAt, truncate(lastErr, 1000), inc)
	if err == nil && tag.RowsAffected() == 0 {
		return ErrLostLease
	}
	return err
}

// Release hands m back at once without counting the attempt (shutdown).
func (s *Store) Release(ctx context.Context, m Message) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE messages SET locked_until = NULL, lease_token = NULL, attempts = greatest(attempts - 1, 0)
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, m.ID, m.Lease)
	return err
}

// Reply is a queued reply as the send worker sees it.
type Reply struct {
	ID, MessageID, AgentID, SenderUID string
	Kind, RFCMessageID                string
	MailFrom, RcptTo                  string
	Raw                               []byte
	Attempts                          int
	Lease                             string
	CreatedAt                         time.Time
}

// ClaimReply leases the oldest due pending reply.
func (s *Store) ClaimReply(ctx context.Context, lease time.Duration) (Reply, bool, error) {
	var r Reply
	err := s.pool.QueryRow(ctx, `
		WITH next AS (
			SELECT id FROM replies
			WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
			ORDER BY run_at, created_at
			LIMIT 1
			FOR UPDATE SKIP LOCKED
		)
		UPDATE replies r SET locked_until = now() + $1::interval, lease_token = gen_random_uuid(), attempts = r.attempts + 1
		FROM next WHERE r.id = next.id
		RETURNING r.id::text, r.message_id::text, r.agent_id::text,
			(SELECT sender_uid FROM messages WHERE id = r.message_id), r.kind, r.rfc_message_id,
			r.mail_from, r.rcpt_to, r.raw, r.attempts, r.lease_token::text, r.created_at`, lease).
		Scan(&r.ID, &r.MessageID, &r.AgentID, &r.SenderUID, &r.Kind, &r.RFCMessageID, &r.MailFrom, &r.RcptTo,
			&r.Raw, &r.Attempts, &r.Lease, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Reply{}, false, nil
	}
	if err != nil {
		return Reply{}, false, fmt.Errorf("claim reply: %w", err)
	}
	return r, true, nil
}

// MarkSent records that the relay accepted r. It does not require the
// lease: once the relay has the message, stopping every further attempt
// matters more than who records it.
func (s *Store) MarkSent(ctx context.Context, r Reply) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		now := time.Now().UTC()
		tag, err := tx.Exec(ctx, `
			UPDATE replies SET state = 'sent', sent_at = $2, locked_until = NULL, last_error = ''
			WHERE id = $1 AND state = 'pending'`, r.ID, now)
		if err != nil || tag.RowsAffected() == 0 {
			return err // already recorded: nothing more to say
		}
		_, err = s.outbox.Enqueue(ctx, tx, sentEvent(r, now))
		return err
	})
}

// RetryReply hands r back to be sent again at runAt.
func (s *Store) RetryReply(ctx context.Context, r Reply, lastErr string, runAt time.Time) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE replies SET run_at = $3, locked_until = NULL, lease_token = NULL, last_error = $4
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, r.ID, r.Lease, runAt, truncate(lastErr, 1000))
	if err == nil && tag.RowsAffected() == 0 {
		return ErrLostLease
	}
	return err
}

// ReleaseReply hands r back at once without counting the attempt (shutdown).
func (s *Store) ReleaseReply(ctx context.Context, r Reply) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE replies SET locked_until = NULL, lease_token = NULL, attempts = greatest(attempts - 1, 0)
		WHERE id = $1 AND lease_token = $2 AND state = 'pending'`, r.ID, r.Lease)
	return err
}

// FailReply gives up on r (the relay refused it for good, or it is too old).
func (s *Store) FailReply(ctx context.Context, r Reply, lastErr string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE replies SET state = 'failed', locked_until = NULL, last_error = $2
		WHERE id = $1 AND state = 'pending'`, r.ID, truncate(lastErr, 1000))
	return err
}

// Depth returns how many messages and replies are due and not leased.
func (s *Store) Depth(ctx context.Context) (messages, replies int64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM messages WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())),
		       (SELECT count(*) FROM replies WHERE state = 'pending' AND run_at <= now() AND (locked_until IS NULL OR locked_until < now()))`).
		Scan(&messages, &replies)
	return messages, replies, err
}

// Backlog returns how many accepted messages wait for their answer or their
// reply now: pending and due, leased or not (the inbox's pacing, package
// inflow). Those backed off for a retry (the model or the relay is down) are
// not counted.
func (s *Store) Backlog(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM messages WHERE state = 'pending' AND run_at <= now())
		     + (SELECT count(*) FROM replies WHERE state = 'pending' AND run_at <= now())`).Scan(&n)
	return n, err
}

// MessageView is a message and its reply for the admin API.
type MessageView struct {
	ID             string     `json:"id"`
	AgentID        string     `json:"agentId"`
	AgentEmail     string     `json:"agentEmail"`
	SenderEmail    string     `json:"senderEmail"`
	SenderUID      string     `json:"senderUid"`
	MessageID      string     `json:"messageId"`
	ThreadKey      string     `json:"threadKey"`
	Subject        string     `json:"subject"`
	Body           string     `json:"body"`
	BodyFromHTML   bool       `json:"bodyFromHtml"`
	Attachments    []string   `json:"attachments"`
	SizeBytes      int        `json:"sizeBytes"`
	Auth           string     `json:"auth"`
	State          string     `json:"state"`
	RefuseReason   string     `json:"refuseReason,omitempty"`
	Attempts       int        `json:"attempts"`
	LastError      string     `json:"lastError,omitempty"`
	ConversationID string     `json:"conversationId,omitempty"`
	ReceivedAt     time.Time  `json:"receivedAt"`
	DoneAt         *time.Time `json:"doneAt,omitempty"`
	Reply          *ReplyView `json:"reply,omitempty"`
}

// ReplyView is a reply for the admin API.
type ReplyView struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	MessageID string     `json:"messageId"`
	State     string     `json:"state"`
	Attempts  int        `json:"attempts"`
	LastError string     `json:"lastError,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	SentAt    *time.Time `json:"sentAt,omitempty"`
}

// List returns the newest limit messages, newest first.
func (s *Store) List(ctx context.Context, limit int) ([]MessageView, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT m.id::text, m.agent_id::text, m.agent_email, m.sender_email, m.sender_uid, m.rfc_message_id,
			m.thread_key, m.subject, m.body, m.body_from_html, m.attachments, m.size_bytes, m.auth_result, m.state,
			m.refuse_reason, m.attempts, m.last_error, m.conversation_id, m.received_at, m.done_at,
			r.id::text, r.kind, r.rfc_message_id, r.state, r.attempts, r.last_error, r.created_at, r.sent_at
		FROM messages m LEFT JOIN replies r ON r.message_id = m.id
		ORDER BY m.received_at DESC, m.seq DESC
		LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []MessageView{}
	for rows.Next() {
		var v MessageView
		var rid, kind, rmid, rstate, rerr *string
		var rattempts *int
		var rcreated *time.Time
		var rsent *time.Time
		if err := rows.Scan(&v.ID, &v.AgentID, &v.AgentEmail, &v.SenderEmail, &v.SenderUID, &v.MessageID,
			&v.ThreadKey, &v.Subject, &v.Body, &v.BodyFromHTML, &v.Attachments, &v.SizeBytes, &v.Auth, &v.State,
			&v.RefuseReason, &v.Attempts, &v.LastError, &v.ConversationID, &v.ReceivedAt, &v.DoneAt,
			&rid, &kind, &rmid, &rstate, &rattempts, &rerr, &rcreated, &rsent); err != nil {
			return nil, err
		}
		if rid != nil {
			v.Reply = &ReplyView{ID: *rid, Kind: *kind, MessageID: *rmid, State: *rstate, Attempts: *rattempts,
				LastError: *rerr, CreatedAt: *rcreated, SentAt: rsent}
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
