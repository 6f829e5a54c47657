package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Invitation e-mails (issue 29 item 7): inviting an address, and resending
// the invitation from the Users tab, enqueue InvitationEmailRequested in the
// same transaction; the mail service e-mails the invitee through the relay.
// An invitee who has not verified their address can count their pending
// invitations (Shared with me tells them to verify it).

// TypeInvitationEmailRequested is the event asking the mail service to
// e-mail an invitee.
const TypeInvitationEmailRequested = topics.CatalogSubscriberInvitationEmailRequested

// DefaultInviterName names an owner the catalog knows no name of.
const DefaultInviterName = "An Agentic user"

// MsgNotInvited refuses a resend to a subscriber who already accepted.
const MsgNotInvited = "This person has already accepted the invitation."

// ErrNotInvited: the subscriber is not (or no longer) invited; only a
// pending invitation can be resent (HTTP 400 invalid_request).
var ErrNotInvited = errors.New("subscriber is not invited")

// InvitationService is the part of Service about invitation e-mails.
type InvitationService interface {
	// ResendInvitation e-mails the invitation again (InvitationEmailRequested
	// with resend set): the owner's agent only (ErrNotFound otherwise), an
	// existing subscriber (ErrSubscriberNotFound) that is still invited
	// (ErrNotInvited).
	ResendInvitation(ctx context.Context, owner, agentID, subscriberID string) (Subscriber, error)
	// PendingInvitations counts the invitations of the caller's address (as
	// their ID token gives it) that wait for it to be verified, on other
	// owners' agents. A verified caller's invitations are claimed first, so
	// they count 0 once activated.
	PendingInvitations(ctx context.Context, c Claimant) (int, error)
}

// InvitationStore is the part of Store about invitation e-mails.
type InvitationStore interface {
	// ResendInvitation enqueues InvitationEmailRequested (resend) for the
	// owner's invited subscriber; ErrNotFound, ErrSubscriberNotFound or
	// ErrNotInvited otherwise.
	ResendInvitation(ctx context.Context, owner, agentID, subscriberID string, at time.Time) (Subscriber, error)
	// CountInvitations counts the invited subscriptions of email on agents
	// uid does not own.
	CountInvitations(ctx context.Context, uid, email string) (int, error)
}

func (s *service) ResendInvitation(ctx context.Context, owner, agentID, subscriberID string) (Subscriber, error) {
	if !validID(agentID) || owner == "" {
		return Subscriber{}, ErrNotFound
	}
	if !validID(subscriberID) {
		if _, err := s.store.Get(ctx, owner, agentID); err != nil {
			return Subscriber{}, err
		}
		return Subscriber{}, ErrSubscriberNotFound
	}
	return s.store.ResendInvitation(ctx, owner, agentID, subscriberID, s.now().UTC())
}

func (s *service) PendingInvitations(ctx context.Context, c Claimant) (int, error) {
	if c.UID == "" {
		return 0, nil
	}
	email, err := NormalizeEmail(c.Email)
	if err != nil {
		return 0, nil // no usable address in the token: nothing can wait for it
	}
	if c.EmailVerified {
		if _, err := s.ClaimInvitations(ctx, c); err != nil {
			return 0, err
		}
	}
	return s.store.CountInvitations(ctx, c.UID, email)
}

// invitationEmailEvent is InvitationEmailRequested for subscriber s of
// agent a; inviter is the owner's name ("" → DefaultInviterName).
func invitationEmailEvent(a Agent, s Subscriber, inviter string, resend bool, at time.Time) events.Event {
	if strings.TrimSpace(inviter) == "" {
		inviter = DefaultInviterName
	}
	return agentEvent(a, TypeInvitationEmailRequested, &eventsv1.InvitationEmailRequested{
		AgentId: a.ID, OwnerUid: a.OwnerUID, AgentName: a.Name, IconName: a.IconName, IconColor: a.IconColor,
		SubscriberId: s.ID, Email: s.Email, InviterName: strings.TrimSpace(inviter), AgentDescription: a.Description,
		Resend: resend, OccurredAt: ts(at),
	})
}

// inviterName is the owner's name as learned from identity's events
// (known_users: displayName, else username), "" when unknown.
func inviterName(ctx context.Context, q querier, owner string) (string, error) {
	var name string
	err := q.QueryRow(ctx, `SELECT name FROM known_users WHERE uid = $1`, owner).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("inviter name: %w", err)
	}
	return name, nil
}

// enqueueInvitationEmail enqueues, within tx, the invitation e-mail of the
// invited subscriber sub of agent a.
func (s *PostgresStore) enqueueInvitationEmail(ctx context.Context, tx pgx.Tx, a Agent, sub Subscriber, resend bool, at time.Time) error {
	name, err := inviterName(ctx, tx, a.OwnerUID)
	if err != nil {
		return err
	}
	return s.enqueue(ctx, tx, invitationEmailEvent(a, sub, name, resend, at))
}

// ResendInvitation implements Store. Nothing changes but the outbox: the
// read needs no lock (an activation racing it at worst sends one e-mail
// more to a person who just accepted).
func (s *PostgresStore) ResendInvitation(ctx context.Context, owner, agentID, subscriberID string, at time.Time) (Subscriber, error) {
	var out Subscriber
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		agent, err := getAgent(ctx, tx, owner, agentID, false)
		if err != nil {
			return err
		}
		out, err = scanSubscriber(tx.QueryRow(ctx, `SELECT `+subscriberColumns+` FROM subscribers WHERE id = $1 AND agent_id = $2`,
			subscriberID, agentID), agent.SubscriberMonthlyCapCents)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSubscriberNotFound
		}
		if err != nil {
			return fmt.Errorf("subscriber: %w", err)
		}
		if out.Status != SubscriberInvited {
			return ErrNotInvited
		}
		return s.enqueueInvitationEmail(ctx, tx, agent, out, true, at)
	})
	if err != nil {
		return Subscriber{}, err
	}
	return out, nil
}

// CountInvitations implements Store (subscribers_invited_email_idx).
func (s *PostgresStore) CountInvitations(ctx context.Context, uid, email string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FROM subscribers s JOIN agents a ON a.id = s.agent_id
		WHERE s.email = $1 AND s.status = 'invited' AND a.owner_uid <> $2`,
		strings.ToLower(strings.TrimSpace(email)), uid).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count invitations: %w", err)
	}
	return n, nil
}
