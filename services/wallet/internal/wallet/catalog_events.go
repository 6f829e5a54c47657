package wallet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The catalog's agent events the wallet consumes to know each agent's
// owner, name and status (an agent that is not active renews no fee).
const (
	CatalogConsumerGroup = "wallet-catalog"
	// AgentDeleted is the status of a deleted agent (issue 29,
	// agent.deleted): its fee stops at once (never renewed, not in GET
	// /api/user/agent-fees, no fee for an answer still in flight).
	AgentDeleted  = "deleted"
	AgentInactive = "inactive"
)

// CatalogEventHandler applies catalog agent events inside the consumer's
// transaction (the consumer's processed_events makes a re-delivery a no-op;
// events of one agent arrive in order, keyed by agent id). Other types are
// ignored; an undecodable payload or one without agent_id is an error
// (retried, then parked).
func CatalogEventHandler() events.Handler {
	dec := protojson.UnmarshalOptions{DiscardUnknown: true}
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		var agentID, owner, name, status string
		switch ev.Type {
		case topics.CatalogAgentCreated:
			var m eventsv1.AgentCreated
			if err := dec.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			agentID, owner, name, status = m.GetAgentId(), m.GetOwnerUid(), m.GetName(), m.GetStatus()
		case topics.CatalogAgentUpdated:
			var m eventsv1.AgentUpdated
			if err := dec.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			agentID, owner, name = m.GetAgentId(), m.GetOwnerUid(), m.GetName()
		case topics.CatalogAgentStatusChanged:
			var m eventsv1.AgentStatusChanged
			if err := dec.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			agentID, owner, name, status = m.GetAgentId(), m.GetOwnerUid(), m.GetName(), m.GetNewStatus()
		case topics.CatalogAgentDeleted:
			var m struct {
				AgentID  string `json:"agentId"`
				OwnerUID string `json:"ownerUid"`
			}
			if err := json.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			agentID, owner, status = m.AgentID, m.OwnerUID, AgentDeleted
		default:
			return nil
		}
		if agentID == "" {
			return fmt.Errorf("%s without agent_id", ev.Type)
		}
		return SetAgentStatus(ctx, tx, agentID, owner, name, status)
	}
}
