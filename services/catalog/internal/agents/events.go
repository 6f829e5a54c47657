package agents

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The catalog's topic and event types (declared in topics) under the names
// the package and its tests use.
const (
	Topic  = topics.Catalog
	Source = "/agentic/catalog"

	TypeAgentCreated        = topics.CatalogAgentCreated
	TypeAgentUpdated        = topics.CatalogAgentUpdated
	TypeAgentStatusChanged  = topics.CatalogAgentStatusChanged
	TypeSubscriberAdded     = topics.CatalogSubscriberAdded
	TypeSubscriberActivated = topics.CatalogSubscriberActivated
	TypeSubscriberRemoved   = topics.CatalogSubscriberRemoved
	TypeAgentPublished      = topics.CatalogAgentPublished
	TypeAgentUnpublished    = topics.CatalogAgentUnpublished
	// TypeAgentDeleted: the owner deleted the agent (DELETE /api/agents/{id})
	// or their account (identity's user.deleted); the services holding the
	// agent's data delete it on this event.
	TypeAgentDeleted = topics.CatalogAgentDeleted
	// TypeReviewChanged: a marketplace review was created, replaced or
	// deleted. The catalog's ratings consumer (RatingsConsumerGroup)
	// recomputes the agent's rating aggregates on it.
	TypeReviewChanged    = topics.CatalogReviewChanged
	RatingsConsumerGroup = "catalog-ratings"

	// ConsumerGroup is the catalog's group on identity's topic
	// (IdentityEventHandler).
	ConsumerGroup = "catalog"
)

func agentEvent(a Agent, typ string, payload proto.Message) events.Event {
	return events.Event{Topic: Topic, Key: a.ID, Subject: a.ID, Type: typ, Payload: payload}
}

// ReviewChangedEvent is the outbox event of a review's creation, change or
// deletion (rating 0 when deleted), keyed by the agent like its other events.
func ReviewChangedEvent(agentID, reviewID string, rating int, deleted bool, at time.Time) events.Event {
	return events.Event{Topic: Topic, Key: agentID, Subject: agentID, Type: TypeReviewChanged,
		Payload: &eventsv1.ReviewChanged{AgentId: agentID, ReviewId: reviewID, Rating: int32(rating), Deleted: deleted,
			OccurredAt: ts(at)}}
}

func ts(t time.Time) *timestamppb.Timestamp { return timestamppb.New(t) }

func createdEvent(a Agent) events.Event {
	return agentEvent(a, TypeAgentCreated, &eventsv1.AgentCreated{
		AgentId: a.ID, OwnerUid: a.OwnerUID, Name: a.Name, Description: a.Description, Category: a.Category,
		Status: a.Status, IsPublic: a.IsPublic, IconName: a.IconName, IconColor: a.IconColor,
		Tags: a.Tags, Email: a.Email, OccurredAt: ts(a.CreatedAt),
	})
}

// updateEvents returns AgentUpdated for the changed fields other than
// status, isPublic and the default subscriber cap (the event has no field for
// it, and the activity feed need not show it; the listing fields are named in
// changed_fields only), AgentStatusChanged when status changed, and
// AgentPublished / AgentUnpublished when isPublic did.
func updateEvents(prev, next Agent, changed []string) []events.Event {
	var out []events.Event
	var others []string
	for _, f := range changed {
		if f != "status" && f != FieldSubscriberCap && f != FieldIsPublic {
			others = append(others, f)
		}
	}
	if len(others) > 0 {
		ev := &eventsv1.AgentUpdated{
			AgentId: next.ID, OwnerUid: next.OwnerUID, Name: next.Name, IconName: next.IconName,
			IconColor: next.IconColor, ChangedFields: others, OccurredAt: ts(next.UpdatedAt),
		}
		for _, f := range others {
			switch f {
			case "description":
				ev.Description = next.Description
			case "instructions":
				ev.Instructions = next.Instructions
			case "tags":
				ev.Tags = next.Tags
			case "isPublic":
				ev.IsPublic = next.IsPublic
			}
		}
		out = append(out, agentEvent(next, TypeAgentUpdated, ev))
	}
	if prev.Status != next.Status {
		out = append(out, agentEvent(next, TypeAgentStatusChanged, &eventsv1.AgentStatusChanged{
			AgentId: next.ID, OwnerUid: next.OwnerUID, Name: next.Name, IconName: next.IconName,
			IconColor: next.IconColor, OldStatus: prev.Status, NewStatus: next.Status, OccurredAt: ts(next.UpdatedAt),
		}))
	}
	switch {
	case next.IsPublic && !prev.IsPublic:
		out = append(out, agentEvent(next, TypeAgentPublished, &eventsv1.AgentPublished{
			AgentId: next.ID, OwnerUid: next.OwnerUID, Name: next.Name, IconName: next.IconName, IconColor: next.IconColor,
			Slug: next.Slug, MarkupPercent: int32(next.MarkupPercent), GreetingCostCents: int32(next.GreetingCostCents),
			OccurredAt: ts(next.UpdatedAt),
		}))
	case prev.IsPublic && !next.IsPublic:
		out = append(out, agentEvent(next, TypeAgentUnpublished, &eventsv1.AgentUnpublished{
			AgentId: next.ID, OwnerUid: next.OwnerUID, Name: next.Name, IconName: next.IconName, IconColor: next.IconColor,
			Slug: next.Slug, OccurredAt: ts(next.UpdatedAt),
		}))
	}
	return out
}

func subscriberAddedEvent(a Agent, s Subscriber, at time.Time) events.Event {
	return agentEvent(a, TypeSubscriberAdded, &eventsv1.SubscriberAdded{
		AgentId: a.ID, OwnerUid: a.OwnerUID, AgentName: a.Name, IconName: a.IconName, IconColor: a.IconColor,
		SubscriberId: s.ID, Email: s.Email, Status: s.Status, Uid: s.UID, Name: s.DisplayName(),
		SubscriberCount: a.Subscribers, OccurredAt: ts(at),
	})
}

func subscriberActivatedEvent(a Agent, s Subscriber) events.Event {
	return agentEvent(a, TypeSubscriberActivated, &eventsv1.SubscriberActivated{
		AgentId: a.ID, OwnerUid: a.OwnerUID, AgentName: a.Name, IconName: a.IconName, IconColor: a.IconColor,
		SubscriberId: s.ID, Email: s.Email, Uid: s.UID, Name: s.DisplayName(),
		SubscriberCount: a.Subscribers, OccurredAt: ts(s.ActivatedAt),
	})
}

func subscriberRemovedEvent(a Agent, s Subscriber, at time.Time) events.Event {
	return agentEvent(a, TypeSubscriberRemoved, &eventsv1.SubscriberRemoved{
		AgentId: a.ID, OwnerUid: a.OwnerUID, AgentName: a.Name, IconName: a.IconName, IconColor: a.IconColor,
		SubscriberId: s.ID, Email: s.Email, Status: s.Status, Uid: s.UID,
		SubscriberCount: a.Subscribers, OccurredAt: ts(at),
	})
}

func deletedEvent(a Agent, at time.Time) events.Event {
	return agentEvent(a, TypeAgentDeleted, &eventsv1.AgentDeleted{
		AgentId: a.ID, OwnerUid: a.OwnerUID, Name: a.Name, IconName: a.IconName, IconColor: a.IconColor,
		Email: a.Email, WasPublic: a.IsPublic, Slug: a.Slug, OccurredAt: ts(at),
	})
}
