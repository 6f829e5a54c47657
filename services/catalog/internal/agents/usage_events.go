package agents

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The conversations service's usage events the catalog consumes. They have a
// consumer group of their own so a burst of chat traffic never delays the
// activation of invites (identity events), and each stream's lag is visible
// on its own.
const UsageConsumerGroup = "catalog-usage"

// UsageEventHandler applies usage events (topic agentic.usage.v1, consumer
// group "catalog-usage") inside the consumer's transaction: every
// interaction.recorded adds one to the agent's totalInteractions and, when the
// asking user is an active subscriber (not the owner), one to that
// subscriber's interactions (the Users tab's Usage column), and keeps the
// answer's cost among the agent's last ones (the marketplace's typical
// answer, RecordAnswerCost). The consumer's
// processed_events makes a re-delivered event a no-op; RecordInteraction also
// ignores an interaction id it has counted before. Other types are ignored.
// An undecodable payload or one without agent_id is an error (retried, then
// parked).
func UsageEventHandler(store *PostgresStore, now func() time.Time) events.Handler {
	if now == nil {
		now = time.Now
	}
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type != topics.UsageInteractionRecorded {
			return nil
		}
		var msg eventsv1.InteractionRecorded
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &msg); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		if msg.GetAgentId() == "" {
			return fmt.Errorf("%s without agent_id", ev.Type)
		}
		at := now().UTC()
		counted, err := store.RecordInteraction(ctx, tx, msg.GetInteractionId(), msg.GetAgentId(), msg.GetUserUid(), at)
		if err != nil || !counted {
			return err
		}
		// The marketplace's typical answer (marketplace_postgres.go): cost +
		// fee, without a consumer's markup and greeting (issue 28), which
		// the typical answer adds at the agent's current markup itself.
		total := msg.GetTotalMicros() - max(msg.GetMarkupMicros(), 0) - max(msg.GetGreetingMicros(), 0)
		return store.RecordAnswerCost(ctx, tx, msg.GetAgentId(), msg.GetCostMicros(), max(total, msg.GetCostMicros()), at)
	}
}
