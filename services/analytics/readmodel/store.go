package readmodel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Limits of the activity feed.
const (
	DefaultActivityLimit = 20
	MaxActivityLimit     = 50
)

// ErrInvalidLimit reports a limit outside 1..MaxActivityLimit.
var ErrInvalidLimit = errors.New("limit must be an integer between 1 and 50")

// Service answers the dashboard's questions for one user (the caller).
type Service interface {
	// Activities returns uid's most recent activities, newest first.
	Activities(ctx context.Context, uid string, limit int) ([]Activity, error)
	// Stats returns uid's dashboard statistics as of now.
	Stats(ctx context.Context, uid string) (Stats, error)
	// Usage returns what uid spent (answers they paid and agent fees) in a
	// range of days; a bad range is a *UsageError.
	Usage(ctx context.Context, uid string, req UsageRequest) (Usage, error)
}

// Store reads the read models from PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// NewStore returns the PostgreSQL-backed Service; now is the clock that
// decides which month is "this month" (default time.Now).
func NewStore(pool *pgxpool.Pool, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{pool: pool, now: now}
}

var _ Service = (*Store)(nil)

// Activities implements Service. The agent's name and colour are joined from
// the agents read model at read time (falling back to what the event carried).
func (s *Store) Activities(ctx context.Context, uid string, limit int) ([]Activity, error) {
	if limit < 1 || limit > MaxActivityLimit {
		return nil, ErrInvalidLimit
	}
	rows, err := s.pool.Query(ctx, `
		SELECT a.id, a.activity_type, a.kind, a.subject, a.details, a.document_references, a.file_type, a.created_at,
		       COALESCE(NULLIF(g.name, ''), a.agent_name_hint),
		       COALESCE(NULLIF(g.icon_color, ''), a.icon_color_hint)
		FROM activities a
		LEFT JOIN agents g ON g.agent_id = a.agent_id
		WHERE a.owner_uid = $1
		ORDER BY a.created_at DESC, a.id DESC
		LIMIT $2`, uid, limit)
	if err != nil {
		return nil, fmt.Errorf("query activities: %w", err)
	}
	defer rows.Close()
	out := []Activity{}
	for rows.Next() {
		var (
			a             Activity
			kind, subject string
		)
		if err := rows.Scan(&a.ID, &a.ActivityType, &kind, &subject, &a.Metadata.Details, &a.Metadata.DocumentReferences,
			&a.Metadata.FileType, &a.CreatedAt, &a.Agent.Name, &a.Agent.IconColor); err != nil {
			return nil, fmt.Errorf("scan activity: %w", err)
		}
		if a.Agent.Name == "" {
			a.Agent.Name = UnknownAgentName
		}
		a.Description = Describe(kind, subject, a.Agent.Name)
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}

// Stats implements Service: running totals now and at the end of last month
// (UTC), and the growth between them (Growth).
func (s *Store) Stats(ctx context.Context, uid string) (Stats, error) {
	monthStart := MonthStart(s.now())
	var (
		agentsNow, agentsPrev   int64
		microsNow, microsPrev   int64
		interactNow, interactPr int64
	)
	err := s.pool.QueryRow(ctx, `
		SELECT
		  (SELECT count(*) FROM agents
		    WHERE owner_uid = $1 AND created_at IS NOT NULL AND deleted_at IS NULL),
		  (SELECT count(*) FROM agents
		    WHERE owner_uid = $1 AND created_at < $2 AND (deleted_at IS NULL OR deleted_at >= $2)),
		  (SELECT COALESCE(sum(amount_micros), 0)::bigint FROM revenue_entries WHERE uid = $1),
		  (SELECT COALESCE(sum(amount_micros), 0)::bigint FROM revenue_entries WHERE uid = $1 AND occurred_at < $2),
		  (SELECT count(*) FROM interactions WHERE owner_uid = $1),
		  (SELECT count(*) FROM interactions WHERE owner_uid = $1 AND occurred_at < $2)`,
		uid, monthStart).Scan(&agentsNow, &agentsPrev, &microsNow, &microsPrev, &interactNow, &interactPr)
	if err != nil {
		return Stats{}, fmt.Errorf("query stats: %w", err)
	}
	revNow, revPrev := CentsFromMicros(microsNow), CentsFromMicros(microsPrev)
	return Stats{
		AgentCount:        agentsNow,
		AgentGrowth:       Growth(agentsNow, agentsPrev),
		TotalRevenue:      revNow,
		RevenueGrowth:     Growth(revNow, revPrev),
		TotalInteractions: interactNow,
		InteractionGrowth: Growth(interactNow, interactPr),
		AgentNew:          agentsPrev == 0 && agentsNow > 0,
		RevenueNew:        revPrev == 0 && revNow > 0,
		InteractionNew:    interactPr == 0 && interactNow > 0,
	}, nil
}
