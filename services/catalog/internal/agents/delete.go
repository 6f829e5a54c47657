package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Deleting agents (issue 29 item 9) and a deleted user's catalog data (item
// 10). An agent is deleted outright, not tombstoned: its row goes, and with
// it (ON DELETE CASCADE) its subscribers, reviews, agent_users and answer
// costs; its reports are deleted by hand (no foreign key). Every read (the
// owner's lists, Shared with me, the marketplace, GetAgent, CheckAccess,
// FindAgentByEmail) then finds nothing. Its e-mail address stays in
// agent_emails, whose primary key keeps Create from ever issuing it again.
// AgentDeleted goes through the outbox in the same transaction; the
// services holding the agent's data (documents, conversations and keys,
// wallet fees) delete it on that event; analytics keeps the history.

// DeleteAgent implements Service: the owner's agent only (anyone else's, or
// an unknown id, is ErrNotFound).
func (s *service) DeleteAgent(ctx context.Context, owner, id string) error {
	if !validID(id) || owner == "" {
		return ErrNotFound
	}
	if err := s.store.Delete(ctx, owner, id, s.now().UTC()); err != nil {
		return err
	}
	s.listedChanged()
	return nil
}

// Delete implements Store.
func (s *PostgresStore) Delete(ctx context.Context, owner, id string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		a, err := getAgent(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		return s.deleteAgent(ctx, tx, a, at)
	})
}

// deleteAgent deletes the locked agent a within tx, emits AgentDeleted and
// records an access change of every user of the agent (conversations drops
// its cached CheckAccess answers at once).
func (s *PostgresStore) deleteAgent(ctx context.Context, tx pgx.Tx, a Agent, at time.Time) error {
	if _, err := tx.Exec(ctx, `DELETE FROM reports WHERE agent_id = $1`, a.ID); err != nil {
		return fmt.Errorf("delete reports: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM agents WHERE id = $1`, a.ID); err != nil {
		return fmt.Errorf("delete agent: %w", err)
	}
	// Its slug is never given to another agent (links shared while it was
	// listed must not lead elsewhere).
	if a.Slug != "" {
		if _, err := tx.Exec(ctx, `INSERT INTO retired_slugs (slug, agent_id, retired_at) VALUES ($1, $2, $3)
			ON CONFLICT (slug) DO NOTHING`, a.Slug, a.ID, at); err != nil {
			return fmt.Errorf("retire slug: %w", err)
		}
	}
	if err := s.enqueue(ctx, tx, deletedEvent(a, at)); err != nil {
		return err
	}
	return recordAccessChange(ctx, tx, a.ID, "")
}

// DeleteUser deletes a deleted user's catalog data within tx (identity's
// user.deleted consumer): every agent they own (each with AgentDeleted, so
// the other services delete the agents' data), their subscriptions to other
// users' agents (by uid, and invitations of their address; each with
// SubscriberRemoved and an access change), their reviews (the agents'
// ratings corrected), their answer history used for reviewing (agent_users)
// and their known_users row. Idempotent: a second run finds nothing. It
// returns how many agents it deleted.
func (s *PostgresStore) DeleteUser(ctx context.Context, tx pgx.Tx, uid, email string, at time.Time) (int, error) {
	if uid == "" {
		return 0, nil
	}
	email = strings.ToLower(strings.TrimSpace(email))
	// Lock order as everywhere: the e-mail lock, then agent rows (in id
	// order), then subscriber rows.
	if email != "" {
		if err := lockEmail(ctx, tx, email); err != nil {
			return 0, err
		}
	}
	rows, err := tx.Query(ctx, `SELECT `+agentColumns+` FROM agents WHERE owner_uid = $1 ORDER BY id FOR UPDATE`, uid)
	if err != nil {
		return 0, fmt.Errorf("lock agents: %w", err)
	}
	var owned []Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			rows.Close()
			return 0, err
		}
		owned = append(owned, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, a := range owned {
		if err := s.deleteAgent(ctx, tx, a, at); err != nil {
			return 0, err
		}
	}

	// Their subscriptions to and reviews of other users' agents: those
	// agents' rows first, in id order.
	if _, err := tx.Exec(ctx, `
		SELECT a.id FROM agents a
		WHERE a.id IN (SELECT agent_id FROM subscribers WHERE uid = $1 OR email = NULLIF($2, '')
			UNION SELECT agent_id FROM reviews WHERE author_uid = $1)
		ORDER BY a.id FOR UPDATE`, uid, email); err != nil {
		return 0, fmt.Errorf("lock subscribed agents: %w", err)
	}
	subRows, err := tx.Query(ctx, `DELETE FROM subscribers WHERE uid = $1 OR email = NULLIF($2, '')
		RETURNING `+subscriberColumns, uid, email)
	if err != nil {
		return 0, fmt.Errorf("delete subscriptions: %w", err)
	}
	var subs []Subscriber
	for subRows.Next() {
		sub, err := scanSubscriber(subRows, nil)
		if err != nil {
			subRows.Close()
			return 0, err
		}
		subs = append(subs, sub)
	}
	subRows.Close()
	if err := subRows.Err(); err != nil {
		return 0, err
	}
	for _, sub := range subs {
		a, err := recount(ctx, tx, sub.AgentID)
		if err != nil {
			return 0, fmt.Errorf("recount: %w", err)
		}
		if err := s.enqueue(ctx, tx, subscriberRemovedEvent(a, sub, at)); err != nil {
			return 0, err
		}
	}

	// Their reviews; each deletion is a review.changed event, on which the
	// ratings consumer recomputes the agent's rating.
	revRows, err := tx.Query(ctx, `DELETE FROM reviews WHERE author_uid = $1 RETURNING agent_id::text, id::text`, uid)
	if err != nil {
		return 0, fmt.Errorf("delete reviews: %w", err)
	}
	var gone [][2]string
	for revRows.Next() {
		var agentID, reviewID string
		if err := revRows.Scan(&agentID, &reviewID); err != nil {
			revRows.Close()
			return 0, err
		}
		gone = append(gone, [2]string{agentID, reviewID})
	}
	revRows.Close()
	if err := revRows.Err(); err != nil {
		return 0, fmt.Errorf("delete reviews: %w", err)
	}
	for _, r := range gone {
		if err := s.enqueue(ctx, tx, ReviewChangedEvent(r[0], r[1], 0, true, at)); err != nil {
			return 0, err
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM agent_users WHERE uid = $1`, uid); err != nil {
		return 0, fmt.Errorf("delete agent users: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM known_users WHERE uid = $1`, uid); err != nil {
		return 0, fmt.Errorf("delete known user: %w", err)
	}
	for _, sub := range subs {
		if sub.UID == "" {
			continue // invited only: no access to take away
		}
		if err := recordAccessChange(ctx, tx, sub.AgentID, sub.UID); err != nil {
			return 0, err
		}
	}
	return len(owned), nil
}

// errNoUID is a user.deleted event without a uid (parked by the consumer).
var errNoUID = errors.New("user.deleted without uid")
