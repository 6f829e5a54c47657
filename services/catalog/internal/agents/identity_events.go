package agents

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// IdentityEventHandler applies identity's events (topic agentic.identity.v1,
// consumer group "catalog") inside the consumer's transaction: a
// user.onboarded event records the user (uid, address, name) so the catalog
// can show names and refuse an owner's own address. It activates no
// invitation: the event does not say whether the address was verified, and
// only a verified ID token does that (Service.ClaimInvitations). A
// user.deleted event deletes the user's agents (each with AgentDeleted),
// subscriptions and reviews (PostgresStore.DeleteUser; a re-delivery finds
// nothing left to delete). Other event
// types are ignored (and recorded as processed).
// An undecodable payload is an error: the consumer retries and then parks it.
func IdentityEventHandler(store *PostgresStore, now func() time.Time) events.Handler {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type == topics.IdentityUserDeleted {
			var msg eventsv1.UserDeleted
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &msg); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			if msg.GetUid() == "" {
				return errNoUID
			}
			at := now().UTC()
			if msg.GetOccurredAt() != nil {
				at = msg.GetOccurredAt().AsTime().UTC()
			}
			_, err := store.DeleteUser(ctx, tx, msg.GetUid(), msg.GetEmail(), at)
			return err
		}
		if ev.Type != topics.IdentityUserOnboarded {
			return nil
		}
		var msg eventsv1.UserOnboarded
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &msg); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		return store.RecordUser(ctx, tx, UserFromProfile(msg.GetUid(), msg.GetEmail(), msg.GetDisplayName(), msg.GetUsername()), now().UTC())
	}
}

// UserFromProfile builds a User: name = displayName, else username, else "".
func UserFromProfile(uid, email, displayName, username string) User {
	name := strings.TrimSpace(displayName)
	if name == "" {
		name = strings.TrimSpace(username)
	}
	return User{UID: uid, Email: strings.ToLower(strings.TrimSpace(email)), Name: name}
}
