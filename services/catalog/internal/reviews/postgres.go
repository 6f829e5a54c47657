package reviews

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/events"
)

// PostgresStore is the Store on the catalog's database (tables reviews,
// reports, agent_users and the agents' report columns, migration 00004).
// The agents' rating columns are a read model kept by RatingsEventHandler
// from the ReviewChanged events this store enqueues in the platform outbox.
type PostgresStore struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
}

// NewPostgresStore returns a Store using pool.
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore {
	return &PostgresStore{pool: pool, outbox: events.NewOutbox(agents.Source)}
}

func (s *PostgresStore) reviewChanged(ctx context.Context, tx pgx.Tx, agentID, reviewID string, rating int, deleted bool, at time.Time) error {
	_, err := s.outbox.Enqueue(ctx, tx, agents.ReviewChangedEvent(agentID, reviewID, rating, deleted, at))
	return err
}

// listedWhere is the condition of a listed agent (alias a): published and
// not unpublished since (Unpublish clears is_public; the slug stays).
const listedWhere = `a.is_public AND a.slug IS NOT NULL`

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// listed returns the listed agent slug; lock takes a share lock on its row,
// so that an unpublish (an UPDATE) waits for the review being written while
// reviews of one agent never queue behind each other (the aggregates are
// recomputed by the ratings consumer, not updated here).
func listed(ctx context.Context, q querier, slug, uid string, lock bool) (Target, error) {
	sql := `SELECT a.id::text, a.owner_uid,
			EXISTS (SELECT 1 FROM agent_users u WHERE u.agent_id = a.id AND u.uid = $2 AND u.answers > 0)
		FROM agents a WHERE a.slug = $1 AND ` + listedWhere
	if lock {
		sql += ` FOR SHARE OF a`
	}
	var t Target
	err := q.QueryRow(ctx, sql, slug, uid).Scan(&t.AgentID, &t.OwnerUID, &t.Answered)
	if errors.Is(err, pgx.ErrNoRows) {
		return Target{}, agents.ErrNotFound
	}
	if err != nil {
		return Target{}, fmt.Errorf("listed agent: %w", err)
	}
	return t, nil
}

// Listed implements Store.
func (s *PostgresStore) Listed(ctx context.Context, slug, uid string) (Target, error) {
	return listed(ctx, s.pool, slug, uid, false)
}

// reviewColumns are a review (alias r) with its author's known name and
// e-mail (alias k, LEFT JOIN known_users), for scanReview.
const reviewColumns = `r.id::text, r.agent_id::text, r.author_uid, COALESCE(k.name, ''), COALESCE(k.email, ''), r.rating, r.text,
	r.reply, r.reply_at, r.reply_updated_at, r.created_at, r.updated_at`

const reviewFrom = ` FROM reviews r LEFT JOIN known_users k ON k.uid = r.author_uid`

func scanReview(row pgx.Row) (Review, error) {
	var (
		rv                 Review
		name, email        string
		rating             int16
		reply              *string
		replyAt, replyUpAt *time.Time
	)
	if err := row.Scan(&rv.ID, &rv.AgentID, &rv.AuthorUID, &name, &email, &rating, &rv.Text, &reply, &replyAt, &replyUpAt,
		&rv.CreatedAt, &rv.UpdatedAt); err != nil {
		return Review{}, err
	}
	rv.Rating = int(rating)
	rv.AuthorName = authorName(name, rv.AuthorUID, email)
	if reply != nil {
		rv.Reply = &Reply{Text: *reply}
		if replyAt != nil {
			rv.Reply.CreatedAt = *replyAt
		}
		rv.Reply.UpdatedAt = rv.Reply.CreatedAt
		if replyUpAt != nil {
			rv.Reply.UpdatedAt = *replyUpAt
		}
	}
	return rv, nil
}

func getReview(ctx context.Context, q querier, id string) (Review, error) {
	rv, err := scanReview(q.QueryRow(ctx, `SELECT `+reviewColumns+reviewFrom+` WHERE r.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Review{}, ErrReviewNotFound
	}
	return rv, err
}

// PutReview implements Store: one upsert on (agent_id, author_uid), so two
// concurrent first reviews by one user make one create and one replace.
func (s *PostgresStore) PutReview(ctx context.Context, uid, slug string, rating int, text string, at time.Time) (Review, bool, error) {
	var (
		out     Review
		created bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t, err := listed(ctx, tx, slug, uid, true)
		if err != nil {
			return err
		}
		if err := checkReviewer(t, uid); err != nil {
			return err
		}
		nid, err := uuid.NewV7()
		if err != nil {
			return err
		}
		var id string
		// xmax is 0 on a row this statement inserted, the updating
		// transaction's id on one it replaced.
		if err := tx.QueryRow(ctx, `INSERT INTO reviews (id, agent_id, author_uid, rating, text, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $6)
			ON CONFLICT (agent_id, author_uid) DO UPDATE SET rating = EXCLUDED.rating, text = EXCLUDED.text,
				updated_at = EXCLUDED.updated_at
			RETURNING id::text, xmax = 0`, nid.String(), t.AgentID, uid, rating, text, at).Scan(&id, &created); err != nil {
			return fmt.Errorf("put review: %w", err)
		}
		if err := s.reviewChanged(ctx, tx, t.AgentID, id, rating, false, at); err != nil {
			return err
		}
		out, err = getReview(ctx, tx, id)
		return err
	})
	if err != nil {
		return Review{}, false, err
	}
	return out, created, nil
}

// DeleteReview implements Store.
func (s *PostgresStore) DeleteReview(ctx context.Context, uid, slug string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t, err := listed(ctx, tx, slug, uid, true)
		if err != nil {
			return err
		}
		var id string
		err = tx.QueryRow(ctx, `DELETE FROM reviews WHERE agent_id = $1 AND author_uid = $2 RETURNING id::text`, t.AgentID, uid).
			Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrReviewNotFound
		}
		if err != nil {
			return fmt.Errorf("delete review: %w", err)
		}
		return s.reviewChanged(ctx, tx, t.AgentID, id, 0, true, at)
	})
}

// ListReviews implements Store: keyset paging in the sort's order (id, a
// UUIDv7, breaks ties), limit+1 rows to know whether more follow.
func (s *PostgresStore) ListReviews(ctx context.Context, slug, sort string, after *Cursor, limit int) ([]Review, bool, error) {
	var agentID string
	err := s.pool.QueryRow(ctx, `SELECT a.id::text FROM agents a WHERE a.slug = $1 AND `+listedWhere, slug).Scan(&agentID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, agents.ErrNotFound
	}
	if err != nil {
		return nil, false, fmt.Errorf("listed agent: %w", err)
	}
	var order, keyset string
	switch sort {
	case SortHighest:
		order = `r.rating DESC, r.created_at DESC, r.id DESC`
		keyset = `(r.rating < $3 OR (r.rating = $3 AND (r.created_at, r.id) < ($4, $5::uuid)))`
	case SortLowest:
		order = `r.rating ASC, r.created_at DESC, r.id DESC`
		keyset = `(r.rating > $3 OR (r.rating = $3 AND (r.created_at, r.id) < ($4, $5::uuid)))`
	default:
		order = `r.created_at DESC, r.id DESC`
		keyset = `(r.created_at, r.id) < ($3, $4::uuid)`
	}
	where, args := `r.agent_id = $1`, []any{agentID, limit + 1}
	if after != nil {
		where += ` AND ` + keyset
		if sort != SortNewest {
			args = append(args, after.Rating)
		}
		args = append(args, after.CreatedAt, after.ID)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+reviewColumns+reviewFrom+` WHERE `+where+` ORDER BY `+order+` LIMIT $2`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("list reviews: %w", err)
	}
	defer rows.Close()
	out := []Review{}
	for rows.Next() {
		rv, err := scanReview(rows)
		if err != nil {
			return nil, false, err
		}
		out = append(out, rv)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// replyTarget checks, within q, that agentID is owner's and reviewID one of
// its reviews; lock takes the review row.
func replyTarget(ctx context.Context, q querier, owner, agentID, reviewID string, lock bool) error {
	var owned bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM agents WHERE id = $1 AND owner_uid = $2)`, agentID, owner).
		Scan(&owned); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	if !owned {
		return agents.ErrNotFound
	}
	if !validID(reviewID) {
		return ErrReviewNotFound
	}
	sql := `SELECT id::text FROM reviews WHERE id = $1 AND agent_id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	var id string
	err := q.QueryRow(ctx, sql, reviewID, agentID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrReviewNotFound
	}
	if err != nil {
		return fmt.Errorf("review: %w", err)
	}
	return nil
}

// ReplyTarget implements Store.
func (s *PostgresStore) ReplyTarget(ctx context.Context, owner, agentID, reviewID string) error {
	return replyTarget(ctx, s.pool, owner, agentID, reviewID, false)
}

// PutReply implements Store: reply_at is the first reply's time,
// reply_updated_at the latest edit's.
func (s *PostgresStore) PutReply(ctx context.Context, owner, agentID, reviewID, text string, at time.Time) (Review, error) {
	var out Review
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := replyTarget(ctx, tx, owner, agentID, reviewID, true); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE reviews SET reply = $2, reply_at = COALESCE(reply_at, $3), reply_updated_at = $3
			WHERE id = $1`, reviewID, text, at); err != nil {
			return fmt.Errorf("reply: %w", err)
		}
		var err error
		out, err = getReview(ctx, tx, reviewID)
		return err
	})
	return out, err
}

// DeleteReply implements Store.
func (s *PostgresStore) DeleteReply(ctx context.Context, owner, agentID, reviewID string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := replyTarget(ctx, tx, owner, agentID, reviewID, true); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE reviews SET reply = NULL, reply_at = NULL, reply_updated_at = NULL
			WHERE id = $1 AND reply IS NOT NULL`, reviewID)
		if err != nil {
			return fmt.Errorf("delete reply: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrReplyNotFound
		}
		return nil
	})
}

// report inserts uid's report of the target or, when uid reported it
// before, updates its reason; it reports whether the report is new (the
// caller then counts it on the target's row). Two concurrent first reports
// of one reporter: the second insert waits for the first and does nothing.
func report(ctx context.Context, tx pgx.Tx, kind, targetID, agentID, uid, reason string, at time.Time) (bool, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return false, err
	}
	tag, err := tx.Exec(ctx, `INSERT INTO reports (id, target_kind, target_id, agent_id, reporter_uid, reason, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT (target_kind, target_id, reporter_uid) DO NOTHING`, id, kind, targetID, agentID, uid, reason, at)
	if err != nil {
		return false, fmt.Errorf("report: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE reports SET reason = $4, updated_at = $5
		WHERE target_kind = $1 AND target_id = $2 AND reporter_uid = $3`, kind, targetID, uid, reason, at); err != nil {
		return false, fmt.Errorf("update report: %w", err)
	}
	return false, nil
}

// ReportAgent implements Store.
func (s *PostgresStore) ReportAgent(ctx context.Context, uid, slug, reason string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		t, err := listed(ctx, tx, slug, uid, false)
		if err != nil {
			return err
		}
		added, err := report(ctx, tx, "agent", t.AgentID, t.AgentID, uid, reason, at)
		if err != nil || !added {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE agents SET report_count = report_count + 1 WHERE id = $1`, t.AgentID); err != nil {
			return fmt.Errorf("count report: %w", err)
		}
		return nil
	})
}

// reviewTarget returns the agent of a review of a listed agent.
func reviewTarget(ctx context.Context, q querier, reviewID string) (string, error) {
	var agentID string
	err := q.QueryRow(ctx, `SELECT a.id::text FROM reviews r JOIN agents a ON a.id = r.agent_id
		WHERE r.id = $1 AND `+listedWhere, reviewID).Scan(&agentID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrReviewNotFound
	}
	if err != nil {
		return "", fmt.Errorf("review: %w", err)
	}
	return agentID, nil
}

// ReviewTarget implements Store.
func (s *PostgresStore) ReviewTarget(ctx context.Context, reviewID string) error {
	_, err := reviewTarget(ctx, s.pool, reviewID)
	return err
}

// ReportReview implements Store.
func (s *PostgresStore) ReportReview(ctx context.Context, uid, reviewID, reason string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		agentID, err := reviewTarget(ctx, tx, reviewID)
		if err != nil {
			return err
		}
		added, err := report(ctx, tx, "review", reviewID, agentID, uid, reason, at)
		if err != nil || !added {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE reviews SET report_count = report_count + 1 WHERE id = $1`, reviewID); err != nil {
			return fmt.Errorf("count report: %w", err)
		}
		return nil
	})
}
