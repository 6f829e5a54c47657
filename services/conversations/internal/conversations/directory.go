package conversations

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// The documents service's events this service reads (its document
// directory: names for @Document references).
const DirectoryConsumerGroup = "conversations-documents"

var lenient = protojson.UnmarshalOptions{DiscardUnknown: true}

// DirectoryHandler keeps agent_documents in step with the documents
// service's events (an events.Handler: it runs in the consumer's
// transaction, after the event id was recorded, so each event applies once).
// Every write carries the event's occurred_at and only replaces an older
// state, so redelivered or reordered events converge on the newest.
func DirectoryHandler() events.Handler {
	return func(ctx context.Context, tx pgx.Tx, ev events.Received) error {
		var (
			docID, agentID, name string
			labels               []string
			removed              bool
			at                   *timestamppb.Timestamp
		)
		switch ev.Type {
		case topics.DocumentsDocumentAdded:
			var m eventsv1.DocumentAdded
			if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			docID, agentID, name, labels, at = m.GetDocumentId(), m.GetAgentId(), m.GetName(), m.GetLabels(), m.GetOccurredAt()
		case topics.DocumentsDocumentUpdated:
			var m eventsv1.DocumentUpdated
			if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			docID, agentID, name, labels, at = m.GetDocumentId(), m.GetAgentId(), m.GetName(), m.GetLabels(), m.GetOccurredAt()
		case topics.DocumentsDocumentSynced:
			var m eventsv1.DocumentSynced
			if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			docID, agentID, name, labels, at = m.GetDocumentId(), m.GetAgentId(), m.GetName(), m.GetLabels(), m.GetOccurredAt()
		case topics.DocumentsDocumentRemoved:
			var m eventsv1.DocumentRemoved
			if err := lenient.Unmarshal(ev.Payload, &m); err != nil {
				return fmt.Errorf("decode %s: %w", ev.Type, err)
			}
			docID, agentID, name, labels, at, removed = m.GetDocumentId(), m.GetAgentId(), m.GetName(), m.GetLabels(), m.GetOccurredAt(), true
		default:
			return nil // other document events say nothing about names
		}
		if !validID(docID) || !validID(agentID) || (name == "" && !removed) {
			return fmt.Errorf("%s without document_id/agent_id/name", ev.Type)
		}
		when := ev.Time
		if at != nil && at.IsValid() {
			when = at.AsTime()
		}
		if when.IsZero() {
			when = time.Now()
		}
		if labels == nil {
			labels = []string{}
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO agent_documents (document_id, agent_id, name, labels, removed, occurred_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (document_id) DO UPDATE SET agent_id = EXCLUDED.agent_id,
				name = CASE WHEN EXCLUDED.name = '' THEN agent_documents.name ELSE EXCLUDED.name END,
				labels = EXCLUDED.labels, removed = EXCLUDED.removed, occurred_at = EXCLUDED.occurred_at
			WHERE agent_documents.occurred_at <= EXCLUDED.occurred_at`,
			strings.ToLower(docID), strings.ToLower(agentID), name, labels, removed, when.UTC())
		return err
	}
}

// AgentDocuments implements Directory.
func (s *PostgresStore) AgentDocuments(ctx context.Context, agentID string) ([]DocumentRef, error) {
	rows, err := s.pool.Query(ctx, `SELECT document_id::text, name, labels FROM agent_documents
		WHERE agent_id = $1 AND NOT removed ORDER BY document_id`, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DocumentRef
	for rows.Next() {
		var d DocumentRef
		if err := rows.Scan(&d.ID, &d.Name, &d.Labels); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
