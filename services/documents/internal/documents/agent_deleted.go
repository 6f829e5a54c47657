package documents

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The catalog's events the documents service consumes (issue 29): an agent
// deleted (by its owner, or with its owner's account) takes its documents
// with it.
const CatalogConsumerGroup = "documents-catalog"

// CatalogEventHandler applies the catalog's agent.deleted events inside the
// consumer's transaction (DeleteAgentDocuments); other types are ignored. A
// re-delivery finds nothing left to delete. An undecodable payload or one
// without a valid agent_id is an error (retried, then parked).
func CatalogEventHandler() events.Handler {
	dec := protojson.UnmarshalOptions{DiscardUnknown: true}
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type != topics.CatalogAgentDeleted {
			return nil
		}
		var m eventsv1.AgentDeleted
		if err := dec.Unmarshal(ev.Payload, &m); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		if _, err := uuid.Parse(m.GetAgentId()); err != nil {
			return fmt.Errorf("%s without a valid agent_id %q", ev.Type, m.GetAgentId())
		}
		_, err := DeleteAgentDocuments(ctx, tx, m.GetAgentId())
		return err
	}
}

// DeleteAgentDocuments deletes, within tx, everything the service holds for
// agentID: its documents (with their sync jobs and comment watches, ON
// DELETE CASCADE, so neither the syncer nor the comment poller picks them
// up again), their chunks and the agent's lexeme counts (it leaves
// retrieval), and its comment mentions. No DocumentRemoved events: the
// agent is gone, and analytics keeps the history. It returns how many
// documents it deleted (0 on a second run).
func DeleteAgentDocuments(ctx context.Context, tx pgx.Tx, agentID string) (int64, error) {
	// Lock the documents first, in id order, as a sync does (it locks its
	// document before touching chunks and counts): a sync running now waits
	// or finds its document gone.
	if _, err := tx.Exec(ctx, `SELECT id FROM documents WHERE agent_id = $1 ORDER BY id FOR UPDATE`, agentID); err != nil {
		return 0, fmt.Errorf("lock documents: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM document_chunks WHERE agent_id = $1`, agentID); err != nil {
		return 0, fmt.Errorf("delete chunks: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM agent_lexemes WHERE agent_id = $1`, agentID); err != nil {
		return 0, fmt.Errorf("delete lexeme counts: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM comment_mentions WHERE agent_id = $1`, agentID); err != nil {
		return 0, fmt.Errorf("delete comment mentions: %w", err)
	}
	tag, err := tx.Exec(ctx, `DELETE FROM documents WHERE agent_id = $1`, agentID)
	if err != nil {
		return 0, fmt.Errorf("delete documents: %w", err)
	}
	return tag.RowsAffected(), nil
}
