package documents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/events"
)

// PostgresStore is the Store backed by PostgreSQL and the platform outbox.
type PostgresStore struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
}

// NewPostgresStore returns a Store using pool; events go to the outbox table
// of the same database.
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore {
	return &PostgresStore{pool: pool, outbox: events.NewOutbox(Source)}
}

const nameConstraint = "documents_agent_name_key"

const documentColumns = `id::text, agent_id::text, owner_uid, name, url, drive_file_id, labels, sharing_status,
	created_at, updated_at, sync_state, sync_error, drive_title, synced_at, modified_time, token_count`

func scanDocument(row pgx.Row) (Document, error) {
	var d Document
	err := row.Scan(&d.ID, &d.AgentID, &d.OwnerUID, &d.Name, &d.URL, &d.DriveFileID, &d.Labels, &d.SharingStatus,
		&d.CreatedAt, &d.UpdatedAt, &d.SyncState, &d.SyncError, &d.DriveTitle, &d.SyncedAt, &d.ModifiedTime, &d.TokenCount)
	if d.Labels == nil {
		d.Labels = []string{}
	}
	return d, err
}

// nameTaken maps the unique-name violation to ErrNameTaken.
func nameTaken(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == nameConstraint {
		return ErrNameTaken
	}
	return err
}

// Count implements Store: one pass over the agent's documents
// (documents_agent_created_idx). Ready = shared at the last sync and text
// indexed (token_count is set while text is in retrieval).
func (s *PostgresStore) Count(ctx context.Context, agentID string) (Counts, error) {
	var c Counts
	err := s.pool.QueryRow(ctx, `SELECT count(*),
			count(*) FILTER (WHERE sharing_status = 'shared' AND token_count IS NOT NULL)
		FROM documents WHERE agent_id = $1`, agentID).Scan(&c.Total, &c.Ready)
	return c, err
}

// List implements Store: oldest first.
func (s *PostgresStore) List(ctx context.Context, agentID string) ([]Document, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+documentColumns+` FROM documents WHERE agent_id = $1
		ORDER BY created_at, id`, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Add implements Store. The agent's documents are counted under a
// transaction-scoped advisory lock on the agent, so concurrent adds cannot
// pass maxPerAgent together.
func (s *PostgresStore) Add(ctx context.Context, d Document, maxPerAgent int) (Document, error) {
	var out Document
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if maxPerAgent > 0 {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('documents:' || $1, 0))`, d.AgentID); err != nil {
				return fmt.Errorf("lock agent documents: %w", err)
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM documents WHERE agent_id = $1`, d.AgentID).Scan(&n); err != nil {
				return fmt.Errorf("count agent documents: %w", err)
			}
			if n >= maxPerAgent {
				return &LimitError{Max: maxPerAgent}
			}
		}
		var err error
		out, err = scanDocument(tx.QueryRow(ctx, `
			INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id, labels, sharing_status, created_at, updated_at,
				sync_state)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 'queued')
			RETURNING `+documentColumns,
			d.ID, d.AgentID, d.OwnerUID, d.Name, d.URL, d.DriveFileID, d.Labels, d.SharingStatus, d.CreatedAt))
		if err != nil {
			if err := nameTaken(err); errors.Is(err, ErrNameTaken) {
				return err
			}
			return fmt.Errorf("insert document: %w", err)
		}
		// The first sync is queued with the document: committed together, so
		// a linked document is never without a job.
		if err := EnqueueSync(ctx, tx, out.ID, ReasonLinked); err != nil {
			return err
		}
		_, err = s.outbox.Enqueue(ctx, tx, addedEvent(out))
		return err
	})
	if err != nil {
		return Document{}, err
	}
	return out, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func getDocument(ctx context.Context, q querier, agentID, id string, lock bool) (Document, error) {
	sql := `SELECT ` + documentColumns + ` FROM documents WHERE id = $1 AND agent_id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	d, err := scanDocument(q.QueryRow(ctx, sql, id, agentID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Document{}, ErrDocumentNotFound
	}
	return d, err
}

// Get implements Store.
func (s *PostgresStore) Get(ctx context.Context, agentID, id string) (Document, error) {
	return getDocument(ctx, s.pool, agentID, id, false)
}

// Update implements Store.
func (s *PostgresStore) Update(ctx context.Context, agentID, id string, fn func(Document) (Document, []string, error)) (Document, error) {
	var out Document
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cur, err := getDocument(ctx, tx, agentID, id, true)
		if err != nil {
			return err
		}
		next, changed, err := fn(cur)
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			out = cur
			return nil
		}
		out, err = scanDocument(tx.QueryRow(ctx, `
			UPDATE documents SET name = $3, labels = $4, updated_at = $5
			WHERE id = $1 AND agent_id = $2
			RETURNING `+documentColumns,
			id, agentID, next.Name, next.Labels, next.UpdatedAt))
		if err != nil {
			if err := nameTaken(err); errors.Is(err, ErrNameTaken) {
				return err
			}
			return fmt.Errorf("update document: %w", err)
		}
		_, err = s.outbox.Enqueue(ctx, tx, updatedEvent(cur, out, changed))
		return err
	})
	if err != nil {
		return Document{}, err
	}
	return out, nil
}

// Remove implements Store.
func (s *PostgresStore) Remove(ctx context.Context, agentID, id string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Lock the document first (as every sync does), then take its chunks
		// out of the index and its counts, then delete it.
		if _, err := getDocument(ctx, tx, agentID, id, true); err != nil {
			return err
		}
		if err := knowledge.RemoveChunks(ctx, tx, agentID, id); err != nil {
			return err
		}
		d, err := scanDocument(tx.QueryRow(ctx, `DELETE FROM documents WHERE id = $1 AND agent_id = $2 RETURNING `+documentColumns,
			id, agentID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrDocumentNotFound
		}
		if err != nil {
			return fmt.Errorf("delete document: %w", err)
		}
		_, err = s.outbox.Enqueue(ctx, tx, removedEvent(d, at))
		return err
	})
}
