package events

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Parked is one row of parked_events.
type Parked struct {
	Group, EventID, Topic, Key, Type string
	Partition                        int
	Offset                           int64
	Error, Reason                    string
	Attempts                         int
	ParkedAt                         time.Time
	ReplayRequestedAt                *time.Time
}

// ParkedFilter selects parked events: by group and/or event id (empty: any).
type ParkedFilter struct {
	Group, EventID string
	Limit          int // default 100
}

// ListParked returns parked events, oldest first.
func ListParked(ctx context.Context, pool *pgxpool.Pool, f ParkedFilter) ([]Parked, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	rows, err := pool.Query(ctx, `
		SELECT consumer_group, event_id, topic, key, type, partition, "offset", error, reason, attempts, parked_at, replay_requested_at
		FROM parked_events
		WHERE ($1 = '' OR consumer_group = $1) AND ($2 = '' OR event_id = $2)
		ORDER BY parked_at, consumer_group, event_id
		LIMIT $3`, f.Group, f.EventID, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("list parked events: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Parked, error) {
		var p Parked
		err := r.Scan(&p.Group, &p.EventID, &p.Topic, &p.Key, &p.Type, &p.Partition, &p.Offset, &p.Error, &p.Reason,
			&p.Attempts, &p.ParkedAt, &p.ReplayRequestedAt)
		return p, err
	})
}

// RequestReplay marks the selected parked events for replay and returns how
// many it marked. The running consumer of each event's group applies them
// (Consumer.ReplayOne) within ReplayInterval: once, since processed_events
// still deduplicates. An empty filter selects every parked event.
func RequestReplay(ctx context.Context, pool *pgxpool.Pool, f ParkedFilter) (int64, error) {
	tag, err := pool.Exec(ctx, `
		UPDATE parked_events SET replay_requested_at = now()
		WHERE ($1 = '' OR consumer_group = $1) AND ($2 = '' OR event_id = $2)`, f.Group, f.EventID)
	if err != nil {
		return 0, fmt.Errorf("request replay: %w", err)
	}
	return tag.RowsAffected(), nil
}

// DropParked deletes the selected parked events (handled by hand, or not
// worth applying) and returns how many it deleted. Group and EventID are
// both required.
func DropParked(ctx context.Context, pool *pgxpool.Pool, group, eventID string) (int64, error) {
	if group == "" || eventID == "" {
		return 0, fmt.Errorf("drop parked event: group and event id are required")
	}
	tag, err := pool.Exec(ctx, `DELETE FROM parked_events WHERE consumer_group = $1 AND event_id = $2`, group, eventID)
	if err != nil {
		return 0, fmt.Errorf("drop parked event: %w", err)
	}
	return tag.RowsAffected(), nil
}

// FailedOutbox is an outbox row the relay gave up on.
type FailedOutbox struct {
	ID                  int64
	EventID, Topic, Key string
	Type, LastError     string
	Attempts            int
	CreatedAt, FailedAt time.Time
}

// ListFailedOutbox returns the outbox rows the relay gave up on, oldest first.
func ListFailedOutbox(ctx context.Context, pool *pgxpool.Pool, limit int) ([]FailedOutbox, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := pool.Query(ctx, `
		SELECT id, event_id::text, topic, key, type, COALESCE(last_error, ''), attempts, created_at, failed_at
		FROM outbox WHERE failed_at IS NOT NULL AND published_at IS NULL
		ORDER BY id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("list failed outbox rows: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (FailedOutbox, error) {
		var f FailedOutbox
		err := r.Scan(&f.ID, &f.EventID, &f.Topic, &f.Key, &f.Type, &f.LastError, &f.Attempts, &f.CreatedAt, &f.FailedAt)
		return f, err
	})
}

// RetryFailedOutbox re-queues a failed outbox row (id > 0) or every failed
// row (id 0): attempts reset, failed_at cleared; the relay sends it on its
// next round. It returns how many rows it re-queued.
func RetryFailedOutbox(ctx context.Context, pool *pgxpool.Pool, id int64) (int64, error) {
	tag, err := pool.Exec(ctx, `
		UPDATE outbox SET failed_at = NULL, attempts = 0, next_attempt_at = NULL
		WHERE failed_at IS NOT NULL AND published_at IS NULL AND ($1 = 0 OR id = $1)`, id)
	if err != nil {
		return 0, fmt.Errorf("retry failed outbox rows: %w", err)
	}
	return tag.RowsAffected(), nil
}
