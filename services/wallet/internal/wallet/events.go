package wallet

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
)

// userEvent is an event about uid's wallet (key and subject uid, like every
// wallet event).
func userEvent(uid, typ string, payload proto.Message) events.Event {
	return events.Event{Topic: Topic, Key: uid, Subject: uid, Type: typ, Payload: payload}
}

// chargedEvent is what every expense emits (Charge, Capture, agent fees).
func chargedEvent(t Transfer, balanceMicros int64) events.Event {
	return userEvent(t.UID, TypeChargeDebited, &eventsv1.WalletCharged{Uid: t.UID, AmountMicros: t.AmountMicros,
		TransferId: t.ID, IdempotencyKey: t.IdempotencyKey, Description: t.Description, Metadata: t.Metadata,
		BalanceMicros: balanceMicros, OccurredAt: timestamppb.New(t.CreatedAt)})
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }
