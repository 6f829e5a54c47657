package documents

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Why a sync job was queued.
const (
	ReasonLinked   = "linked"   // the document was just added
	ReasonManual   = "manual"   // Sync now
	ReasonSchedule = "schedule" // the periodic check
	ReasonConfirm  = "confirm"  // re-check a first "not shared" answer
	ReasonRetry    = "retry"    // Drive failed; try again after a back-off
)

// EnqueueSync queues a sync of the document inside tx. There is at most one
// job per document: asking again while one waits makes it due now; asking
// while one runs marks it to run once more afterwards (the document may
// have changed after the running sync read it).
func EnqueueSync(ctx context.Context, tx pgx.Tx, documentID, reason string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO sync_jobs (document_id, reason) VALUES ($1, $2)
		ON CONFLICT (document_id) DO UPDATE SET
			reason   = EXCLUDED.reason,
			rerun    = sync_jobs.rerun OR (sync_jobs.locked_until IS NOT NULL AND sync_jobs.locked_until > now()),
			run_at   = CASE WHEN sync_jobs.locked_until IS NOT NULL AND sync_jobs.locked_until > now()
			                THEN sync_jobs.run_at ELSE now() END,
			attempts = CASE WHEN sync_jobs.locked_until IS NOT NULL AND sync_jobs.locked_until > now()
			                THEN sync_jobs.attempts ELSE 0 END`, documentID, reason)
	if err != nil {
		return fmt.Errorf("enqueue sync: %w", err)
	}
	return nil
}

// RequestSync implements Store: queue a sync of the agent's document now and
// return it (syncState queued unless a sync is running).
func (s *PostgresStore) RequestSync(ctx context.Context, agentID, id string) (Document, error) {
	var out Document
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := getDocument(ctx, tx, agentID, id, true); err != nil {
			return err
		}
		if err := EnqueueSync(ctx, tx, id, ReasonManual); err != nil {
			return err
		}
		var err error
		out, err = scanDocument(tx.QueryRow(ctx, `
			UPDATE documents SET sync_state = CASE WHEN sync_state = 'syncing' THEN sync_state ELSE 'queued' END
			WHERE id = $1 AND agent_id = $2
			RETURNING `+documentColumns, id, agentID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrDocumentNotFound
		}
		return err
	})
	if err != nil {
		return Document{}, err
	}
	return out, nil
}
