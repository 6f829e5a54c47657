package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/platform/events"
)

// PostgresStore is the Store backed by PostgreSQL and the platform outbox.
type PostgresStore struct {
	pool   *pgxpool.Pool
	outbox *events.Outbox
	// estimate prices an agent's typical answer before its first one
	// (marketplace_postgres.go).
	estimate AnswerEstimate
}

// StoreOption configures a PostgresStore.
type StoreOption func(*PostgresStore)

// WithAnswerEstimate sets the estimate of a first answer (default: the
// default model's prices, NewAnswerEstimate(DefaultEstimateInputPrice,
// DefaultEstimateOutputPrice)).
func WithAnswerEstimate(e AnswerEstimate) StoreOption {
	return func(s *PostgresStore) { s.estimate = e }
}

// NewPostgresStore returns a Store using pool; events go to the outbox table
// of the same database.
func NewPostgresStore(pool *pgxpool.Pool, opts ...StoreOption) *PostgresStore {
	s := &PostgresStore{pool: pool, outbox: events.NewOutbox(Source),
		estimate: NewAnswerEstimate(DefaultEstimateInputPrice, DefaultEstimateOutputPrice)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// maxEmailAttempts bounds the retries when a generated address was issued before.
const maxEmailAttempts = 20

// agentColumns are an agent's columns (no expression may contain a comma:
// agentColumnsAs splits on them).
const agentColumns = `id::text, owner_uid, name, description, category, status, is_public, icon_name, icon_color,
	instructions, tags, subscribers, total_interactions, email, created_at, updated_at, subscriber_monthly_cap_cents,
	slug, published_at, markup_percent, greeting_cost_cents, greeting, memory_tokens, show_sources, documents_count`

// scanAgent scans agentColumns, then extra (columns selected after them).
func scanAgent(row pgx.Row, extra ...any) (Agent, error) {
	var (
		a         Agent
		slug      *string
		published *time.Time
	)
	dest := append([]any{&a.ID, &a.OwnerUID, &a.Name, &a.Description, &a.Category, &a.Status, &a.IsPublic,
		&a.IconName, &a.IconColor, &a.Instructions, &a.Tags, &a.Subscribers, &a.TotalInteractions, &a.Email,
		&a.CreatedAt, &a.UpdatedAt, &a.SubscriberMonthlyCapCents,
		&slug, &published, &a.MarkupPercent, &a.GreetingCostCents, &a.Greeting, &a.MemoryTokens, &a.ShowSources,
		&a.DocumentsCount}, extra...)
	err := row.Scan(dest...)
	if a.Tags == nil {
		a.Tags = []string{}
	}
	if slug != nil {
		a.Slug = *slug
	}
	if published != nil {
		a.PublishedAt = *published
	}
	return a, err
}

const subscriberColumns = `id::text, agent_id::text, email, status, COALESCE(uid, ''), name, interactions,
	invited_at, COALESCE(activated_at, '0001-01-01Z'::timestamptz), cap_mode, monthly_cap_cents`

// scanSubscriber scans subscriberColumns; agentDefault is the agent's
// default cap, for EffectiveCapCents.
func scanSubscriber(row pgx.Row, agentDefault *int64) (Subscriber, error) {
	var s Subscriber
	err := row.Scan(&s.ID, &s.AgentID, &s.Email, &s.Status, &s.UID, &s.Name, &s.Interactions, &s.InvitedAt, &s.ActivatedAt,
		&s.CapMode, &s.MonthlyCapCents)
	if s.ActivatedAt.Year() <= 1 {
		s.ActivatedAt = time.Time{}
	}
	s.EffectiveCapCents = EffectiveCap(s.CapMode, s.MonthlyCapCents, agentDefault)
	return s, err
}

// recordAccessChange records, within tx, a change that may end or alter
// uid's access to agentID ("" = every user of the agent), at
// clock_timestamp(): callers make it their transaction's last statement, so
// the time is close to the commit (AccessChangesSince's margin covers the
// rest). The same statement purges a few rows older than
// AccessChangeRetention, skipping rows another transaction is purging.
func recordAccessChange(ctx context.Context, tx pgx.Tx, agentID, uid string) error {
	_, err := tx.Exec(ctx, `
		WITH purged AS (
			DELETE FROM access_changes WHERE id IN (
				SELECT id FROM access_changes WHERE at < clock_timestamp() - make_interval(secs => $3)
				ORDER BY at LIMIT 100 FOR UPDATE SKIP LOCKED))
		INSERT INTO access_changes (agent_id, uid, at) VALUES ($1, NULLIF($2, ''), clock_timestamp())`,
		agentID, uid, AccessChangeRetention.Seconds())
	if err != nil {
		return fmt.Errorf("record access change: %w", err)
	}
	return nil
}

func (s *PostgresStore) enqueue(ctx context.Context, tx pgx.Tx, evs ...events.Event) error {
	for _, ev := range evs {
		if _, err := s.outbox.Enqueue(ctx, tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// List implements Store: newest first.
func (s *PostgresStore) List(ctx context.Context, owner string) ([]Agent, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents WHERE owner_uid = $1 ORDER BY created_at DESC, id DESC`, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Agent{}
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Create implements Store.
func (s *PostgresStore) Create(ctx context.Context, a Agent, newEmail func() string, maxPerOwner int) (Agent, error) {
	var out Agent
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if maxPerOwner > 0 {
			// One owner's creates queue here, so the count below cannot be
			// read by two of them before either inserts.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7302, hashtext($1))`, a.OwnerUID); err != nil {
				return fmt.Errorf("lock owner: %w", err)
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM agents WHERE owner_uid = $1`, a.OwnerUID).Scan(&n); err != nil {
				return fmt.Errorf("count agents: %w", err)
			}
			if n >= maxPerOwner {
				return &LimitError{Message: MsgMaxAgents(maxPerOwner)}
			}
		}
		a.Email = ""
		for attempt := 0; attempt < maxEmailAttempts && a.Email == ""; attempt++ {
			email := strings.ToLower(newEmail())
			// ON CONFLICT DO NOTHING keeps the transaction usable on a collision.
			tag, err := tx.Exec(ctx, `INSERT INTO agent_emails (email, agent_id) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING`, email, a.ID)
			if err != nil {
				return fmt.Errorf("issue agent e-mail: %w", err)
			}
			if tag.RowsAffected() == 1 {
				a.Email = email
			}
		}
		if a.Email == "" {
			return fmt.Errorf("issue agent e-mail: no free address after %d attempts", maxEmailAttempts)
		}
		var err error
		out, err = scanAgent(tx.QueryRow(ctx, `
			INSERT INTO agents (id, owner_uid, name, description, category, status, is_public, icon_name, icon_color,
				instructions, tags, email, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
			RETURNING `+agentColumns,
			a.ID, a.OwnerUID, a.Name, a.Description, a.Category, a.Status, a.IsPublic, a.IconName, a.IconColor,
			a.Instructions, a.Tags, a.Email, a.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert agent: %w", err)
		}
		return s.enqueue(ctx, tx, createdEvent(out))
	})
	if err != nil {
		return Agent{}, err
	}
	return out, nil
}

// Get implements Store.
func (s *PostgresStore) Get(ctx context.Context, owner, id string) (Agent, error) {
	return getAgent(ctx, s.pool, owner, id, false)
}

// GetByEmail implements Store. Addresses are stored in lower case (Create
// lower-cases them), so the UNIQUE index on agents.email serves the lookup.
func (s *PostgresStore) GetByEmail(ctx context.Context, email string) (Agent, error) {
	a, err := scanAgent(s.pool.QueryRow(ctx, `SELECT `+agentColumns+` FROM agents WHERE email = lower($1)`, email))
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, ErrNotFound
	}
	return a, err
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func getAgent(ctx context.Context, q querier, owner, id string, lock bool) (Agent, error) {
	sql := `SELECT ` + agentColumns + ` FROM agents WHERE id = $1 AND ($2 = '' OR owner_uid = $2)`
	if lock {
		sql += ` FOR UPDATE`
	}
	a, err := scanAgent(q.QueryRow(ctx, sql, id, owner))
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, ErrNotFound
	}
	return a, err
}

// Update implements Store.
func (s *PostgresStore) Update(ctx context.Context, owner, id string, fn func(Agent) (Agent, []string, error)) (Agent, error) {
	var out Agent
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cur, err := getAgent(ctx, tx, owner, id, true)
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
		var published *time.Time
		if !next.PublishedAt.IsZero() {
			published = &next.PublishedAt
		}
		out, err = scanAgent(tx.QueryRow(ctx, `
			UPDATE agents SET description = $2, instructions = $3, tags = $4, is_public = $5, status = $6, updated_at = $7,
				subscriber_monthly_cap_cents = $8, markup_percent = $9, greeting_cost_cents = $10, greeting = $11,
				memory_tokens = $12, show_sources = $13, published_at = $14, documents_count = $15,
				name = $16, icon_name = $17, icon_color = $18
			WHERE id = $1
			RETURNING `+agentColumns,
			id, next.Description, next.Instructions, next.Tags, next.IsPublic, next.Status, next.UpdatedAt,
			next.SubscriberMonthlyCapCents, next.MarkupPercent, next.GreetingCostCents, next.Greeting,
			next.MemoryTokens, next.ShowSources, published, next.DocumentsCount,
			next.Name, next.IconName, next.IconColor))
		if err != nil {
			return fmt.Errorf("update agent: %w", err)
		}
		// The listing: a slug at the first publish, the typical answer's
		// price when the markup changed or the agent is published.
		if out, err = s.updateListing(ctx, tx, cur, out, changed); err != nil {
			return err
		}
		if err := s.enqueue(ctx, tx, updateEvents(cur, out, changed)...); err != nil {
			return err
		}
		// Whatever changed (status, instructions, the default cap), every
		// user's cached access to the agent is stale.
		return recordAccessChange(ctx, tx, id, "")
	})
	if err != nil {
		return Agent{}, err
	}
	return out, nil
}

// ListSubscribers implements Store: newest first.
func (s *PostgresStore) ListSubscribers(ctx context.Context, owner, agentID string) ([]Subscriber, error) {
	a, err := s.Get(ctx, owner, agentID)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+subscriberColumns+` FROM subscribers WHERE agent_id = $1
		ORDER BY invited_at DESC, id DESC`, agentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Subscriber{}
	for rows.Next() {
		sub, err := scanSubscriber(rows, a.SubscriberMonthlyCapCents)
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, rows.Err()
}

// lockEmail serialises invites and activations of one address (transaction
// scoped), so an invite racing the user's onboarding cannot stay invited.
// Every transaction takes it before any agent row lock.
func lockEmail(ctx context.Context, tx pgx.Tx, email string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7301, hashtext($1))`, strings.ToLower(email))
	return err
}

// recount sets the agent's subscriber count to its number of active
// subscribers and returns the agent.
func recount(ctx context.Context, tx pgx.Tx, agentID string) (Agent, error) {
	return scanAgent(tx.QueryRow(ctx, `
		UPDATE agents SET subscribers = (SELECT count(*) FROM subscribers WHERE agent_id = $1 AND status = 'active')
		WHERE id = $1
		RETURNING `+agentColumns, agentID))
}

// AddSubscriber implements Store.
func (s *PostgresStore) AddSubscriber(ctx context.Context, owner, agentID, email string, user *User, at time.Time) (Subscriber, error) {
	var out Subscriber
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockEmail(ctx, tx, email); err != nil {
			return err
		}
		agent, err := getAgent(ctx, tx, owner, agentID, true)
		if err != nil {
			return err
		}
		if user != nil && user.UID == owner {
			return &ValidationError{Fields: []FieldError{{"email", MsgOwnEmail}}}
		}
		// A user the catalog learned from identity's events is consulted only
		// to refuse the owner's own address; it does not activate anything.
		var ownAddress bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM known_users WHERE email = $1 AND uid = $2)`, email, owner).
			Scan(&ownAddress); err != nil {
			return fmt.Errorf("known user: %w", err)
		}
		if ownAddress {
			return &ValidationError{Fields: []FieldError{{"email", MsgOwnEmail}}}
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		sub := Subscriber{ID: id.String(), AgentID: agentID, Email: email, Status: SubscriberInvited, InvitedAt: at}
		if user != nil {
			sub.Status, sub.UID, sub.Name, sub.ActivatedAt = SubscriberActive, user.UID, user.Name, at
		}
		var activated any
		if !sub.ActivatedAt.IsZero() {
			activated = sub.ActivatedAt
		}
		out, err = scanSubscriber(tx.QueryRow(ctx, `
			INSERT INTO subscribers (id, agent_id, email, status, uid, name, invited_at, activated_at)
			VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7, $8)
			ON CONFLICT (agent_id, email) DO NOTHING
			RETURNING `+subscriberColumns,
			sub.ID, agentID, email, sub.Status, sub.UID, sub.Name, sub.InvitedAt, activated), agent.SubscriberMonthlyCapCents)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrAlreadyInvited
		}
		if err != nil {
			return fmt.Errorf("insert subscriber: %w", err)
		}
		a, err := recount(ctx, tx, agentID)
		if err != nil {
			return fmt.Errorf("recount: %w", err)
		}
		if err := s.enqueue(ctx, tx, subscriberAddedEvent(a, out, at)); err != nil {
			return err
		}
		if out.Status != SubscriberInvited {
			return nil
		}
		// The invitee is e-mailed (the mail service, through the relay).
		return s.enqueueInvitationEmail(ctx, tx, a, out, false, at)
	})
	if err != nil {
		return Subscriber{}, err
	}
	return out, nil
}

// RemoveSubscriber implements Store.
func (s *PostgresStore) RemoveSubscriber(ctx context.Context, owner, agentID, subscriberID string, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		agent, err := getAgent(ctx, tx, owner, agentID, true)
		if err != nil {
			return err
		}
		sub, err := scanSubscriber(tx.QueryRow(ctx, `DELETE FROM subscribers WHERE id = $1 AND agent_id = $2 RETURNING `+subscriberColumns,
			subscriberID, agentID), agent.SubscriberMonthlyCapCents)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSubscriberNotFound
		}
		if err != nil {
			return fmt.Errorf("delete subscriber: %w", err)
		}
		a, err := recount(ctx, tx, agentID)
		if err != nil {
			return fmt.Errorf("recount: %w", err)
		}
		if err := s.enqueue(ctx, tx, subscriberRemovedEvent(a, sub, at)); err != nil {
			return err
		}
		if sub.UID == "" {
			return nil // invited only: no access to take away
		}
		return recordAccessChange(ctx, tx, agentID, sub.UID)
	})
}

// SetSubscriberCap implements Store. Lock order as everywhere: the agent
// row, then the subscriber row.
func (s *PostgresStore) SetSubscriberCap(ctx context.Context, owner, agentID, subscriberID, mode string, cents *int64) (Subscriber, error) {
	var out Subscriber
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		agent, err := getAgent(ctx, tx, owner, agentID, true)
		if err != nil {
			return err
		}
		cur, err := scanSubscriber(tx.QueryRow(ctx, `SELECT `+subscriberColumns+` FROM subscribers WHERE id = $1 AND agent_id = $2 FOR UPDATE`,
			subscriberID, agentID), agent.SubscriberMonthlyCapCents)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrSubscriberNotFound
		}
		if err != nil {
			return fmt.Errorf("subscriber: %w", err)
		}
		if cur.CapMode == mode && equalCents(cur.MonthlyCapCents, cents) {
			out = cur
			return nil
		}
		out, err = scanSubscriber(tx.QueryRow(ctx, `UPDATE subscribers SET cap_mode = $3, monthly_cap_cents = $4
			WHERE id = $1 AND agent_id = $2 RETURNING `+subscriberColumns,
			subscriberID, agentID, mode, cents), agent.SubscriberMonthlyCapCents)
		if err != nil {
			return fmt.Errorf("set subscriber cap: %w", err)
		}
		if out.UID == "" {
			return nil // invited only: nothing cached for them yet
		}
		return recordAccessChange(ctx, tx, agentID, out.UID)
	})
	if err != nil {
		return Subscriber{}, err
	}
	return out, nil
}

// RecordUser records (or refreshes) a user the identity service reported,
// within tx (the event consumer's transaction): the catalog shows known
// users' names. It activates nothing: identity's events do not say whether
// the address was verified (ActivateVerified does that).
func (s *PostgresStore) RecordUser(ctx context.Context, tx pgx.Tx, u User, at time.Time) error {
	_, err := recordUser(ctx, tx, u, at)
	return err
}

// RememberUser implements Store (recordUser in a transaction of its own).
func (s *PostgresStore) RememberUser(ctx context.Context, u User, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := recordUser(ctx, tx, u, at)
		return err
	})
}

// recordUser upserts known_users and returns the user's name as now known
// (an empty name does not replace a known one).
func recordUser(ctx context.Context, tx pgx.Tx, u User, at time.Time) (string, error) {
	email := strings.ToLower(strings.TrimSpace(u.Email))
	if u.UID == "" || email == "" {
		return u.Name, nil
	}
	var name string
	if err := tx.QueryRow(ctx, `
		INSERT INTO known_users (uid, email, name, seen_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (uid) DO UPDATE SET email = EXCLUDED.email,
			name = COALESCE(NULLIF(EXCLUDED.name, ''), known_users.name), seen_at = EXCLUDED.seen_at
		RETURNING name`,
		u.UID, email, u.Name, at).Scan(&name); err != nil {
		return "", fmt.Errorf("known user: %w", err)
	}
	return name, nil
}

// ActivateVerified implements Store: nothing to do (one lookup on the
// partial index of invited addresses) unless u.Email has invitations.
func (s *PostgresStore) ActivateVerified(ctx context.Context, u User, at time.Time) (int, error) {
	email := strings.ToLower(strings.TrimSpace(u.Email))
	if u.UID == "" || email == "" {
		return 0, nil
	}
	var pending bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM subscribers WHERE email = $1 AND status = 'invited')`, email).
		Scan(&pending); err != nil {
		return 0, fmt.Errorf("pending invitations: %w", err)
	}
	if !pending {
		return 0, nil
	}
	var n int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		n, err = s.ActivateUser(ctx, tx, u, at)
		return err
	})
	return n, err
}

// ActivateUser records u (RecordUser) and activates every invited
// subscription of its e-mail address, within tx. Callers must know that u
// has verified the address (ActivateVerified). It is idempotent: already
// active subscribers are left alone. It returns how many subscriptions it
// activated.
func (s *PostgresStore) ActivateUser(ctx context.Context, tx pgx.Tx, u User, at time.Time) (int, error) {
	email := strings.ToLower(strings.TrimSpace(u.Email))
	if u.UID == "" || email == "" {
		return 0, nil
	}
	if err := lockEmail(ctx, tx, email); err != nil {
		return 0, err
	}
	name, err := recordUser(ctx, tx, u, at)
	if err != nil {
		return 0, err
	}
	u.Name = name
	// Lock the affected agents first (in id order), like every other
	// transaction: e-mail lock, then agent rows, then subscriber rows.
	if _, err := tx.Exec(ctx, `
		SELECT a.id FROM agents a
		WHERE a.id IN (SELECT agent_id FROM subscribers WHERE email = $1 AND status = 'invited')
		ORDER BY a.id FOR UPDATE`, email); err != nil {
		return 0, fmt.Errorf("lock agents: %w", err)
	}
	// The owner's own address on one of their agents is left alone (inviting
	// it is refused anyway).
	rows, err := tx.Query(ctx, `
		UPDATE subscribers SET status = 'active', uid = $2, name = $3, activated_at = $4
		WHERE email = $1 AND status = 'invited'
			AND agent_id IN (SELECT id FROM agents WHERE owner_uid <> $2)
		RETURNING `+subscriberColumns, email, u.UID, u.Name, at)
	if err != nil {
		return 0, fmt.Errorf("activate subscribers: %w", err)
	}
	var subs []Subscriber
	for rows.Next() {
		sub, err := scanSubscriber(rows, nil) // (the effective cap is not used here)
		if err != nil {
			rows.Close()
			return 0, err
		}
		subs = append(subs, sub)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, sub := range subs {
		a, err := recount(ctx, tx, sub.AgentID)
		if err != nil {
			return 0, fmt.Errorf("recount: %w", err)
		}
		if err := s.enqueue(ctx, tx, subscriberActivatedEvent(a, sub)); err != nil {
			return 0, err
		}
	}
	// A user who talked to a listed agent as a consumer (paying for
	// themselves) is a subscriber now (the owner pays): their cached access
	// is stale.
	for _, sub := range subs {
		if err := recordAccessChange(ctx, tx, sub.AgentID, sub.UID); err != nil {
			return 0, err
		}
	}
	return len(subs), nil
}

// agentColumnsAs is agentColumns qualified with a table alias, for queries
// that join tables sharing column names (id, name, email, status).
func agentColumnsAs(alias string) string {
	cols := strings.Split(agentColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// Access implements Store. One query on the agents primary key plus a probe
// of subscribers_active_uid_idx: it runs on every chat message. A user with
// two active subscriptions of one agent (two addresses that resolved to
// their uid) gets the newest one's cap, the row RecordInteraction counts on.
func (s *PostgresStore) Access(ctx context.Context, agentID, uid string) (Agent, string, *int64, error) {
	var (
		role     string
		capCents *int64
	)
	a, err := scanAgent(s.pool.QueryRow(ctx, `
		SELECT `+agentColumnsAs("agents")+`,
			CASE WHEN agents.owner_uid = $2 THEN 'owner' WHEN sub.cap_mode IS NOT NULL THEN 'subscriber' ELSE '' END,
			CASE sub.cap_mode WHEN 'none' THEN NULL WHEN 'custom' THEN sub.monthly_cap_cents
				ELSE agents.subscriber_monthly_cap_cents END
		FROM agents
		LEFT JOIN LATERAL (
			SELECT s.cap_mode, s.monthly_cap_cents FROM subscribers s
			WHERE s.uid = $2 AND s.agent_id = agents.id AND s.status = 'active'
			ORDER BY s.activated_at DESC, s.id DESC LIMIT 1) sub ON true
		WHERE agents.id = $1`, agentID, uid), &role, &capCents)
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, "", nil, ErrNotFound
	}
	if err != nil {
		return Agent{}, "", nil, err
	}
	if role != RoleSubscriber {
		capCents = nil
	}
	return a, role, capCents, nil
}

// AccessChangesSince implements Store: one round trip, the database's now()
// and the changes at or after COALESCE(since, now()) - margin, like
// conversations' RevokedAPIKeysSince. Each (agent, uid) comes once, as
// "<agent id>/<uid>" (a UUID has no "/", so the first one separates them).
func (s *PostgresStore) AccessChangesSince(ctx context.Context, since time.Time, margin time.Duration) ([]AccessChange, time.Time, error) {
	var (
		from *time.Time
		keys []string
		now  time.Time
	)
	if !since.IsZero() {
		from = &since
	}
	err := s.pool.QueryRow(ctx, `SELECT now(), ARRAY(
			SELECT DISTINCT agent_id::text || '/' || COALESCE(uid, '') FROM access_changes
			WHERE at >= COALESCE($1, now()) - make_interval(secs => $2))`,
		from, margin.Seconds()).Scan(&now, &keys)
	if err != nil {
		return nil, time.Time{}, err
	}
	out := make([]AccessChange, 0, len(keys))
	for _, k := range keys {
		agentID, uid, _ := strings.Cut(k, "/")
		out = append(out, AccessChange{AgentID: agentID, UID: uid})
	}
	return out, now, nil
}

// ListShared implements Store: the caller's active subscriptions (by uid,
// subscribers_active_uid_idx) with their agents and the owners' names from
// known_users, newest activation first.
func (s *PostgresStore) ListShared(ctx context.Context, uid string) ([]SharedAgent, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+agentColumnsAs("a")+`, COALESCE(k.name, ''), s.activated_at, s.interactions
		FROM subscribers s
		JOIN agents a ON a.id = s.agent_id
		LEFT JOIN known_users k ON k.uid = a.owner_uid
		WHERE s.uid = $1 AND s.status = 'active' AND a.owner_uid <> $1
		ORDER BY s.activated_at DESC NULLS LAST, s.invited_at DESC, s.id DESC`, uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SharedAgent{}
	seen := map[string]bool{}
	for rows.Next() {
		var (
			sa        SharedAgent
			activated *time.Time
			err       error
		)
		if sa.Agent, err = scanAgent(rows, &sa.OwnerName, &activated, &sa.Interactions); err != nil {
			return nil, err
		}
		a := &sa.Agent
		// One user could hold two active subscriptions of one agent (two
		// addresses that both resolved to the uid); show the agent once, with
		// the newest subscription.
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if activated != nil {
			sa.SharedAt = *activated
		}
		out = append(out, sa)
	}
	return out, rows.Err()
}

// RecordInteraction counts one answer of agentID within tx (the usage
// consumer's transaction): the agent's total_interactions, the asking
// user's agent_users row (answers, first and last answer time; the owner
// included) when userUID is set, and the asking user's subscriber row when
// userUID is an active subscriber rather than the owner. interactionID
// ("" = unknown) is remembered in counted_interactions so the same answer is
// never counted twice, even under two event ids. It reports whether
// anything was counted: false for an already counted interaction or an
// unknown agent (nothing to count; not an error, so a usage event for a
// deleted agent is not parked).
func (s *PostgresStore) RecordInteraction(ctx context.Context, tx pgx.Tx, interactionID, agentID, userUID string, at time.Time) (bool, error) {
	if !validID(agentID) {
		return false, nil
	}
	if interactionID != "" {
		tag, err := tx.Exec(ctx, `INSERT INTO counted_interactions (interaction_id, agent_id, counted_at) VALUES ($1, $2, $3)
			ON CONFLICT (interaction_id) DO NOTHING`, interactionID, agentID, at)
		if err != nil {
			return false, fmt.Errorf("counted interaction: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return false, nil
		}
	}
	// Agent row first, then the subscriber row: the lock order of every other
	// transaction. updated_at is left alone (it tracks the owner's edits).
	var owner string
	err := tx.QueryRow(ctx, `UPDATE agents SET total_interactions = total_interactions + 1 WHERE id = $1 RETURNING owner_uid`, agentID).
		Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("count agent interaction: %w", err)
	}
	if userUID == "" {
		return true, nil
	}
	// Who received answers from the agent (agent_users; the owner too, whom
	// the review rules refuse on their own): only such a user may review it.
	if _, err := tx.Exec(ctx, `
		INSERT INTO agent_users (agent_id, uid, answers, first_answer_at, last_answer_at) VALUES ($1, $2, 1, $3, $3)
		ON CONFLICT (agent_id, uid) DO UPDATE SET answers = agent_users.answers + 1,
			last_answer_at = GREATEST(agent_users.last_answer_at, EXCLUDED.last_answer_at)`, agentID, userUID, at); err != nil {
		return false, fmt.Errorf("count agent user: %w", err)
	}
	if userUID == owner {
		return true, nil
	}
	if _, err := tx.Exec(ctx, `
		UPDATE subscribers SET interactions = interactions + 1
		WHERE id = (SELECT id FROM subscribers WHERE uid = $2 AND agent_id = $1 AND status = 'active'
			ORDER BY activated_at DESC, id DESC LIMIT 1)`, agentID, userUID); err != nil {
		return false, fmt.Errorf("count subscriber interaction: %w", err)
	}
	return true, nil
}
