package conversations

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The catalog's and identity's events this service reads (issue 29): a
// deleted agent's conversations, messages and API keys go with it; so do a
// deleted account's own conversations with other people's agents (its own
// agents go by their agent.deleted events).
const CatalogConsumerGroup = "conversations-catalog"

// CatalogEventHandler applies the catalog's agent.deleted and identity's
// user.deleted events in the consumer's transaction (DeleteAgentData,
// DeleteUserData); other types are ignored. A re-delivery finds nothing left
// to delete. An undecodable payload or one without a valid id is an error
// (retried, then parked).
func CatalogEventHandler() events.Handler {
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		if ev.Type == topics.IdentityUserDeleted {
			var m eventsv1.UserDeleted
			if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			if m.GetUid() == "" {
				return fmt.Errorf("%s without a uid", ev.Type)
			}
			return DeleteUserData(ctx, tx, m.GetUid())
		}
		if ev.Type != topics.CatalogAgentDeleted {
			return nil
		}
		var m eventsv1.AgentDeleted
		if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
			return fmt.Errorf("decode %s: %w", ev.Type, err)
		}
		if _, err := uuid.Parse(m.GetAgentId()); err != nil {
			return fmt.Errorf("%s without a valid agent_id %q", ev.Type, m.GetAgentId())
		}
		_, err := DeleteAgentData(ctx, tx, m.GetAgentId())
		return err
	}
}

// DeletedAgentData counts what DeleteAgentData deleted.
type DeletedAgentData struct {
	Conversations, APIKeys int64
}

// DeleteAgentData deletes, within tx, what this service holds for a deleted
// agent: its conversations (every user's, every channel; their messages ON
// DELETE CASCADE), its API keys (with their stored responses, idempotency
// records and monthly spend) — each key's id logged in deleted_api_keys so
// every replica's revocation watcher drops it from its key cache within a
// second; a request with it is refused from the commit on, as the key row
// is gone — the subscribers' monthly spend and cap notices, and the
// agent's document directory. Charges stay: they are the ledger of money
// already held or moved (the reconciler settles open ones). Idempotent.
func DeleteAgentData(ctx context.Context, tx pgx.Tx, agentID string) (DeletedAgentData, error) {
	var out DeletedAgentData
	if _, err := tx.Exec(ctx, `
		WITH purged AS (
			DELETE FROM deleted_api_keys WHERE id IN (
				SELECT id FROM deleted_api_keys WHERE deleted_at < now() - interval '1 day'
				ORDER BY deleted_at LIMIT 100 FOR UPDATE SKIP LOCKED))
		INSERT INTO deleted_api_keys (id, agent_id, deleted_at)
		SELECT id, agent_id, clock_timestamp() FROM api_keys WHERE agent_id = $1
		ON CONFLICT (id) DO NOTHING`, agentID); err != nil {
		return out, fmt.Errorf("log deleted keys: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM api_key_spend WHERE key_id IN (SELECT id FROM api_keys WHERE agent_id = $1)`, agentID); err != nil {
		return out, fmt.Errorf("delete key spend: %w", err)
	}
	// api_responses and api_idempotency go with their keys (ON DELETE CASCADE).
	tag, err := tx.Exec(ctx, `DELETE FROM api_keys WHERE agent_id = $1`, agentID)
	if err != nil {
		return out, fmt.Errorf("delete api keys: %w", err)
	}
	out.APIKeys = tag.RowsAffected()
	if _, err := tx.Exec(ctx, `DELETE FROM api_responses WHERE agent_id = $1`, agentID); err != nil {
		return out, fmt.Errorf("delete api responses: %w", err)
	}
	tag, err = tx.Exec(ctx, `DELETE FROM conversations WHERE agent_id = $1`, agentID)
	if err != nil {
		return out, fmt.Errorf("delete conversations: %w", err)
	}
	out.Conversations = tag.RowsAffected()
	for _, q := range []string{
		`DELETE FROM subscriber_spend WHERE agent_id = $1`,
		`DELETE FROM subscriber_cap_notices WHERE agent_id = $1`,
		`DELETE FROM agent_documents WHERE agent_id = $1`,
	} {
		if _, err := tx.Exec(ctx, q, agentID); err != nil {
			return out, fmt.Errorf("delete agent data: %w", err)
		}
	}
	return out, nil
}

// DeleteUserData deletes, within tx, the conversations a deleted account had
// with any agent (their messages ON DELETE CASCADE) and its subscriber spend.
// Charges stay (the ledger of money already moved). Idempotent.
func DeleteUserData(ctx context.Context, tx pgx.Tx, uid string) error {
	for _, q := range []string{
		`DELETE FROM conversations WHERE user_uid = $1`,
		`DELETE FROM subscriber_spend WHERE user_uid = $1`,
	} {
		if _, err := tx.Exec(ctx, q, uid); err != nil {
			return fmt.Errorf("delete user data: %w", err)
		}
	}
	return nil
}
