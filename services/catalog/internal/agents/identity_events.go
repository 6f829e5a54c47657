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
)

// IdentityEventHandler applies identity's events (topic agentic.identity.v1,
// consumer group "catalog") inside the consumer's transaction: a
// user.onboarded event activates every invited subscription of the user's
// e-mail address. Other event types are ignored (and recorded as processed).
// An undecodable payload is an error: the consumer retries and then parks it.
func IdentityEventHandler(store *PostgresStore, now func() time.Time) events.Handler {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type != TypeUserOnboarded {
			return nil
		}
		var msg eventsv1.UserOnboarded
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &msg); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		_, err := store.ActivateUser(ctx, tx, UserFromProfile(msg.GetUid(), msg.GetEmail(), msg.GetDisplayName(), msg.GetUsername()), now().UTC())
		return err
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
