package conversations

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The usage topic and event types this service produces (declared in
// topics) under the names the package and its tests use.
const (
	Topic  = topics.Usage
	Source = "/agentic/conversations"

	TypeInteractionRecorded  = topics.UsageInteractionRecorded
	TypeSubscriberCapReached = topics.UsageSubscriberCapReached
)

// interactionEvent builds the outbox event of a paid answer from the
// payload stored with its charge, with the wallet's transfer id filled in.
// Keyed by agent (one agent's interactions stay in order), subject = the
// interaction (the assistant message).
func interactionEvent(payload []byte, transferID string) (events.Event, error) {
	var m eventsv1.InteractionRecorded
	if err := protojson.Unmarshal(payload, &m); err != nil {
		return events.Event{}, fmt.Errorf("interaction payload: %w", err)
	}
	m.TransferId = transferID
	return events.Event{
		Topic: Topic, Key: m.GetAgentId(), Subject: m.GetInteractionId(), Type: TypeInteractionRecorded,
		Payload: &m, Time: m.GetOccurredAt().AsTime(),
	}, nil
}

// subscriberCapEvent is the event of a subscriber's first refusal of a
// month for their cap: keyed by agent, subject = the subscriber.
func subscriberCapEvent(c Charge, spent int64, month, at time.Time) events.Event {
	m := &eventsv1.SubscriberCapReached{
		AgentId: c.AgentID, OwnerUid: c.SubscriberCap.OwnerUID, AgentName: c.SubscriberCap.AgentName,
		SubscriberUid: c.UserUID, CapMicros: c.SubscriberCap.CapMicros, SpentMicros: spent,
		Period: month.Format("2006-01"), OccurredAt: timestamppb.New(at),
	}
	return events.Event{Topic: Topic, Key: c.AgentID, Subject: c.UserUID, Type: TypeSubscriberCapReached, Payload: m, Time: at}
}
