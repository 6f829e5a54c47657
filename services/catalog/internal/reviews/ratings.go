package reviews

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/events"
)

// RatingsEventHandler keeps the agents' rating_count and rating_sum (the
// read model the marketplace's lists show and sort by; rating_average is a
// generated column) from the catalog's own review.changed events (topic
// agentic.catalog.v1, consumer group agents.RatingsConsumerGroup). It
// recomputes the agent's aggregates from its reviews inside the consumer's
// transaction, so a re-delivered, late or reordered event cannot count twice
// and one event repairs whatever came before it. Reviews are written without
// touching the agent row, so a popular agent's reviews never queue on it.
// Other event types are ignored; an undecodable payload or one without
// agent_id is an error (retried, then parked).
func RatingsEventHandler() events.Handler {
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type != agents.TypeReviewChanged {
			return nil
		}
		var msg eventsv1.ReviewChanged
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &msg); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		if msg.GetAgentId() == "" {
			return fmt.Errorf("%s without agent_id", ev.Type)
		}
		return RecomputeRating(ctx, tx, msg.GetAgentId())
	}
}

// RecomputeRating sets agentID's rating aggregates to what its reviews say
// (no write when they already do; nothing when the agent is gone).
func RecomputeRating(ctx context.Context, tx pgx.Tx, agentID string) error {
	if _, err := tx.Exec(ctx, `
		UPDATE agents a SET rating_count = s.n, rating_sum = s.total
		FROM (SELECT count(*) AS n, COALESCE(sum(rating), 0) AS total FROM reviews WHERE agent_id = $1) s
		WHERE a.id = $1 AND (a.rating_count, a.rating_sum) IS DISTINCT FROM (s.n, s.total)`, agentID); err != nil {
		return fmt.Errorf("recompute rating of %s: %w", agentID, err)
	}
	return nil
}
