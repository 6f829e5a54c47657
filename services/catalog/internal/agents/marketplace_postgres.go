package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The marketplace's SQL (migration 00005): every list is one walk of a
// partial index over the listed agents (WHERE is_public) in the order of its
// sort, continued after the cursor with a row comparison on the same columns
// (keyset paging: no OFFSET, stable pages), and a search ranks the matches of
// the GIN index on search_tsv. docs/catalog.md, "Marketplace: discovery".

// slugLockClass is the advisory lock class of slug assignment (7301:
// e-mail addresses, 7302: agents per owner).
const slugLockClass = 7303

// maxSlugAttempts bounds the retries when another transaction took the
// chosen slug first.
const maxSlugAttempts = 5

// updateListing completes Update for the listing: at the first publish a
// slug from the name (unique: "-2", "-3"… when taken; kept forever after,
// through renames and unpublishing), and the typical answer's price when the
// agent is published or its markup changed. It returns the agent as saved.
func (s *PostgresStore) updateListing(ctx context.Context, tx pgx.Tx, cur, out Agent, changed []string) (Agent, error) {
	publishing := out.IsPublic && !cur.IsPublic
	if !publishing && !slices.Contains(changed, FieldMarkupPercent) {
		return out, nil
	}
	if out.IsPublic && out.Slug == "" {
		if err := assignSlug(ctx, tx, out.ID, Slug(out.Name)); err != nil {
			return Agent{}, err
		}
	}
	if err := s.refreshTypical(ctx, tx, out.ID); err != nil {
		return Agent{}, err
	}
	return getAgent(ctx, tx, "", out.ID, false)
}

// assignSlug gives the agent base, or base-N with the smallest free N >= 2;
// a deleted agent's slug is never free again (retired_slugs).
// Publishes of one base queue on an advisory lock; a slug taken meanwhile
// under another base ("bot-2", the base of an agent named "Bot 2") is a
// unique violation, rolled back to a savepoint and retried with the next N.
func assignSlug(ctx context.Context, tx pgx.Tx, agentID, base string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, slugLockClass, base); err != nil {
		return fmt.Errorf("lock slug: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT slug FROM agents WHERE slug = $1 OR slug LIKE $1 || '-%'
		UNION ALL SELECT slug FROM retired_slugs WHERE slug = $1 OR slug LIKE $1 || '-%'`, base)
	if err != nil {
		return fmt.Errorf("slugs: %w", err)
	}
	taken, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("slugs: %w", err)
	}
	used := map[string]bool{}
	for _, t := range taken {
		used[t] = true
	}
	n := 1
	for attempt := 0; attempt < maxSlugAttempts; attempt++ {
		candidate := base
		for ; ; n++ {
			if n > 1 {
				candidate = base + "-" + strconv.Itoa(n)
			}
			if !used[candidate] {
				break
			}
		}
		sp, err := tx.Begin(ctx) // a savepoint
		if err != nil {
			return err
		}
		_, err = sp.Exec(ctx, `UPDATE agents SET slug = $2 WHERE id = $1`, agentID, candidate)
		if err == nil {
			return sp.Commit(ctx)
		}
		_ = sp.Rollback(ctx)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23505" {
			return fmt.Errorf("set slug: %w", err)
		}
		used[candidate] = true
	}
	return fmt.Errorf("set slug: no free slug for %q after %d attempts", base, maxSlugAttempts)
}

// refreshTypical sets the agent's typical answer: the median (lower middle)
// of its last answers' price to a user, each answer's total (cost + fee)
// plus the agent's current markup on its cost, or the estimate before any
// answer (typical_answer_estimated).
func (s *PostgresStore) refreshTypical(ctx context.Context, tx pgx.Tx, agentID string) error {
	_, err := tx.Exec(ctx, `
		UPDATE agents a SET (typical_answer_micros, typical_answer_estimated) = (
			SELECT COALESCE(
				percentile_disc(0.5) WITHIN GROUP (ORDER BY c.total_micros + (c.cost_micros * a.markup_percent + 99) / 100),
				$2 + ($3 * a.markup_percent + 99) / 100),
				count(*) = 0
			FROM agent_answer_costs c WHERE c.agent_id = a.id)
		WHERE a.id = $1`,
		agentID, s.estimate.CostMicros+s.estimate.FeeMicros, s.estimate.CostMicros)
	if err != nil {
		return fmt.Errorf("typical answer: %w", err)
	}
	return nil
}

// RecordAnswerCost keeps one answer's cost (model cost and total with the
// fee, micro-dollars) among the agent's last AnswerCostSamples, within tx
// (the usage consumer's), and refreshes the agent's typical answer. Call it
// only for an answer RecordInteraction counted (so the agent exists and the
// answer is new).
func (s *PostgresStore) RecordAnswerCost(ctx context.Context, tx pgx.Tx, agentID string, costMicros, totalMicros int64, at time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO agent_answer_costs (agent_id, cost_micros, total_micros, answered_at)
		VALUES ($1, $2, $3, $4)`, agentID, max(costMicros, 0), max(totalMicros, 0), at); err != nil {
		return fmt.Errorf("answer cost: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		DELETE FROM agent_answer_costs WHERE agent_id = $1 AND id < (
			SELECT id FROM agent_answer_costs WHERE agent_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
		agentID, AnswerCostSamples-1); err != nil {
		return fmt.Errorf("trim answer costs: %w", err)
	}
	return s.refreshTypical(ctx, tx, agentID)
}

// RefreshEstimates re-prices the estimated typical answers (agents without
// answers yet) with the store's estimate, touching only those that change:
// the service calls it at start, so a new default model price applies.
func (s *PostgresStore) RefreshEstimates(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `
		UPDATE agents SET typical_answer_micros = $1 + ($2 * markup_percent + 99) / 100
		WHERE typical_answer_estimated AND typical_answer_micros <> $1 + ($2 * markup_percent + 99) / 100`,
		s.estimate.CostMicros+s.estimate.FeeMicros, s.estimate.CostMicros)
	if err != nil {
		return 0, fmt.Errorf("refresh estimates: %w", err)
	}
	return tag.RowsAffected(), nil
}

// listingColumns are a listed agent's public columns (agents a LEFT JOIN
// known_users k on the owner), then the sort keys; never the owner's uid,
// e-mail or instructions.
const listingColumns = `a.id::text, a.slug, a.name, a.description, a.category, a.icon_name, a.icon_color, a.tags,
	COALESCE(k.name, ''), a.rating_count, a.rating_sum, a.rating_average, a.total_interactions, a.markup_percent,
	a.greeting_cost_cents, a.memory_tokens, a.typical_answer_micros, a.status = 'active', a.published_at`

// scanListing scans listingColumns, the rank, then extra.
func scanListing(row pgx.Row, extra ...any) (Listing, error) {
	var l Listing
	dest := append([]any{&l.ID, &l.Slug, &l.Name, &l.Description, &l.Category, &l.IconName, &l.IconColor, &l.Tags,
		&l.CreatorName, &l.RatingCount, &l.RatingSum, &l.RatingAverage, &l.Answers, &l.MarkupPercent,
		&l.GreetingCostCents, &l.MemoryTokens, &l.TypicalAnswerMicros, &l.Available, &l.PublishedAt, &l.Rank}, extra...)
	if err := row.Scan(dest...); err != nil {
		return Listing{}, err
	}
	if l.Tags == nil {
		l.Tags = []string{}
	}
	if strings.TrimSpace(l.CreatorName) == "" {
		l.CreatorName = UnknownCreator
	}
	return l, nil
}

// matchKeyColumns are what every sort orders by, for the matches of a
// search or tag (listSQL): carrying every listing column of thousands of
// matches into the CTE cost more than the search (8–9 ms against 3–4 ms for
// a word matching 2,500 agents); only the page's rows are read in full.
const matchKeyColumns = `a.id, a.total_interactions, a.rating_average, a.rating_count, a.published_at, a.typical_answer_micros`

// listSQL builds the list query of f and its arguments.
//
// Without a search or a tag, the planner walks the sort's index (or, for a
// category, the category's) and stops after the page. With a search or a
// tag, the matches come from the GIN index first (a MATERIALIZED CTE, so the
// planner cannot walk a sort index instead, filtering row by row: that walk
// reads most of the index when the matches sit at its far end, 14 ms at
// 4,000 agents in TestListQueriesOverThousandsOfAgents), then only they are
// ranked and sorted.
func listSQL(f ListFilter) (string, []any) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	from := "agents a"
	where := []string{"a.is_public"}
	rank := "0::real"
	keysOnly := false
	if f.TSQuery != "" || f.Tag != "" {
		match := []string{"a.is_public"}
		inner := "0::real"
		if f.TSQuery != "" {
			tsq := "to_tsquery('english'::regconfig, " + arg(f.TSQuery) + ")"
			match = append(match, "a.search_tsv @@ "+tsq)
			if f.Sort == SortRelevance { // ranked only when it is the order
				inner = "ts_rank(a.search_tsv, " + tsq + ")"
			}
		}
		if f.Tag != "" {
			match = append(match, "a.tags @> ARRAY["+arg(f.Tag)+"]::text[]")
		}
		if f.Category != "" {
			match = append(match, "a.category = "+arg(f.Category))
		}
		from = "(WITH m AS MATERIALIZED (SELECT " + matchKeyColumns + ", " + inner + " AS rank FROM agents a WHERE " +
			strings.Join(match, " AND ") + ") SELECT * FROM m) a"
		where = nil
		rank = "a.rank"
		keysOnly = true
	} else if f.Category != "" {
		where = append(where, "a.category = "+arg(f.Category))
	}
	var order string
	switch f.Sort {
	case SortRating:
		order = "a.rating_average DESC, a.rating_count DESC, a.id DESC"
		if c := f.After; c != nil {
			where = append(where, "(a.rating_average, a.rating_count, a.id) < ("+arg(c.Float)+"::float8, "+arg(c.Int)+"::bigint, "+arg(c.ID)+"::uuid)")
		}
	case SortNewest:
		order = "a.published_at DESC, a.id DESC"
		if c := f.After; c != nil {
			where = append(where, "(a.published_at, a.id) < ("+arg(c.Time)+"::timestamptz, "+arg(c.ID)+"::uuid)")
		}
	case SortPrice:
		order = "a.typical_answer_micros, a.id"
		if c := f.After; c != nil {
			where = append(where, "(a.typical_answer_micros, a.id) > ("+arg(c.Int)+"::bigint, "+arg(c.ID)+"::uuid)")
		}
	case SortRelevance:
		order = rank + " DESC, a.id DESC"
		if c := f.After; c != nil {
			where = append(where, "("+rank+", a.id) < ("+arg(float32(c.Float))+"::real, "+arg(c.ID)+"::uuid)")
		}
	default: // SortPopular
		order = "a.total_interactions DESC, a.id DESC"
		if c := f.After; c != nil {
			where = append(where, "(a.total_interactions, a.id) < ("+arg(c.Int)+"::bigint, "+arg(c.ID)+"::uuid)")
		}
	}
	cond := ""
	if len(where) > 0 {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	if keysOnly {
		// The page is chosen among the matches by their sort keys alone;
		// only its rows are read in full and joined to their creators.
		sql := `SELECT ` + listingColumns + `, p.rank
		FROM (SELECT a.* FROM ` + from + ` ` + cond + ` ORDER BY ` + order + ` LIMIT ` + arg(f.Limit+1) + `) p
		JOIN agents a ON a.id = p.id LEFT JOIN known_users k ON k.uid = a.owner_uid
		ORDER BY ` + strings.ReplaceAll(order, "a.rank", "p.rank")
		return sql, args
	}
	sql := `SELECT ` + listingColumns + `, ` + rank + `
		FROM ` + from + ` LEFT JOIN known_users k ON k.uid = a.owner_uid
		` + cond + `
		ORDER BY ` + order + `
		LIMIT ` + arg(f.Limit+1)
	return sql, args
}

// ListListed implements Store.
func (s *PostgresStore) ListListed(ctx context.Context, f ListFilter) ([]Listing, error) {
	sql, args := listSQL(f)
	// Planned with the values every time (an unnamed statement): the shapes
	// vary with the filters, and a generic plan cached while the table was
	// small (a new database, autovacuum off) would keep scanning it whole
	// as it grows.
	rows, err := s.pool.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]Listing, 0, f.Limit+1)
	for rows.Next() {
		l, err := scanListing(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// GetListed implements Store: the slug's unique index, then the listed check.
func (s *PostgresStore) GetListed(ctx context.Context, slug string) (Listing, error) {
	var (
		greeting string
		docs     int64
		created  time.Time
	)
	row := s.pool.QueryRow(ctx, `SELECT `+listingColumns+`, 0::real, a.greeting, a.documents_count, a.created_at
		FROM agents a LEFT JOIN known_users k ON k.uid = a.owner_uid
		WHERE a.slug = $1 AND a.is_public`, slug)
	l, err := scanListing(row, &greeting, &docs, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return Listing{}, ErrNotFound
	}
	if err != nil {
		return Listing{}, err
	}
	l.Greeting, l.DocumentsCount, l.CreatedAt = greeting, docs, created
	return l, nil
}

// ListedCategories implements Store (an index-only scan of
// agents_listed_category_idx).
func (s *PostgresStore) ListedCategories(ctx context.Context) ([]CategoryCount, error) {
	rows, err := s.pool.Query(ctx, `SELECT category, count(*) FROM agents WHERE is_public
		GROUP BY category ORDER BY count(*) DESC, category`)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CategoryCount, error) {
		var c CategoryCount
		err := r.Scan(&c.Category, &c.Count)
		return c, err
	})
	if out == nil {
		out = []CategoryCount{}
	}
	return out, err
}
